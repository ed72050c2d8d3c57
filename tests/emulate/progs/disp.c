// SPDX-License-Identifier: MIT
/* Test program: prints how it finds SIGINT and SIGPIPE (default, ignored
 * or caught) and whether any signal is blocked, as a command started by a
 * shell finds them: "SIGINT default SIGPIPE default blocked none". */
#include <signal.h>
#include <stdio.h>

static const char *disposition(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa))
		return "?";
	if (sa.sa_handler == SIG_DFL)
		return "default";
	return sa.sa_handler == SIG_IGN ? "ignored" : "caught";
}

int main(void)
{
	sigset_t set;
	int sig, blocked = 0;

	sigprocmask(SIG_BLOCK, NULL, &set);
	for (sig = 1; sig < NSIG; sig++)
		blocked += sigismember(&set, sig) == 1;
	printf("SIGINT %s SIGPIPE %s blocked %s\n", disposition(SIGINT),
	       disposition(SIGPIPE), blocked ? "some" : "none");
	return 0;
}
