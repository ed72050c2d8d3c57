// SPDX-License-Identifier: MIT
/* Test program: dies of a NULL dereference after some work. */
#include <stdio.h>

static int *volatile nowhere;

__attribute__((noinline)) static int work(int n)
{
	int i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i * i;
	return acc;
}

int main(void)
{
	printf("crash %d\n", work(50));
	fflush(stdout);
	return *nowhere;
}
