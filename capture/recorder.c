// SPDX-License-Identifier: MIT
/*
 * The recording session (qpt_recorder_* in qpt/capture.h): targets and
 * events in, a drained perf.data out.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/recorder.h"
#include "capture/target.h"

static const char *const default_events[] = {"intel_pt//u"};

void qpt_recorder_opts_init(struct qpt_recorder_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->output = "perf.data";
}

int rec_fail(struct qpt_recorder *rec, int err, const char *fmt, ...)
{
	va_list ap;

	if (rec->o.errbuf && rec->o.errlen) {
		va_start(ap, fmt);
		vsnprintf(rec->o.errbuf, rec->o.errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

void rec_log(struct qpt_recorder *rec, enum qpt_log_level level,
	     const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!rec->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rec->o.log(level, msg, rec->o.log_ctx);
}

static int parse_events(struct qpt_recorder *rec)
{
	const char *const *evs = rec->o.events;
	size_t n = rec->o.nr_events, i;
	struct qpt_event_opts eo;
	int err;

	if (!n) {
		evs = default_events;
		n = 1;
	}
	rec->parsed = calloc(n, sizeof(*rec->parsed));
	if (!rec->parsed)
		return -ENOMEM;
	qpt_event_opts_init(&eo);
	eo.sysfs_root = rec->o.sysfs_root;
	eo.errbuf = rec->o.errbuf;
	eo.errlen = rec->o.errlen;
	for (i = 0; i < n; i++) {
		err = qpt_event_parse(evs[i], &eo, &rec->parsed[i]);
		if (err < 0)
			return err;
		rec->nr_parsed++;
		if (!qpt_event_is_aux(rec->parsed[i]))
			continue;
		if (rec->aux_ev)
			return rec_fail(rec, -QPT_E_INVAL,
					"%s: only one AUX-area event per "
					"recording",
					evs[i]);
		rec->aux_ev = rec->parsed[i];
	}
	if (rec->o.snapshot && !rec->aux_ev)
		return rec_fail(rec, -QPT_E_INVAL,
				"snapshot mode needs an AUX-area event "
				"(intel_pt, intel_bts)");
	return 0;
}

/* perf's sizes: 512 KiB of data ring; 4 MiB of AUX as root, else 128 KiB
 * (and then 256 KiB of data ring in full-trace mode). */
static void default_sizes(struct qpt_recorder *rec)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	bool root = geteuid() == 0;

	rec->data_pages = rec->o.data_pages;
	rec->aux_pages = rec->o.aux_pages;
	if (!rec->aux_pages)
		rec->aux_pages = (root ? 4096 * 1024 : 128 * 1024) / page;
	if (!rec->data_pages)
		rec->data_pages =
		    (!root && rec->aux_ev && !rec->o.snapshot ? 256 * 1024
							      : 512 * 1024) /
		    page;
	if (!rec->data_pages)
		rec->data_pages = 1;
	if (!rec->aux_pages)
		rec->aux_pages = 1;
	if (rec->aux_ev)
		rec_log(rec, QPT_LOG_INFO,
			"data ring %llu pages, AUX area %llu pages (%s)",
			(unsigned long long)rec->data_pages,
			(unsigned long long)rec->aux_pages,
			rec->o.snapshot ? "snapshot" : "full trace");
	else
		rec_log(rec, QPT_LOG_INFO, "data ring %llu pages",
			(unsigned long long)rec->data_pages);
}

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

int qpt_recorder_new(const struct qpt_recorder_opts *opts,
		     struct qpt_recorder **out)
{
	struct qpt_recorder *rec;
	int err;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	if (!opts || opts->size < sizeof(*opts) || !opts->output)
		return -QPT_E_INVAL;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	rec->o = *opts;
	rec->go_fd = rec->err_fd = -1;
	rec->status = -1;
	err = parse_events(rec);
	if (err < 0)
		goto out_free;
	default_sizes(rec);
	if ((rec->data_pages & (rec->data_pages - 1)) ||
	    (rec->aux_pages & (rec->aux_pages - 1))) {
		err = rec_fail(rec, -QPT_E_INVAL,
			       "buffer sizes must be powers of two pages "
			       "(data %llu, AUX %llu)",
			       (unsigned long long)rec->data_pages,
			       (unsigned long long)rec->aux_pages);
		goto out_free;
	}
	err = set_targets(rec);
	if (err < 0)
		goto out_free;
	err = rec_open_events(rec);
	if (err < 0)
		goto out_free;
	err = rec_open_output(rec);
	if (err < 0)
		goto out_free;
	err = make_consumers(rec);
	if (err < 0)
		goto out_free;
	*out = rec;
	return 0;
out_free:
	qpt_recorder_free(rec);
	return err;
}

static int ioctl_all(struct qpt_recorder *rec, unsigned long req)
{
	size_t i;

	for (i = 0; i < rec->nr_fds; i++)
		if (ioctl(rec->fds[i], req, 0) < 0)
			return -errno;
	return 0;
}

int qpt_recorder_start(struct qpt_recorder *rec)
{
	int err;

	if (rec->started)
		return -QPT_E_STATE;
	rec->started = true;
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

bool qpt_recorder_exec_failed(const struct qpt_recorder *rec)
{
	return rec->exec_failed;
}

static int drain_all(struct qpt_recorder *rec)
{
	struct perf_event_header round = {QPT_RECORD_FINISHED_ROUND, 0, 8};
	size_t i;
	int err;

	for (i = 0; i < rec->nr_rings; i++) {
		err = qpt_consumer_drain(rec->consumers[i]);
		if (err < 0)
			return err;
	}
	/* Like perf: a round marker after each pass that wrote.  Then a
	 * flush, so that the file on disk reads whole up to here even if
	 * the disk fills up or we are killed. */
	if (!rec->records_since_round)
		return 0;
	rec->records_since_round = 0;
	err = qpt_writer_write(rec->writer, &round);
	return err < 0 ? err : qpt_writer_flush(rec->writer);
}

static bool target_done(struct qpt_recorder *rec)
{
	if (rec->child) {
		if (rec->status != -1)
			return true;
		if (waitpid(rec->child, &rec->status, WNOHANG) == rec->child)
			return true;
		rec->status = -1;
		return false;
	}
	if (rec->o.pid > 0)
		return kill(rec->o.pid, 0) < 0 && errno == ESRCH;
	return false;
}

int qpt_recorder_poll(struct qpt_recorder *rec, int timeout_ms)
{
	bool done = target_done(rec);
	int err;

	if (!done && poll(rec->pfds, rec->nr_rings, timeout_ms) < 0 &&
	    errno != EINTR)
		return -errno;
	err = drain_all(rec);
	if (err < 0)
		return err;
	return done || target_done(rec) ? 1 : 0;
}

int64_t qpt_recorder_snapshot(struct qpt_recorder *rec)
{
	int64_t total = 0, n;
	size_t i;
	int err;

	if (!rec->o.snapshot)
		return -QPT_E_STATE;
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

int qpt_recorder_stop(struct qpt_recorder *rec)
{
	int err, err2;
	int64_t n;

	if (rec->stopped)
		return -QPT_E_STATE;
	rec->stopped = true;
	ioctl_all(rec, PERF_EVENT_IOC_DISABLE);
	err = drain_all(rec);
	if (!err && rec->o.snapshot) {
		/* The last snapshot: with the events disabled, what is in
		 * the areas now. */
		n = qpt_recorder_snapshot(rec);
		if (n < 0)
			err = (int)n;
		/* The snapshot re-enabled the AUX events. */
		ioctl_all(rec, PERF_EVENT_IOC_DISABLE);
	}
	qpt_recorder_stats(rec, &rec->final_stats);
	if (!err)
		err = rec_write_build_ids(rec);
	err2 = qpt_writer_close(rec->writer);
	return err < 0 ? err : err2;
}

int qpt_recorder_pid(const struct qpt_recorder *rec)
{
	return rec->child;
}

int qpt_recorder_status(const struct qpt_recorder *rec)
{
	return rec->status;
}

void qpt_recorder_stats(const struct qpt_recorder *rec,
			struct qpt_capture_stats *stats)
{
	size_t i;

	memset(stats, 0, sizeof(*stats));
	for (i = 0; i < rec->nr_rings; i++)
		if (rec->consumers[i])
			qpt_consumer_add_stats(rec->consumers[i], stats);
}

uint64_t qpt_recorder_output_bytes(const struct qpt_recorder *rec)
{
	return rec->writer ? qpt_writer_bytes(rec->writer) : 0;
}

void qpt_recorder_free(struct qpt_recorder *rec)
{
	size_t i;

	if (!rec)
		return;
	if (rec->child && !rec->started) {
		kill(rec->child, SIGKILL);
		waitpid(rec->child, NULL, 0);
	}
	if (rec->go_fd >= 0)
		close(rec->go_fd);
	if (rec->err_fd >= 0)
		close(rec->err_fd);
	for (i = 0; rec->consumers && i < rec->nr_rings; i++)
		qpt_consumer_free(rec->consumers[i]);
	for (i = 0; rec->rings && i < rec->nr_rings; i++)
		qpt_sysring_unmap(&rec->rings[i]);
	for (i = 0; i < rec->nr_fds; i++)
		close(rec->fds[i]);
	qpt_writer_free(rec->writer);
	for (i = 0; i < rec->nr_files; i++)
		free(rec->files[i].name);
	for (i = 0; rec->evs && i < rec->nr_evs; i++)
		free(rec->evs[i].ids);
	for (i = 0; i < rec->nr_parsed; i++)
		qpt_event_free(rec->parsed[i]);
	free(rec->files);
	free(rec->evs);
	free(rec->parsed);
	free(rec->consumers);
	free(rec->rings);
	free(rec->pfds);
	free(rec->fds);
	free(rec->ctl_fds);
	free(rec->tids);
	free(rec->cpus);
	free(rec);
}
