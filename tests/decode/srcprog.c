/* A small program with debug information for the source line test: a
 * loop, a function inlined into it (its lines are the inlined
 * function's), a call into libc. */
#include <stdio.h>

static int sq(int x)
{
	return x * x;
}

__attribute__((noinline)) int sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += sq(i);
	return s;
}

int main(void)
{
	printf("%d\n", sum(10));
	return 0;
}
