// SPDX-License-Identifier: MIT
/*
 * Test program for exec in children: works, runs PROG (a path) and waits
 * for it, works again.  MODE says how PROG is run:
 *   system  system(PROG) (a shell, which runs PROG)
 *   spawn   posix_spawn(PROG)
 *   fork    fork(), and the child execs PROG
 *   vfork   vfork(), and the child execs PROG
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
		fprintf(stderr, "usage: spawn system|spawn|fork|vfork PROG\n");
		return 2;
	}
	a = work(50);
	status = run(argv[1], argv[2]);
	printf("%d %d %d\n", a, status, work(20));
	return status == 0 ? 0 : 1;
}
