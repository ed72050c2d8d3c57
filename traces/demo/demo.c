// SPDX-License-Identifier: MIT
/*
 * The bundled example that `scripts/demo.sh` records and decodes: a little
 * of everything a control-flow trace shows (a loop, recursion, an indirect
 * call through a table, a libc callback).  Its output is fixed, so two runs
 * step the same instructions when ASLR is off.
 */
#include <stdio.h>
#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int twice(int v)
{
	return 2 * v;
}

static int square(int v)
{
	return v * v;
}

int main(void)
{
	int (*const ops[])(int) = {twice, square};
	int v[8] = {7, 3, 5, 1, 8, 2, 6, 4};
	int i, acc = 0;

	qsort(v, 8, sizeof(v[0]), cmp_int);
	for (i = 0; i < 8; i++)
		acc += ops[i & 1](v[i]);
	printf("fib(10)=%lu acc=%d\n", fib(10), acc);
	return 0;
}
