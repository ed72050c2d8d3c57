// SPDX-License-Identifier: MIT
/*
 * Test program for exec in children: works, runs PROG (a path) and waits
 * for it, works again.  MODE says how PROG is run:
 *   system  system(PROG) (a shell, which runs PROG)
 *   spawn   posix_spawn(PROG)
 *   fork    fork(), and the child execs PROG
 *   vfork   vfork(), and the child execs PROG
 *   thread  the first thread exits, then a second one execs PROG (the
 *           process goes on as PROG under the first thread's tid)
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) static int work(int n)
{
	int i, acc = 0;

	for (i = 0; i < n; i++)
		acc += (i & 3) ? i : -i;
	return acc;
}

/*
 * "thread": the leader leaves (a raw exit of its thread alone) and a second
 * thread execs once it is gone.  Both paths are the same whatever the
 * scheduling: one FUTEX_WAIT on the word the kernel clears and wakes at the
 * leader's exit (set_tid_address), whether or not it has already changed,
 * and nothing that looks at what it returned.
 */
static volatile int leader_tid; /* cleared by the kernel */
static int leader;

/* FUTEX_WAIT without libc's wrapper, which branches on the result (0 when
 * woken, -EAGAIN when the word had already changed) */
static void futex_wait(volatile int *word, int val)
{
	register long r10 __asm__("r10") = 0;
	long ret = SYS_futex;

	__asm__ volatile("syscall"
			 : "+a"(ret)
			 : "D"(word), "S"((long)FUTEX_WAIT), "d"((long)val),
			   "r"(r10)
			 : "rcx", "r11", "memory");
}

static void *exec_thread(void *prog)
{
	char *args[] = {prog, NULL};

	futex_wait(&leader_tid, leader);
	execv(prog, args);
	_exit(127);
}

static int exec_from_thread(char *prog)
{
	pthread_t th;

	leader = leader_tid = (int)syscall(SYS_gettid);
	syscall(SYS_set_tid_address, &leader_tid);
	if (pthread_create(&th, NULL, exec_thread, prog))
		return -1;
	syscall(SYS_exit, 0);
	return -1;
}

static int run(const char *mode, char *prog)
{
	char *args[] = {prog, NULL};
	int status = -1;
	pid_t pid = -1;

	if (!strcmp(mode, "system"))
		return system(prog);
	if (!strcmp(mode, "spawn")) {
		if (posix_spawn(&pid, prog, NULL, NULL, args, environ))
			return -1;
	} else if (!strcmp(mode, "fork")) {
		pid = fork();
		if (pid == 0) {
			execv(prog, args);
			_exit(127);
		}
	} else if (!strcmp(mode, "thread")) {
		return exec_from_thread(prog);
	} else if (!strcmp(mode, "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execv(prog, args);
			_exit(127);
		}
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(int argc, char **argv)
{
	int a, status;

	if (argc < 3) {
		fprintf(stderr, "usage: spawn system|spawn|fork|vfork|thread PROG\n");
		return 2;
	}
	a = work(50);
	status = run(argv[1], argv[2]);
	printf("%d %d %d\n", a, status, work(20));
	return status == 0 ? 0 : 1;
}
