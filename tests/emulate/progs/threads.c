// SPDX-License-Identifier: MIT
/*
 * Test program: two threads doing calls and branches of their own.  Each
 * thread's instruction sequence must not depend on scheduling (the ground
 * truth and the recording are different runs): the new thread first sleeps
 * in one syscall long enough for main to block in pthread_join's futex
 * wait, so the join never takes its "already exited" path.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void *run(void *arg)
{
	struct timespec ts = {1, 0};

	nanosleep(&ts, NULL);
	return (void *)fib((int)(long)arg);
}

int main(void)
{
	long r2 = fib(11);
	pthread_t t;
	void *r1;

	pthread_create(&t, NULL, run, (void *)12L);
	pthread_join(t, &r1);
	printf("threads %ld\n", (long)r1 + r2);
	return 0;
}
