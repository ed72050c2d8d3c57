// SPDX-License-Identifier: MIT
/*
 * The bare breakpoint loop of bench/emu_speed.sh: a child runs int3 in a
 * loop; the tracer waits for each stop, reads the registers and
 * continues.  Prints the stops per second.
 *   bp_loop [STOPS [CPU]]
 * With CPU, the tracer alone is bound to that CPU (after the fork).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long stops = argc > 1 ? atol(argv[1]) : 100000, i;
	struct user_regs_struct regs;
	double t0, t1;
	pid_t child;
	int status;

	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		for (;;)
			__asm__ volatile("int3");
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		return 1;
	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)PTRACE_O_EXITKILL);
	t0 = now();
	for (i = 0; i < stops; i++) {
		if (ptrace(PTRACE_CONT, child, NULL, NULL) < 0 ||
		    waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
		    ptrace(PTRACE_GETREGS, child, NULL, &regs) < 0)
			return 1;
	}
	t1 = now();
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	printf("%ld stops in %.3f s: %.0f stops/s\n", stops, t1 - t0,
	       (double)stops / (t1 - t0));
	return 0;
}
