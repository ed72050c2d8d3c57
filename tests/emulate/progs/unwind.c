// SPDX-License-Identifier: MIT
/*
 * Test program for qpt crash's stack where control leaves frames without
 * returning, against gdb (unwind.sh).  Each mode dies of a SIGSEGV (a
 * NULL store in crash_here) on a known call path:
 *   longjmp      f1 -> f2 longjmps back to main; main -> g1 -> g2 -> crash
 *   siglongjmp   f1 -> f2 raises SIGUSR1, whose handler siglongjmps back
 *                to main; then main -> g1 -> g2 -> crash
 *   in_handler   f1 raises SIGUSR1; the handler -> h1 -> crash
 *   after_handler  f1 raises SIGUSR1, the handler returns; g1 -> g2 -> crash
 *   skip         f1 -> f2 runs ud2; the SIGILL handler moves the ip past it
 *                (sigreturn to another place); then g1 -> g2 -> crash
 *   coroutine    main -> run_coro swaps into a ucontext coroutine that
 *                yields back once; the second time it -> co_work -> crash
 *   coroutine_main  the coroutine yields and ends; main -> g1 -> g2 -> crash
 *   recurse      rec 40 deep then back; main -> g1 -> g2 -> crash
 *   recurse_crash  rec 12 deep -> crash at the bottom
 *   thread       a second thread: t_main -> g1 -> g2 -> crash
 *   tailcall     a -> b, which tail-calls c (at -O2), c -> crash
 *   smash        s1 -> smash, which overwrites its own return address and
 *                saved registers, -> crash (gdb cannot unwind past smash)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline, noclone))

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile int sink;
static int *volatile nowhere;

NOINLINE void crash_here(int v)
{
	*nowhere = v;
	sink++;
}

NOINLINE void g2(int v)
{
	crash_here(v + 1);
	sink++;
}

NOINLINE void g1(int v)
{
	g2(v + 1);
	sink++;
}

NOINLINE void f2(int how)
{
	sink++;
	if (how == 1)
		longjmp(jb, 1);
	if (how == 2)
		raise(SIGUSR1);
	if (how == 3)
		__asm__ volatile("ud2");
	sink++;
}

NOINLINE void f1(int how)
{
	f2(how);
	sink++;
}

NOINLINE void h1(int v)
{
	crash_here(v);
	sink++;
}

static void on_usr1_jump(int sig)
{
	siglongjmp(sjb, sig);
}

static void on_usr1_crash(int sig)
{
	h1(sig);
	sink++;
}

static void on_usr1_return(int sig)
{
	sink += sig;
}

static void on_ill(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] += 2; /* past the ud2 */
}

static ucontext_t main_uc, co_uc;
static char co_stack[64 * 1024];
static int co_mode;

NOINLINE void co_work(int v)
{
	crash_here(v);
	sink++;
}

NOINLINE void co_yield (void)
{
	swapcontext(&co_uc, &main_uc);
	sink++;
}

static void co_main(void)
{
	co_yield ();
	if (co_mode)
		co_work(7);
	sink++;
}

NOINLINE void run_coro(void)
{
	swapcontext(&main_uc, &co_uc);
	sink++;
}

NOINLINE int rec(int n)
{
	if (n == 0) {
		if (co_mode)
			crash_here(n);
		return 1;
	}
	return rec(n - 1) + 1;
}

NOINLINE void c(int v)
{
	crash_here(v);
	sink++;
}

NOINLINE void b(int v)
{
	sink++;
	c(v + 1); /* a tail call at -O2 */
}

NOINLINE void a(int v)
{
	b(v + 1);
	sink++;
}

NOINLINE void smash(int v)
{
	volatile long *p = (volatile long *)__builtin_frame_address(0);
	int i;

	/* the saved frame pointer, the return address and above */
	for (i = 0; i < 8; i++)
		p[i] = 0x4141414141414141L;
	crash_here(v);
}

NOINLINE void s1(int v)
{
	smash(v);
	sink++;
}

static void *t_main(void *arg)
{
	(void)arg;
	g1(3);
	return NULL;
}

static void on_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "longjmp";
	struct sigaction sa;
	pthread_t t;

	if (!strcmp(mode, "longjmp")) {
		if (!setjmp(jb))
			f1(1);
	} else if (!strcmp(mode, "siglongjmp")) {
		on_signal(SIGUSR1, on_usr1_jump);
		if (!sigsetjmp(sjb, 1))
			f1(2);
	} else if (!strcmp(mode, "in_handler")) {
		on_signal(SIGUSR1, on_usr1_crash);
		f1(2);
	} else if (!strcmp(mode, "after_handler")) {
		on_signal(SIGUSR1, on_usr1_return);
		f1(2);
	} else if (!strcmp(mode, "skip")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_ill;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGILL, &sa, NULL);
		f1(3);
	} else if (!strncmp(mode, "coroutine", 9)) {
		co_mode = !strcmp(mode, "coroutine");
		getcontext(&co_uc);
		co_uc.uc_stack.ss_sp = co_stack;
		co_uc.uc_stack.ss_size = sizeof(co_stack);
		co_uc.uc_link = &main_uc;
		makecontext(&co_uc, co_main, 0);
		run_coro();
		run_coro();
	} else if (!strcmp(mode, "recurse")) {
		sink += rec(40);
	} else if (!strcmp(mode, "recurse_crash")) {
		co_mode = 1;
		sink += rec(12);
	} else if (!strcmp(mode, "thread")) {
		pthread_create(&t, NULL, t_main, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "tailcall")) {
		a(1);
	} else if (!strcmp(mode, "smash")) {
		s1(1);
	}
	g1(argc);
	return 0;
}
