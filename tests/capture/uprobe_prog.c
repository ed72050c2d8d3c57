// SPDX-License-Identifier: MIT
/*
 * Test program for --snapshot-on: calls target() N times (argv[1]); with
 * "wait" (argv[2]), then reads its stdin to the end before exiting; with
 * "first", reads a line of its stdin before the calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) void target(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 3;
	char line[16];

	if (argc > 2 && !strcmp(argv[2], "first") &&
	    !fgets(line, sizeof(line), stdin))
		return 1;
	for (i = 0; i < n; i++)
		target(i);
	printf("%d\n", sink);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "wait"))
		while (getchar() != EOF)
			;
	return 0;
}
