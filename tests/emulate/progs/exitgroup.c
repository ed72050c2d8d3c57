// SPDX-License-Identifier: MIT
/*
 * Test program: main ends the process (exit_group) while a second thread
 * sits in a blocking syscall, so that thread ends at its exit stop without
 * returning.  The thread says on a pipe when it is a few instructions from
 * pause(); main waits for that, then gives it a second to get there.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ready[2];

static void *run(void *arg)
{
	volatile long x = 0;
	int i;

	for (i = 0; i < 100; i++)
		x += i;
	if (write(ready[1], "r", 1) != 1)
		exit(2);
	pause();
	return NULL;
}

int main(void)
{
	struct timespec ts = {1, 0};
	pthread_t t;
	char c;

	if (pipe(ready) || pthread_create(&t, NULL, run, NULL))
		return 2;
	if (read(ready[0], &c, 1) != 1)
		return 2;
	nanosleep(&ts, NULL);
	exit(0);
}
