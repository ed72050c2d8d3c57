// SPDX-License-Identifier: MIT
/*
 * The bare breakpoint loop of bench/emu_speed.sh: a child runs int3 in a
 * loop; the tracer waits for each stop, reads the registers and
 * continues.  Prints the stops per second.
 *   bp_loop [STOPS [CPU]]
 * With CPU, the tracer alone is bound to that CPU (after the fork).
 *   bp_loop --block
 * Whether PTRACE_SINGLEBLOCK is honoured here (the trap comes after the
 * next taken branch) or works as a single step (as in VMs that do not
 * pass the branch trap flag on).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Straight-line code, a taken jump, its target: the probe's path. */
extern const char blk_start[], blk_target[];
__asm__(".text\n"
	"blk_code:\n\t"
	"int3\n"
	".globl blk_start\n"
	"blk_start:\n\t"
	"nop\n\tnop\n\tnop\n\t"
	"jmp blk_target\n\t"
	"nop\n\tnop\n"
	".globl blk_target\n"
	"blk_target:\n\t"
	"nop\n\t"
	"int3\n\t"
	"ret\n");
extern void blk_code(void);

static int probe_block(void)
{
	struct user_regs_struct regs;
	pid_t child;
	int status;

	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		blk_code();
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SINGLEBLOCK, child, NULL, NULL) < 0 ||
	    waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_GETREGS, child, NULL, &regs) < 0) {
		printf("PTRACE_SINGLEBLOCK: refused here\n");
	} else if (regs.rip == (unsigned long long)(uintptr_t)blk_target) {
		printf("PTRACE_SINGLEBLOCK: honoured (a trap after each "
		       "taken branch)\n");
	} else {
		printf("PTRACE_SINGLEBLOCK: not honoured (the trap came at "
		       "%+lld, not at the branch's target %+lld: a single "
		       "step)\n",
		       (long long)(regs.rip - (uintptr_t)blk_start),
		       (long long)(blk_target - blk_start));
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long stops, i;
	struct user_regs_struct regs;
	double t0, t1;
	pid_t child;
	int status;

	if (argc > 1 && !strcmp(argv[1], "--block"))
		return probe_block();
	stops = argc > 1 ? atol(argv[1]) : 100000;
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
		    waitpid(child, &status, 0) != child ||
		    !WIFSTOPPED(status) ||
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
