// SPDX-License-Identifier: MIT
/* Test program: two threads doing calls and branches of their own. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void *run(void *arg)
{
	return (void *)fib((int)(long)arg);
}

int main(void)
{
	pthread_t t;
	void *r1, *r2;

	pthread_create(&t, NULL, run, (void *)12L);
	r2 = run((void *)11L);
	pthread_join(t, &r1);
	printf("threads %ld\n", (long)r1 + (long)r2);
	return 0;
}
