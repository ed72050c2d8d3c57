// SPDX-License-Identifier: MIT
/*
 * Test program: runs until a signal ends it.  Prints "ready PID" once it
 * runs (the tests wait for that line), then loops: computing ("spin"),
 * with SIGINT, SIGTERM and SIGHUP ignored ("ignore"), blocked in pause()
 * ("block"), or catching them and exiting 3 from the handler's flag
 * ("handle"); or runs a counted loop of 2^62 trips, which the breakpoint
 * engine runs natively ("count"), or clears 64 MiB over and over, each a
 * long stretch of code with no branch ("clear").
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static volatile unsigned long sink;

/* Divisions make a trip slow, so that a slice of the loop run natively
 * makes little trace for the tests to decode. */
__attribute__((noinline)) static void count(void)
{
	unsigned long i;

	for (i = 0; i < 1UL << 62; i++)
		sink += (sink + i) / (i | 3) + (sink ^ i) / (i | 5) +
			(sink - i) / (i | 7) + (sink | i) / (i | 9);
}

__attribute__((noinline)) static void clear(void)
{
	size_t n = 64 << 20;
	char *p = malloc(n);
	unsigned int i;

	for (i = 0; p; i++) {
		/* one rep stosb */
		__asm__ volatile("rep stosb"
				 : "+D"(p), "+c"(n)
				 : "a"(i)
				 : "memory");
		p -= 64 << 20;
		n = 64 << 20;
	}
}

static void on_sig(int sig)
{
	caught = sig;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	unsigned long i = 0;

	if (!strcmp(mode, "ignore")) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
	} else if (!strcmp(mode, "handle")) {
		signal(SIGINT, on_sig);
		signal(SIGTERM, on_sig);
		signal(SIGHUP, on_sig);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!strcmp(mode, "count"))
		count();
	if (!strcmp(mode, "clear"))
		clear();
	for (;;) {
		if (!strcmp(mode, "block"))
			pause();
		sink += i++ * 7;
		if (caught) {
			printf("caught %d\n", (int)caught);
			return 3;
		}
	}
}
