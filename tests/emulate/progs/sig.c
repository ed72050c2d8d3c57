// SPDX-License-Identifier: MIT
/* Test program: a signal handler entered synchronously (raise) and through
 * a fault (SIGFPE by integer division by zero), then leaving by sigreturn
 * and by siglongjmp. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile int hits;
static sigjmp_buf env;

static void on_usr1(int sig)
{
	hits += sig;
}

static void on_fpe(int sig)
{
	hits++;
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	volatile int zero = argc - 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_fpe;
	sigaction(SIGFPE, &sa, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);
	if (!sigsetjmp(env, 1))
		hits += 100 / zero;
	printf("sig %d\n", hits);
	return 0;
}
