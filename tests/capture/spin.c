// SPDX-License-Identifier: MIT
/* A test target for qpt record: burns CPU time in spin() for the given
 * number of milliseconds (default 300), so that timer samples land there. */
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

	while (now_ms() - t0 < ms)
		spin();
	return 0;
}
