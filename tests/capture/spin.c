// SPDX-License-Identifier: MIT
/* A test target for qpt record: burns CPU time in spin() for the given
 * number of milliseconds (default 300), so that timer samples land there;
 * "cN" counts N milliseconds of its own CPU time instead of the clock's
 * (as many task-clock samples however busy the machine is).
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

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : "300";
	double ms, t0;
	FILE *f;

	if (*arg == 'c') {
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
		arg++;
	}
	ms = atof(arg);
	t0 = now_ms();

	if (argc > 2) {
		f = fopen(argv[2], "w");
		if (!f || fputs("ready\n", f) < 0 || fclose(f))
			return 1;
	}

	while (now_ms() - t0 < ms)
		spin();
	return 0;
}
