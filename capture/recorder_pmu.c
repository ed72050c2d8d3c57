// SPDX-License-Identifier: MIT
/*
 * The PMU source of a recording: the command forked and held, a process's
 * threads or CPUs as targets; the events opened on them with their rings
 * mapped (recorder_open.c); poll() on the rings and their drain; ioctls
 * to enable, disable and snapshot; the targets watched for fatal signals
 * (recorder_crash.c); --snapshot-on's uprobe hits fired after each drain
 * (recorder_uprobe.c).  The kernel's calls go through rec->sys.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/recorder.h"
#include "capture/target.h"

/* How long the command may outlive the events of every ring (as it exits)
 * before the recording takes it that their PMU went away. */
#define ENDED_GRACE_MS 1000

static int set_targets(struct qpt_recorder *rec)
{
	int err;

	if (rec->o.argv && rec->o.argv[0]) {
		err = qpt_target_child_fork(rec->o.argv, &rec->child,
					    &rec->go_fd, &rec->err_fd);
		if (err < 0)
			return rec_fail(rec, err, "cannot fork: %s",
					strerror(-err));
		rec->tids = malloc(sizeof(*rec->tids));
		if (!rec->tids)
			return -ENOMEM;
		rec->tids[0] = rec->child;
		rec->nr_tids = 1;
	} else if (rec->o.pid > 0) {
		err = qpt_target_threads("/proc", rec->o.pid, &rec->tids,
					 &rec->nr_tids);
		if (err < 0)
			return rec_fail(rec, err, "no such process %d",
					rec->o.pid);
	} else if (rec->o.all_cpus || rec->o.cpu_list) {
		rec->tids = malloc(sizeof(*rec->tids));
		if (!rec->tids)
			return -ENOMEM;
		rec->tids[0] = -1;
		rec->nr_tids = 1;
		rec->o.per_thread = false;
	} else {
		return rec_fail(rec, -QPT_E_INVAL,
				"nothing to record: give a command, -p PID, "
				"-a or -C CPUS");
	}
	if (rec->o.per_thread) {
		rec->cpus = malloc(sizeof(*rec->cpus));
		if (!rec->cpus)
			return -ENOMEM;
		rec->cpus[0] = -1;
		rec->nr_cpus = 1;
		return 0;
	}
	err = qpt_target_cpus(rec->o.cpu_list, &rec->cpus, &rec->nr_cpus);
	if (err < 0)
		return rec_fail(rec, err, "bad CPU list '%s'",
				rec->o.cpu_list ? rec->o.cpu_list : "online");
	return 0;
}

static int make_consumers(struct qpt_recorder *rec)
{
	size_t i;
	int err;

	for (i = 0; i < rec->nr_rings; i++) {
		err = qpt_consumer_new(&rec->rings[i].ring, &rec->sink,
				       &rec->consumers[i]);
		if (err < 0)
			return err;
	}
	return 0;
}

static int ioctl_all(struct qpt_recorder *rec, unsigned long req)
{
	size_t i;
	int err;

	for (i = 0; i < rec->nr_fds; i++) {
		err = rec_sys_ioctl(rec, rec->fds[i], req, NULL);
		if (err < 0)
			return err;
	}
	return 0;
}

static int pmu_start(struct qpt_recorder *rec)
{
	int err;

	if (!rec->child)
		return ioctl_all(rec, PERF_EVENT_IOC_ENABLE);
	err = qpt_target_child_go(rec->go_fd, rec->err_fd);
	close(rec->go_fd);
	close(rec->err_fd);
	rec->go_fd = rec->err_fd = -1;
	if (err < 0) {
		rec->exec_failed = true;
		waitpid(rec->child, &rec->status, 0);
		return rec_fail(rec, err, "%s: %s", rec->o.argv[0],
				strerror(-err));
	}
	return 0;
}

static int drain_all(struct qpt_recorder *rec)
{
	size_t i;
	int err;

	for (i = 0; i < rec->nr_rings; i++) {
		err = qpt_consumer_drain(rec->consumers[i]);
		if (err < 0)
			return err;
	}
	return rec_round(rec);
}

/* 1 when the targets are gone, 0, or an error (of the crash watch). */
static int target_done(struct qpt_recorder *rec)
{
	if (rec->crash)
		return rec_crash_poll(rec);
	if (rec->child) {
		if (rec->status != -1)
			return 1;
		if (waitpid(rec->child, &rec->status, WNOHANG) == rec->child)
			return 1;
		rec->status = -1;
		return 0;
	}
	if (rec->o.pid > 0)
		return kill(rec->o.pid, 0) < 0 && errno == ESRCH;
	return 0;
}

/* Wait for ring data: 0 (an interruption or a passing shortage too), or
 * -errno. */
static int wait_rings(struct qpt_recorder *rec, int timeout_ms)
{
	const struct rec_pmu_sys *sys = rec->sys;
	int n;

	if (sys->poll)
		n = sys->poll(sys->ctx, rec->pfds, rec->nr_rings, timeout_ms);
	else if ((n = poll(rec->pfds, rec->nr_rings, timeout_ms)) < 0)
		n = -errno;
	return n < 0 && n != -EINTR && n != -EAGAIN ? n : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The rings whose events the kernel ended (POLLHUP or POLLERR: their
 * thread exited, their CPU went offline, their PMU went away), drained
 * already, are not waited on again: perf record drops them too.  When
 * every ring ended, the recording is over: per thread or attached to a
 * process (-p), every thread traced ended (1); per CPU, the command ends
 * soon (the events end as it exits, a moment before its parent can reap
 * it: said at QPT_LOG_INFO only), and if it still runs a while later, the
 * PMU went away under the recording (-ENODEV).  Returns 1, 0 or -ENODEV.
 */
static int rings_ended(struct qpt_recorder *rec, bool done)
{
	struct pollfd *p;
	size_t i;

	for (i = 0; i < rec->nr_rings; i++) {
		p = &rec->pfds[i];
		if (p->fd < 0 || !(p->revents & (POLLHUP | POLLERR)))
			continue;
		if (!done)
			rec_log(rec, QPT_LOG_INFO,
				"the kernel ended the events of ring %zu "
				"(%s %d)",
				i, rec->o.per_thread ? "thread" : "CPU",
				rec->o.per_thread ? rec->tids[i]
						  : rec->cpus[i]);
		p->fd = -1;
		rec->nr_ended++;
		rec->ended_ns = now_ns();
	}
	if (done || rec->nr_ended < rec->nr_rings)
		return 0;
	if (rec->o.per_thread || rec->o.pid > 0) /* every thread ended */
		return 1;
	if (now_ns() - rec->ended_ns < ENDED_GRACE_MS * 1000000ull)
		return 0;
	return rec_fail(rec, -ENODEV,
			"the kernel ended the events of every ring while "
			"the recording ran: did the PMU go away?");
}

static int pmu_poll(struct qpt_recorder *rec, int timeout_ms)
{
	int done = target_done(rec), err;

	if (done < 0)
		return done;
	timeout_ms = rec_crash_timeout(rec, timeout_ms);
	if (!done) {
		err = wait_rings(rec, timeout_ms);
		if (err < 0)
			return err;
		/* asked before the drain: what a target wrote before it
		 * ended (its uprobe hits: their snapshots) is this poll's,
		 * not the stop's */
		done = target_done(rec);
		if (done < 0)
			return done;
	}
	err = drain_all(rec);
	if (!err)
		err = rec_uprobe_fire(rec);
	if (err < 0)
		return err;
	err = rings_ended(rec, done);
	return err < 0 ? err : done || err;
}

static int64_t pmu_snapshot(struct qpt_recorder *rec)
{
	int64_t total = 0, n;
	size_t i;
	int err;

	for (i = 0; i < rec->nr_rings; i++) {
		n = qpt_consumer_snapshot(rec->consumers[i],
					  rec->o.snapshot_size);
		if (n < 0)
			return n;
		total += n;
	}
	err = drain_all(rec);
	return err < 0 ? err : total;
}

/* The events disabled, the last data and snapshot written; a command
 * still running ended (after, as perf record ends its workload). */
static int pmu_stop(struct qpt_recorder *rec)
{
	int err, err2;
	int64_t n;

	ioctl_all(rec, PERF_EVENT_IOC_DISABLE);
	err = drain_all(rec);
	if (!err)
		err = rec_uprobe_fire(rec); /* the hits drained last */
	if (!err && rec->o.snapshot) {
		/* The last snapshot: with the events disabled, what is in
		 * the areas now. */
		n = pmu_snapshot(rec);
		if (n < 0)
			err = (int)n;
		/* The snapshot re-enabled the AUX events. */
		ioctl_all(rec, PERF_EVENT_IOC_DISABLE);
	}
	err2 = rec_uprobe_stop(rec);
	err = err ? err : err2;
	if (rec->crash) {
		err2 = rec_crash_stop(rec);
		return err ? err : err2;
	}
	if (rec->child && !target_done(rec))
		rec->status = qpt_target_child_end(rec->child,
						   rec_stop_signal(rec),
						   rec->o.stop_grace_ms);
	return err;
}

static void pmu_stats(const struct qpt_recorder *rec,
		      struct qpt_capture_stats *stats)
{
	size_t i;

	for (i = 0; i < rec->nr_rings; i++)
		if (rec->consumers[i])
			qpt_consumer_add_stats(rec->consumers[i], stats);
}

static void pmu_free(struct qpt_recorder *rec)
{
	size_t i;

	if (rec->go_fd >= 0)
		close(rec->go_fd);
	if (rec->err_fd >= 0)
		close(rec->err_fd);
	for (i = 0; rec->consumers && i < rec->nr_rings; i++)
		qpt_consumer_free(rec->consumers[i]);
	rec_crash_free(rec);
	rec_uprobe_free(rec);
	for (i = 0; rec->rings && i < rec->nr_rings; i++)
		rec->sys->unmap(rec->sys->ctx, &rec->rings[i]);
	for (i = 0; i < rec->nr_fds; i++)
		close(rec->fds[i]);
	free(rec->consumers);
	free(rec->rings);
	free(rec->pfds);
	free(rec->fds);
	free(rec->ctl_fds);
	free(rec->tids);
	free(rec->cpus);
}

/* Targets, events and rings, then the output (its attrs carry the
 * events' ids). */
static int pmu_open(struct qpt_recorder *rec)
{
	int err;

	rec->sys = rec->seam ? rec->seam : &rec_pmu_sys_real;
	err = rec_uprobe_resolve(rec);
	if (!err)
		err = set_targets(rec);
	if (!err)
		err = rec_open_events(rec);
	if (!err)
		err = rec_open_output(rec);
	if (!err)
		err = make_consumers(rec);
	if (!err)
		err = rec_crash_open(rec);
	return err;
}

const struct rec_source_ops rec_source_pmu = {
    .build_ids = true,
    .open = pmu_open,
    .start = pmu_start,
    .poll = pmu_poll,
    .snapshot = pmu_snapshot,
    .stop = pmu_stop,
    .stats = pmu_stats,
    .free = pmu_free,
};

int rec_pmu_new(const struct qpt_recorder_opts *opts,
		const struct rec_pmu_sys *sys, struct qpt_recorder **rec)
{
	struct qpt_recorder_opts o = *opts;

	o.source = QPT_SOURCE_PMU;
	return rec_new(&o, sys, rec);
}
