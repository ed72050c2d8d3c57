// SPDX-License-Identifier: MIT
/*
 * capture/watch.c on real children (forked here, seized while held on a
 * pipe): which signals are crashes (default action, in the set; not a
 * handled one, not an ignored one sent by a process, not one outside the
 * set), the crashing thread's tid and registers, the child's own wait
 * status through the watch, non-fatal signals delivered, threads
 * followed, and a child let go (no tracer left).  Waits are for SIGCHLD
 * (a stop or an end), never timed naps.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/watch.h"

struct seen {
	int n, signo, code;
	pid_t tid;
	uint64_t ip;
	size_t insn_len;
};

static int on_crash(void *ctx, pid_t pid, pid_t tid, const siginfo_t *si,
		    const struct user_regs_struct *regs, const uint8_t *insn,
		    size_t insn_len)
{
	struct seen *s = ctx;

	s->n++;
	s->signo = si->si_signo;
	s->code = si->si_code;
	s->tid = tid;
	s->ip = regs->rip;
	s->insn_len = insn_len;
	return 0;
}

static volatile int *null_ptr;
static volatile int usr1;

/* A NULL dereference the sanitizers let through to the kernel. */
__attribute__((no_sanitize("address", "undefined"))) static int fault(void)
{
	return *null_ptr;
}

static void *deref(void *arg)
{
	return (void *)(long)fault();
}

static void on_segv(int sig)
{
	_exit(7);
}

static void on_usr1(int sig)
{
	usr1++;
}

/* What each child does once released. */
enum act { SEGV, HANDLED, IGNORED, ABORT, THREAD, USR1, WAIT };

static void child_main(enum act a, int go)
{
	pthread_t t;
	char c;

	/* the default actions (a sanitizer's runtime catches some) */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGABRT, SIG_DFL);
	if (read(go, &c, 1) != 1)
		_exit(100);
	switch (a) {
	case SEGV:
		usr1 = fault();
		break;
	case HANDLED:
		signal(SIGSEGV, on_segv);
		usr1 = fault();
		break;
	case IGNORED:
		signal(SIGSEGV, SIG_IGN);
		raise(SIGSEGV);
		_exit(0);
	case ABORT:
		abort();
	case THREAD:
		pthread_create(&t, NULL, deref, NULL);
		pthread_join(t, NULL);
		_exit(0);
	case USR1:
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
		_exit(usr1);
	case WAIT:
		if (read(go, &c, 1) != 1)
			_exit(100);
		_exit(3);
	}
}

/* SIGCHLD blocked: waited for with sigtimedwait. */
static void wait_chld(void)
{
	struct timespec ts = {5, 0};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigtimedwait(&set, NULL, &ts);
}

/* Fork a child doing @a, watched for @mask; *@go its release pipe. */
static pid_t start(enum act a, uint64_t mask, struct seen *s,
		   struct watch **w, int *go)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[1]);
		child_main(a, p[0]);
		_exit(101);
	}
	close(p[0]);
	memset(s, 0, sizeof(*s));
	assert_int_equal(watch_new(pid, mask, on_crash, s, w), 0);
	assert_int_equal(watch_seize(*w, pid), 0);
	assert_int_equal(write(p[1], "g", 1), 1);
	*go = p[1];
	return pid;
}

/* Run to the child's end through the watch: its wait status. */
static int finish(struct watch *w, int go)
{
	int ret, status = -1;

	while ((ret = watch_poll(w, &status)) == 0)
		wait_chld();
	assert_int_equal(ret, 1);
	close(go);
	watch_free(w);
	return status;
}

/*
 * Each child once: its wait status through the watch (a signal it died
 * of, or its exit code) and the crash the watch saw (signo 0: none; its
 * si_code; the thread: the leader, or another).
 */
static void test_table(void **state)
{
	static const struct {
		enum act act;
		uint64_t mask;
		int termsig, exit_code; /* termsig 0: exited with exit_code */
		int signo, code;	/* the crash seen; signo 0: none */
		bool leader;
	} rows[] = {
	    {SEGV, 1ULL << (SIGSEGV - 1) | 1ULL << (SIGABRT - 1), SIGSEGV, 0,
	     SIGSEGV, SEGV_MAPERR, true},
	    {ABORT, 1ULL << (SIGABRT - 1), SIGABRT, 0, SIGABRT, SI_TKILL, true},
	    {THREAD, 1ULL << (SIGSEGV - 1), SIGSEGV, 0, SIGSEGV, SEGV_MAPERR,
	     false},
	    /* not crashes: a handled SIGSEGV, an ignored one a process sent,
	     * a signal outside the set */
	    {HANDLED, 1ULL << (SIGSEGV - 1), 0, 7, 0, 0, true},
	    {IGNORED, 1ULL << (SIGSEGV - 1), 0, 0, 0, 0, true},
	    {ABORT, 1ULL << (SIGSEGV - 1), SIGABRT, 0, 0, 0, true},
	    /* a handled non-fatal signal is delivered: its handler runs once */
	    {USR1, 1ULL << (SIGSEGV - 1) | 1ULL << (SIGUSR1 - 1), 0, 1, 0, 0,
	     true},
	};
	struct watch *w;
	struct seen s;
	size_t i;
	int go, st;
	pid_t pid;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		pid = start(rows[i].act, rows[i].mask, &s, &w, &go);
		st = finish(w, go);
		if (rows[i].termsig) {
			assert_true(WIFSIGNALED(st));
			assert_int_equal(WTERMSIG(st), rows[i].termsig);
		} else {
			assert_true(WIFEXITED(st));
			assert_int_equal(WEXITSTATUS(st), rows[i].exit_code);
		}
		assert_int_equal(s.n, rows[i].signo ? 1 : 0);
		if (!rows[i].signo)
			continue;
		assert_int_equal(s.signo, rows[i].signo);
		assert_int_equal(s.code, rows[i].code);
		assert_true(s.tid > 0 && (s.tid == pid) == rows[i].leader);
		assert_true(s.insn_len > 0);
	}
}

/* TracerPid of @pid from /proc. */
static int tracer_of(pid_t pid)
{
	char name[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			tracer = atoi(line + 10);
	fclose(f);
	return tracer;
}

static void test_detach(void **state)
{
	struct watch *w;
	struct seen s;
	int go, st;
	pid_t pid = start(WAIT, 1ULL << (SIGSEGV - 1), &s, &w, &go);

	assert_int_equal(tracer_of(pid), getpid());
	assert_int_equal(watch_poll(w, &st), 0);
	watch_detach(w);
	assert_int_equal(watch_threads(w), 0);
	assert_int_equal(tracer_of(pid), 0);
	watch_free(w);
	assert_int_equal(write(go, "g", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	close(go);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_detach),
	};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
