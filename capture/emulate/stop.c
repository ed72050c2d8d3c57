// SPDX-License-Identifier: MIT
/*
 * Ending a run of the ptrace engine as perf record ends its workload: a
 * stop request's signal goes on to the command, which stays traced while
 * it handles it or dies of it; what is left after the grace period is
 * killed; meanwhile the next stop is awaited without blocking past that.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "capture/emulate/trace_priv.h"

uint64_t emu_tr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The run is asked to end (stop_request): the signal goes on to the
 * command, which is still traced while it handles it or dies of it; what
 * is left when the grace period is over is killed.  Every thread's trace
 * ends at its exit stop as usual.
 */
void emu_tr_stop_begin(struct emu_tracer *tr)
{
	uint64_t grace =
	    tr->opts->stop_grace_ms ? tr->opts->stop_grace_ms : 2000;

	tr->deadline = emu_tr_now_ns() + grace * 1000000u;
	emu_tr_log(tr, QPT_LOG_INFO, "stopping: %s to the command",
		   strsignal(tr->stopping));
	if (!tr->child_gone)
		kill(tr->child, tr->stopping);
}

void emu_tr_stop_check(struct emu_tracer *tr)
{
	int sig = tr->opts->stop_request ? *tr->opts->stop_request : 0;
	struct emu_thread *t;

	if (!tr->stopping && sig) {
		tr->stopping = sig > 0 && sig < NSIG ? sig : SIGTERM;
		emu_tr_stop_begin(tr);
	}
	if (!tr->stopping || emu_tr_now_ns() < tr->deadline)
		return;
	for (t = tr->threads; t; t = t->next)
		if (!t->killed) {
			t->killed = true;
			kill(t->tid, SIGKILL);
		}
}

/*
 * The next stop; while stopping, without blocking past the deadline.  A
 * stop request (the caller's signal handler) interrupts the blocking wait
 * (EINTR); one that comes just before the wait starts is seen at the next
 * stop of any traced thread.
 */
pid_t emu_tr_next_stop(struct emu_tracer *tr, int *status)
{
	struct timespec nap = {0, 1000000};
	pid_t tid;
	int i;

	if (!tr->stopping)
		return tr->ops->wait(tr->ops_ctx, status, 0);
	for (i = 0; i < 1000; i++) {
		tid = tr->ops->wait(tr->ops_ctx, status, WNOHANG);
		if (tid)
			return tid;
		if (i < 100)
			sched_yield();
		else
			nanosleep(&nap, NULL);
		emu_tr_stop_check(tr);
	}
	return 0;
}
