// SPDX-License-Identifier: MIT
/* Test program for --inherit: forks a child that works and exits, waits
 * for it and prints how it ended, then execs itself; the new image works
 * and exits. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static int work(int n)
{
	int i, acc = 0;

	for (i = 0; i < n; i++)
		acc += (i & 3) ? i : -i;
	return acc;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1) {
		printf("again %d\n", work(30));
		return 0;
	}
	pid = fork();
	if (pid == 0)
		_exit(work(40) & 0x7f);
	waitpid(pid, &status, 0);
	/* how the child ended (a tracer's breakpoint left in it would show) */
	printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status)
					       : 128 + WTERMSIG(status));
	fflush(stdout);
	execl(argv[0], argv[0], "again", (char *)NULL);
	return 1;
}
