// SPDX-License-Identifier: MIT
/*
 * Ending a run of the ptrace engine as perf record ends its workload: a
 * stop request's signal goes on to the command, which stays traced while
 * it handles it or dies of it; what is left after the grace period is
 * killed; meanwhile the next stop is awaited without blocking past that.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/emulate/trace_priv.h"

/* How long what ran may still be told in full once a stop request came. */
#define EMU_TELL_NS 20000000ULL

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
	uint64_t now = emu_tr_now_ns();

	if (!tr->asked)
		tr->asked = now;
	tr->deadline = now + grace * 1000000u;
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

bool emu_tr_hurry(struct emu_tracer *tr)
{
	uint64_t now;

	if (!tr->stopping &&
	    !(tr->opts->stop_request && *tr->opts->stop_request))
		return false;
	now = emu_tr_now_ns();
	if (!tr->asked)
		tr->asked = now;
	return now - tr->asked >= EMU_TELL_NS;
}

void emu_tr_interrupt(struct emu_thread *t)
{
	if (t->interrupted ||
	    syscall(SYS_tgkill, t->pid, t->tid, SIGSTOP) < 0)
		return;
	t->interrupted = true;
	t->tr->interrupts++;
}

void emu_tr_interrupted(struct emu_thread *t)
{
	if (!t->interrupted)
		return;
	t->interrupted = false;
	t->tr->interrupts--;
}

/* The soonest end of a slice of a loop that runs natively, or 0. */
static uint64_t slice_end(const struct emu_tracer *tr)
{
	const struct emu_thread *t;
	uint64_t end = 0;

	for (t = tr->threads; t; t = t->next)
		if (t->loop.plan && !t->interrupted &&
		    (!end || t->loop.until < end))
			end = t->loop.until;
	return end;
}

/*
 * The next stop, waiting no later than @until (ns): the stop, 0 then, or
 * -EINTR.  The wait op is polled and SIGCHLD awaited in between, blocked
 * meanwhile so that none comes unseen between the two.
 */
static pid_t wait_until(struct emu_tracer *tr, int *status, uint64_t until)
{
	struct timespec ts;
	sigset_t set, old;
	uint64_t now, left;
	pid_t tid;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (;;) {
		tid = tr->ops->wait(tr->ops_ctx, status, WNOHANG);
		now = emu_tr_now_ns();
		if (tid || now >= until)
			break;
		left = until - now;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		if (sigtimedwait(&set, NULL, &ts) < 0 && errno == EINTR) {
			tid = -EINTR;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return tid;
}

/* A loop runs natively: the next stop, or 0 once its slice is over (the
 * thread then interrupted: its stop tells the trips so far). */
static pid_t next_stop_sliced(struct emu_tracer *tr, int *status,
			      uint64_t end)
{
	struct emu_thread *t;
	uint64_t now;
	pid_t tid;

	tid = wait_until(tr, status, end);
	if (tid)
		return tid;
	now = emu_tr_now_ns();
	for (t = tr->threads; t; t = t->next)
		if (t->loop.plan && t->loop.until <= now)
			emu_tr_interrupt(t);
	return 0;
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
	uint64_t end;
	pid_t tid;
	int i;

	if (!tr->stopping) {
		end = slice_end(tr);
		if (end)
			return next_stop_sliced(tr, status, end);
		return tr->ops->wait(tr->ops_ctx, status, 0);
	}
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
