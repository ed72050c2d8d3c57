/* SPDX-License-Identifier: MIT */
/*
 * Two pages for the test programs whose code faults and goes on: the
 * second is taken away (PROT_NONE) before a read, and the SIGSEGV handler
 * gives it back, so that the faulting instruction runs again and reads it.
 * A fault anywhere else ends the program with status 3.
 */
#ifndef QPT_TESTS_EMU_GUARD_H
#define QPT_TESTS_EMU_GUARD_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint8_t *guarded;
static long guard_page;

static void guard_on_segv(int sig, siginfo_t *si, void *uc)
{
	uint8_t *a = si->si_addr;

	(void)sig;
	(void)uc;
	if (a < guarded + guard_page || a >= guarded + 2 * guard_page)
		_exit(3);
	mprotect(guarded + guard_page, (size_t)guard_page,
		 PROT_READ | PROT_WRITE);
}

/* The pages mapped (in guarded) and the handler set: 0, or -1. */
static int guard_init(void)
{
	struct sigaction sa;

	guard_page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	guarded = mmap(NULL, 2 * (size_t)guard_page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return guarded == MAP_FAILED ? -1 : 0;
}

/* The second page taken away: the next read of it faults. */
static void guard_arm(void)
{
	mprotect(guarded + guard_page, (size_t)guard_page, PROT_NONE);
}

#endif
