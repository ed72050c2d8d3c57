// SPDX-License-Identifier: MIT
/*
 * The PMU source's ptrace watch for fatal signals (see watch.h): seize,
 * the stops passed on, the signal-delivery stop of a fatal signal told
 * to the caller first.  A task's signal actions are read from /proc by
 * the reader both sources share (task.h), by its rule.
 */
#include "capture/watch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/task.h"

struct watch {
	pid_t pid;
	uint64_t signals;
	watch_crash_fn crash;
	void *ctx;
	pid_t *tids; /* traced threads */
	size_t nr, cap;
	bool ended; /* the leader's end was reaped */
	int status;
	int err; /* the first callback error not yet returned */
};

int watch_new(pid_t pid, uint64_t signals, watch_crash_fn crash, void *ctx,
	      struct watch **out)
{
	struct watch *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->pid = pid;
	w->signals = signals;
	w->crash = crash;
	w->ctx = ctx;
	w->status = -1;
	*out = w;
	return 0;
}

static bool has_tid(const struct watch *w, pid_t tid)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (w->tids[i] == tid)
			return true;
	return false;
}

static int add_tid(struct watch *w, pid_t tid)
{
	pid_t *n;

	if (has_tid(w, tid))
		return 0;
	if (w->nr == w->cap) {
		n = realloc(w->tids, (w->cap ? 2 * w->cap : 8) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->tids = n;
		w->cap = w->cap ? 2 * w->cap : 8;
	}
	w->tids[w->nr++] = tid;
	return 0;
}

/* Thread @i is gone (@status: how, or -1 when unknown). */
static void drop_tid(struct watch *w, size_t i, int status)
{
	if (w->tids[i] == w->pid) {
		w->ended = true;
		w->status = status;
	}
	w->tids[i] = w->tids[--w->nr];
}

int watch_seize(struct watch *w, pid_t tid)
{
	int err;

	if (has_tid(w, tid))
		return 0;
	err = add_tid(w, tid);
	if (err)
		return err;
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACECLONE) <
	    0) {
		err = -errno;
		w->nr--;
		return err;
	}
	return 0;
}

/* Seize the threads in @dir not traced yet: how many, or -errno. */
static int seize_listed(struct watch *w, const char *dir)
{
	struct dirent *de;
	int n = 0, err = 0;
	pid_t tid;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && (de = readdir(d))) {
		tid = (pid_t)atoi(de->d_name);
		if (tid <= 0 || has_tid(w, tid))
			continue;
		err = watch_seize(w, tid);
		if (!err)
			n++;
		else if (err == -ESRCH) /* it ended meanwhile */
			err = 0;
	}
	closedir(d);
	return err ? err : n;
}

int watch_seize_all(struct watch *w, const char *proc)
{
	char dir[256];
	int n;

	snprintf(dir, sizeof(dir), "%s/%d/task", proc, (int)w->pid);
	do
		n = seize_listed(w, dir);
	while (n > 0);
	if (n < 0)
		watch_detach(w);
	return n < 0 ? n : 0;
}

/* Signals whose default action does not kill: ignore, stop, continue. */
static bool kills_by_default(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return false;
	}
	return true;
}

/*
 * Whether @sig, at @tid's signal-delivery stop, kills: one of the watched
 * signals, not caught, and not ignored (the kernel forces a fault through
 * SIG_IGN: it resets an ignored or blocked fault's action first).
 */
static bool is_fatal(const struct watch *w, pid_t tid, int sig, siginfo_t *si)
{
	if (sig < 1 || sig > 64 || !(w->signals & (1ULL << (sig - 1))) ||
	    !kills_by_default(sig) ||
	    ptrace(PTRACE_GETSIGINFO, tid, NULL, si) < 0 ||
	    task_signal_caught(tid, sig))
		return false;
	return si->si_code > 0 || !task_signal_in(tid, "SigIgn:", sig, false);
}

/* Up to @len code bytes at @ip of @tid, the page holding ip first. */
static size_t read_code(pid_t tid, uint64_t ip, uint8_t *buf, size_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t first = (size_t)(page - ip % page);
	struct iovec local = {buf, len}, remote[2];
	ssize_t n;

	if (first > len)
		first = len;
	remote[0].iov_base = (void *)(uintptr_t)ip;
	remote[0].iov_len = first;
	remote[1].iov_base = (void *)(uintptr_t)(ip + first);
	remote[1].iov_len = len - first;
	n = process_vm_readv(tid, &local, 1, remote, first < len ? 2 : 1, 0);
	return n < 0 ? 0 : (size_t)n;
}

static int tell_crash(struct watch *w, pid_t tid, const siginfo_t *si)
{
	struct user_regs_struct regs;
	uint8_t insn[16];
	size_t n;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
		return 0; /* killed meanwhile: nothing left to tell */
	n = read_code(tid, regs.rip, insn, sizeof(insn));
	return w->crash(w->ctx, w->pid, tid, si, &regs, insn, n);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/*
 * How @tid's stop @status goes on (*@sig: the signal to deliver) with
 * @how: PTRACE_CONT, or PTRACE_LISTEN for a group-stop.  A fatal signal
 * is told first; a new thread is traced.  Returns 0 or an error.
 */
static int look_at_stop(struct watch *w, pid_t tid, int status, int *sig,
			enum __ptrace_request *how)
{
	unsigned long msg;
	siginfo_t si;

	*sig = 0;
	*how = PTRACE_CONT;
	switch (status >> 16) {
	case 0: /* signal-delivery stop */
		*sig = WSTOPSIG(status);
		if (!is_fatal(w, tid, *sig, &si))
			return 0;
		return tell_crash(w, tid, &si);
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) < 0)
			return 0;
		return add_tid(w, (pid_t)msg);
	case PTRACE_EVENT_STOP:
		/* a group-stop stays stopped until SIGCONT; otherwise a new
		 * thread's first stop or an interrupt */
		if (is_stop_signal(WSTOPSIG(status)))
			*how = PTRACE_LISTEN;
		return 0;
	}
	return 0;
}

static void keep_error(struct watch *w, int err)
{
	if (err && !w->err)
		w->err = err;
}

int watch_poll(struct watch *w, int *status)
{
	enum __ptrace_request how;
	size_t i = 0;
	pid_t got;
	int st, sig, err;

	while (i < w->nr) {
		got = waitpid(w->tids[i], &st, __WALL | WNOHANG);
		if (got < 0 && errno == EINTR)
			continue;
		if (!got) {
			i++;
			continue;
		}
		if (got < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			drop_tid(w, i, got < 0 ? -1 : st);
			continue;
		}
		keep_error(w, look_at_stop(w, got, st, &sig, &how));
		/* ESRCH: killed meanwhile, its end comes next */
		ptrace(how, got, NULL, (void *)(long)sig);
		i++;
	}
	err = w->err;
	w->err = 0;
	if (err)
		return err;
	if (w->ended)
		*status = w->status;
	return w->ended ? 1 : 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int watch_end(struct watch *w, int sig, unsigned int grace_ms, int *status)
{
	struct timespec nap = {0, 10000000};
	/* by the clock: the tracees' stops (SIGCHLD) cut naps short */
	uint64_t kill_at = now_ms() + (grace_ms ? grace_ms : 2000);
	bool killed = false;
	int ret, err = 0;

	kill(w->pid, sig > 0 ? sig : SIGTERM);
	for (;;) {
		ret = watch_poll(w, status);
		if (ret < 0 && !err)
			err = ret;
		if (ret == 1 || (killed && !w->nr)) {
			*status = w->status;
			return err;
		}
		if (!killed && now_ms() >= kill_at) {
			kill(w->pid, SIGKILL);
			killed = true;
		}
		nanosleep(&nap, NULL);
	}
}

/* Thread @i stopped (@st) after an interrupt: let it go untraced. */
static void detach_one(struct watch *w, size_t i, int st)
{
	enum __ptrace_request how;
	pid_t tid = w->tids[i];
	int sig;

	keep_error(w, look_at_stop(w, tid, st, &sig, &how));
	/* a group-stop stays one once detached */
	ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig);
}

void watch_detach(struct watch *w)
{
	size_t i;
	pid_t got;
	int st;

	for (i = 0; i < w->nr; i++)
		ptrace(PTRACE_INTERRUPT, w->tids[i], NULL, NULL);
	while (w->nr) {
		i = w->nr - 1;
		got = waitpid(w->tids[i], &st, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			drop_tid(w, i, got < 0 ? -1 : st);
			continue;
		}
		/* a thread born now is added at the end: detached next */
		detach_one(w, i, st);
		drop_tid(w, i, -1);
	}
}

size_t watch_threads(const struct watch *w)
{
	return w->nr;
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	watch_detach(w);
	free(w->tids);
	free(w);
}
