// SPDX-License-Identifier: MIT
/*
 * Test program: the program's own SIGTRAPs, which a tracer that steps or
 * plants breakpoints must tell from its own traps and deliver: int3 in a
 * loop, int $3, raise(SIGTRAP) (tgkill) and kill(getpid(), SIGTRAP), each
 * counted by the handler.  Prints the count; exits 0 when all eight came.
 * The handler runs with SIGTRAP not blocked (SA_NODEFER): a trap in a
 * handler that blocks it (a tracer's step or breakpoint) makes the kernel
 * reset the handler to SIG_DFL (force_sig_fault), and the next int3 would
 * kill the program under any ptrace stepper.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

int main(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGTRAP, &sa, NULL);
	for (i = 0; i < 5; i++)
		__asm__ volatile("int3");
	__asm__ volatile("int $3");
	raise(SIGTRAP);
	kill(getpid(), SIGTRAP);
	printf("%d traps\n", traps);
	return traps == 8 ? 0 : 1;
}
