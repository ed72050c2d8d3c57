// SPDX-License-Identifier: MIT
/*
 * A workload with source lines for bench/srcline.sh (built with -g):
 * rounds of qsort, snprintf and strlen, so that the trace runs through
 * the program's lines and libc's (their lines from libc6-dbg's debug
 * files) over and over.
 *   srcloop [ROUNDS]
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, v[64];
	char buf[64];
	long t = 0;
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < 64; i++)
			v[i] = (i * 7919 + r) % 101;
		qsort(v, 64, sizeof(v[0]), cmp);
		snprintf(buf, sizeof(buf), "%d", v[r % 64]);
		t += strlen(buf);
	}
	printf("%ld\n", t);
	return 0;
}
