// SPDX-License-Identifier: MIT
/*
 * Test program for qpt crash: main -> parse -> lookup, and lookup dies.
 *   crashy [segv [N]] NULL dereference in lookup (the third call of the
 *                    last parse; N parses without a crash before)
 *   crashy abort     abort() in lookup (SIGABRT through raise)
 *   crashy fpe       integer divide by zero in lookup
 *   crashy recurse   unbounded recursion in lookup: the stack overflows
 *                    (RLIMIT_STACK lowered to 96 KiB first)
 *   crashy thread    the NULL dereference in a second thread, while the
 *                    first waits for it
 *   crashy handled   a SIGSEGV handler that re-raises the signal
 *   crashy survive   a SIGSEGV handler that jumps away: no crash
 *   crashy ok        no crash
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

struct entry {
	char key;
	int *value;
};

static int one = 1, two = 2;
static struct entry table[] = {{'a', &one}, {'b', &two}, {'c', NULL}};
static const char *mode = "segv";
static volatile int zero;

__attribute__((noinline)) int lookup(char key, int depth)
{
	volatile char pad[64];
	size_t i;

	pad[0] = key;
	if (!strcmp(mode, "recurse"))
		return lookup(key, depth + 1) + pad[0];
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].key != key)
			continue;
		if (table[i].value)
			return *table[i].value;
		if (!strcmp(mode, "abort"))
			abort();
		if (!strcmp(mode, "fpe"))
			return depth / zero;
		return *table[i].value; /* NULL */
	}
	return pad[0];
}

__attribute__((noinline)) int parse(const char *s)
{
	int sum = 0;

	for (; *s; s++)
		sum += lookup(*s, 0);
	return sum;
}

static void *thread_main(void *arg)
{
	printf("%d\n", parse(arg));
	return NULL;
}

static void reraise(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static sigjmp_buf back;

static void escape(int sig)
{
	siglongjmp(back, sig);
}

int main(int argc, char **argv)
{
	struct rlimit rl = {96 << 10, 96 << 10};
	pthread_t th;
	int n, sum = 0;

	if (argc > 1)
		mode = argv[1];
	if (!strcmp(mode, "recurse"))
		setrlimit(RLIMIT_STACK, &rl);
	if (!strcmp(mode, "handled"))
		signal(SIGSEGV, reraise);
	if (!strcmp(mode, "survive")) {
		signal(SIGSEGV, escape);
		if (sigsetjmp(back, 1))
			return 0;
	}
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&th, NULL, thread_main, "abc"))
			return 2;
		pthread_join(th, NULL);
		return 0;
	}
	for (n = argc > 2 ? atoi(argv[2]) : 0; n > 0; n--)
		sum += parse("ab");
	printf("%d\n", sum + parse(strcmp(mode, "ok") ? "abc" : "ab"));
	return 0;
}
