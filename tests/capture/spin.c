// SPDX-License-Identifier: MIT
/* A test target for qpt record: burns CPU time in spin() for the given
 * number of milliseconds (default 300), so that timer samples land there.
 * With a second argument, it first writes "ready" to that file: a test
 * waits for it rather than for a guessed time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long spin_sink;

__attribute__((noinline)) void spin(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		spin_sink += i * i;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, t0 = now_ms();
	FILE *f;

	if (argc > 2) {
		f = fopen(argv[2], "w");
		if (!f || fputs("ready\n", f) < 0 || fclose(f))
			return 1;
	}

	while (now_ms() - t0 < ms)
		spin();
	return 0;
}
