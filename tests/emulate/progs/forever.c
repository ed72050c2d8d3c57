// SPDX-License-Identifier: MIT
/*
 * Test program: runs until a signal ends it.  Prints "ready PID" once it
 * runs (the tests wait for that line), then loops: computing ("spin"),
 * with SIGINT, SIGTERM and SIGHUP ignored ("ignore"), blocked in pause()
 * ("block"), or catching them and exiting 3 from the handler's flag
 * ("handle").
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static volatile unsigned long sink;

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
