// SPDX-License-Identifier: MIT
/*
 * Test program for call-stack LBRs: a recursion 60 calls deep (deeper
 * than a 32-entry LBR), then work two and three calls below main, three
 * times over.  Once the recursion unwinds, a call-stack LBR has lost the
 * frames of main and its callers for good.
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static int leaf(int x)
{
	int i, s = 0;

	for (i = 0; i < 40; i++)
		s += i ^ x;
	sink = s;
	return s;
}

__attribute__((noinline)) static int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

__attribute__((noinline)) static int rec(int n)
{
	if (!n)
		return mid(n);
	return rec(n - 1) + leaf(n);
}

int main(void)
{
	int r, i, acc = 0;

	for (r = 0; r < 3; r++) {
		acc += rec(60);
		for (i = 0; i < 30; i++)
			acc += mid(i);
	}
	printf("deep %d\n", acc);
	return 0;
}
