// SPDX-License-Identifier: MIT
/*
 * The PMU source's crash facts: the command (or -p's process) watched
 * under ptrace (watch.h); when a thread is about to die of a fatal
 * signal, every AUX area is snapshotted through the source's snapshot
 * while the thread is still held, its facts are kept, and the signal
 * goes on.  The facts (with the thread's stack) are written as samples of
 * qpt's crash event (qpt/crash.h) when the recording stops, by the
 * collector the emulated source uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/crash.h"
#include "capture/recorder.h"
#include "capture/target.h"
#include "capture/watch.h"

struct rec_crash {
	struct watch *watch;
	struct crash_list facts;
	bool stopping; /* events disabled, last snapshot taken: facts only */
	uint8_t stack[QPT_CRASH_STACK_MAX];
};

/* perf time of the crash, as the emulated source's: CLOCK_MONOTONIC. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_crash(void *ctx, pid_t pid, pid_t tid, const siginfo_t *si,
		    const struct user_regs_struct *regs, const uint8_t *insn,
		    size_t insn_len)
{
	struct qpt_recorder *rec = ctx;
	struct rec_crash *rc = rec->crash;
	size_t len;
	int64_t n;

	/* the stack as the thread left it, while it is held */
	len = crash_read_stack(tid, regs->rsp, rc->stack, sizeof(rc->stack));
	/* the trace up to the fault, before the kernel kills the program */
	if (rec->o.snapshot && !rc->stopping) {
		n = rec->src->snapshot(rec);
		if (n < 0)
			return (int)n;
	}
	return crash_add(&rc->facts, QPT_CRASH_SIGNAL, pid, tid, si, regs, insn,
			 insn_len, now_ns(), rc->stack, len);
}

static int seize(struct qpt_recorder *rec, struct watch *w)
{
	if (rec->child)
		return watch_seize(w, rec->child);
	return watch_seize_all(w, "/proc");
}

bool rec_crash_wanted(const struct qpt_recorder *rec)
{
	pid_t pid = rec->child ? rec->child : rec->o.pid;

	return rec->uprobe ||
	       (pid > 0 && (rec->o.snapshot || rec->o.crash_signals));
}

int rec_crash_open(struct qpt_recorder *rec)
{
	pid_t pid = rec->child ? rec->child : rec->o.pid;
	uint64_t sigs = rec->o.crash_signals ? rec->o.crash_signals
					     : crash_default_signals();
	struct rec_crash *rc;
	int err;

	if (pid <= 0 || (!rec->o.snapshot && !rec->o.crash_signals))
		return 0;
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	err = watch_new(pid, sigs, on_crash, rec, &rc->watch);
	if (!err)
		err = seize(rec, rc->watch);
	if (err == -ENOMEM || !err) {
		rec->crash = rc;
		return err;
	}
	rec_log(rec, QPT_LOG_WARN,
		"cannot watch process %d for crashes (ptrace: %s): recording "
		"without crash facts",
		(int)pid, strerror(-err));
	watch_free(rc->watch);
	free(rc);
	return 0;
}

int rec_crash_poll(struct qpt_recorder *rec)
{
	int ret, status;

	if (rec->status != -1)
		return 1;
	ret = watch_poll(rec->crash->watch, &status);
	if (ret == 1 && rec->child)
		rec->status = status;
	return ret;
}

int rec_crash_timeout(const struct qpt_recorder *rec, int timeout_ms)
{
	/* a stop holds its thread until handled: a tracer's SIGCHLD ends
	 * poll() early where the caller has a handler, else this bounds
	 * the wait */
	if (rec->crash && (timeout_ms < 0 || timeout_ms > 10))
		return 10;
	return timeout_ms;
}

int rec_crash_stop(struct qpt_recorder *rec)
{
	struct rec_crash *rc = rec->crash;
	int err, err2 = 0, status;

	rc->stopping = true;
	err = rec_crash_poll(rec);
	err = err < 0 ? err : 0;
	if (rec->child && rec->status == -1) {
		err2 = watch_end(rc->watch, rec_stop_signal(rec),
				 rec->o.stop_grace_ms, &status);
		rec->status = status;
	} else if (!rec->child) {
		watch_detach(rc->watch);
	}
	if (!err)
		err = err2;
	err2 = crash_write(&rc->facts, rec->writer);
	return err ? err : err2;
}

struct crash_list *rec_crash_facts(struct qpt_recorder *rec)
{
	return rec->crash ? &rec->crash->facts : NULL;
}

void rec_crash_free(struct qpt_recorder *rec)
{
	if (!rec->crash)
		return;
	watch_free(rec->crash->watch);
	crash_release(&rec->crash->facts);
	free(rec->crash);
	rec->crash = NULL;
}
