// SPDX-License-Identifier: MIT
/*
 * A branchy workload for bench/emu_speed.sh: qsort with a comparison
 * callback, a recursive Fibonacci, a binary search; a fixed-seed
 * generator makes every run execute the same instructions.
 *   branchy [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2000

static uint32_t seed = 12345;

static uint32_t next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int find(const int *v, int n, int key)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid] == key)
			return mid;
		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static int v[N];
	int rounds = argc > 1 ? atoi(argv[1]) : 4, r, i;
	long found = 0;
	unsigned f = 0;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < N; i++)
			v[i] = (int)(next_rand() % 100000);
		qsort(v, N, sizeof(v[0]), cmp);
		for (i = 0; i < N; i++)
			found += find(v, N, (int)(next_rand() % 100000)) >= 0;
		f += fib(16);
	}
	printf("%ld %u\n", found, f);
	return 0;
}
