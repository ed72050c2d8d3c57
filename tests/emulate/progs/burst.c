// SPDX-License-Identifier: MIT
/*
 * Test program for trace bursts and losses: a counted loop of TRIPS trips
 * (which the breakpoint engine runs natively and retires at once, a burst
 * of trace far larger than a small AUX area), then WORK rounds of branchy
 * code (a qsort callback, recursion, a binary search) whose flow a decode
 * after a loss must pick up again.
 *   burst [TRIPS [WORK]]
 */
#include <stdio.h>
#include <stdlib.h>

#define N 600

static volatile unsigned long sink;
static unsigned int seed = 4321;

static unsigned int next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

__attribute__((noinline)) static void spin(unsigned long trips)
{
	unsigned long i;

	for (i = 0; i < trips; i++)
		sink += i ^ (sink >> 3);
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static unsigned int fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int find(const int *v, int n, int key)
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
	unsigned long trips = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 2, r, i, hits = 0;
	static int v[N];

	spin(trips);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < N; i++)
			v[i] = (int)(next_rand() % 100000);
		qsort(v, N, sizeof(v[0]), cmp);
		for (i = 0; i < N; i++)
			hits += find(v, N, (int)(next_rand() % 100000)) >= 0;
		sink += fib(14);
	}
	printf("%lu %d\n", sink, hits);
	return 0;
}
