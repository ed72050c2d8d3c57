// SPDX-License-Identifier: MIT
/*
 * Test program: main ends the process (exit_group) while a second thread
 * sits in a blocking syscall, so that thread ends at its exit stop without
 * returning.  The thread reaches pause() long before main's sleep ends.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *run(void *arg)
{
	volatile long x = 0;
	int i;

	for (i = 0; i < 100; i++)
		x += i;
	pause();
	return NULL;
}

int main(void)
{
	struct timespec ts = {1, 0};
	pthread_t t;

	pthread_create(&t, NULL, run, NULL);
	nanosleep(&ts, NULL);
	exit(0);
}
