// SPDX-License-Identifier: MIT
/*
 * Test program: a thread (or, built with CLONE_MODE 1 or 2, a forked or
 * vforked child) made by a raw clone system call, so that its first
 * instruction is known: qpt_clone_child, right after the syscall (where
 * the new task starts).  Prints that address.  The parent waits for the
 * child's exit (a thread's through CLONE_CHILD_CLEARTID and a futex, a
 * child process's with wait4), the child first sleeping so that the
 * parent always waits (same path every run).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_MODE
#define CLONE_MODE 0 /* 0: a thread, 1: fork, 2: vfork */
#endif

static char stack[65536] __attribute__((aligned(16)));
static volatile int child_tid = 1;

extern const char qpt_clone_child[];

__attribute__((noinline)) static long start_task(void)
{
	long flags = CLONE_MODE == 1 ? SIGCHLD
		     : CLONE_MODE == 2
			 ? CLONE_VM | CLONE_VFORK | SIGCHLD
			 : CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			       CLONE_THREAD | CLONE_SYSVSEM |
			       CLONE_CHILD_CLEARTID;
	char *sp = CLONE_MODE ? NULL : stack + sizeof(stack);
	register long r10 __asm__("r10") = (long)&child_tid;
	register long r8 __asm__("r8") = 0;
	long ret;

	/* child: nanosleep(100 ms), then exit(0), below the stack pointer
	 * (its own stack, a copy, or, vforked, the parent's while it waits) */
	__asm__ volatile(
	    "syscall\n"
	    ".globl qpt_clone_child\n"
	    "qpt_clone_child:\n"
	    "	test %%rax, %%rax\n"
	    "	jnz 1f\n"
	    "	sub $16, %%rsp\n"
	    "	movq $0, (%%rsp)\n"
	    "	movq $100000000, 8(%%rsp)\n"
	    "	mov %%rsp, %%rdi\n"
	    "	xor %%esi, %%esi\n"
	    "	mov %[nanosleep], %%eax\n"
	    "	syscall\n"
	    "	xor %%edi, %%edi\n"
	    "	mov %[exit], %%eax\n"
	    "	syscall\n"
	    "1:\n"
	    : "=a"(ret)
	    : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(0L), "r"(r10),
	      "r"(r8), [nanosleep] "i"(SYS_nanosleep), [exit] "i"(SYS_exit)
	    : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	long tid = start_task();
	int v;

	if (tid <= 0)
		return 1;
	if (CLONE_MODE)
		syscall(SYS_wait4, tid, NULL, 0, NULL);
	while (!CLONE_MODE && (v = child_tid) != 0)
		syscall(SYS_futex, &child_tid, FUTEX_WAIT, v, NULL, NULL, 0);
	printf("child %lx\n", (unsigned long)qpt_clone_child);
	return 0;
}
