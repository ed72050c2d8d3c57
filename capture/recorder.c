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

#include "auxfmt/sized.h"
#include "capture/recorder.h"
#include "capture/target.h"

/* sizeof(struct qpt_recorder_opts) of the first version */
#define RECORDER_OPTS_SIZE_V1                                                  \
	(offsetof(struct qpt_recorder_opts, errlen) + sizeof(size_t))

static const char *const default_events[] = {"intel_pt//u"};

void qpt_recorder_opts_init_sized(struct qpt_recorder_opts *out,
				  size_t size)
{
	struct qpt_recorder_opts o;

	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	o.emulate_cpu = QPT_CPU_HERE;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
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
	/* the emulated source parses intel_pt as the Linux driver's PMU
	 * where sysfs has none */
	eo.builtin_intel_pt = rec->o.source != QPT_SOURCE_PMU;
	eo.builtin_intel_pt_type = QPT_EMULATE_PMU_TYPE;
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
	if (!rec->data_pages)
		rec->data_pages = rec->src->data_pages;
	if (!rec->aux_pages)
		rec->aux_pages = rec->src->aux_pages;
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

int qpt_recorder_new(const struct qpt_recorder_opts *opts,
		     struct qpt_recorder **out)
{
	return rec_new(opts, NULL, out);
}

int rec_new(const struct qpt_recorder_opts *opts, const void *seam,
	    struct qpt_recorder **out)
{
	struct qpt_recorder *rec;
	int err;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	if (!opts)
		return -QPT_E_INVAL;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	/* an older caller's options (the first version ended at errlen):
	 * what it does not know keeps its default */
	qpt_recorder_opts_init(&rec->o);
	if (qpt_sized_opts_read(&rec->o, sizeof(rec->o), opts,
				RECORDER_OPTS_SIZE_V1) ||
	    !rec->o.output ||
	    (rec->o.source != QPT_SOURCE_PMU &&
	     rec->o.source != QPT_SOURCE_EMULATE &&
	     rec->o.source != QPT_SOURCE_QEMU)) {
		free(rec);
		return -QPT_E_INVAL;
	}
	rec->src = rec->o.source == QPT_SOURCE_EMULATE ? &rec_source_emulate
		   : rec->o.source == QPT_SOURCE_QEMU  ? &rec_source_qemu
						       : &rec_source_pmu;
	rec->status = -1;
	rec->go_fd = rec->err_fd = -1; /* the PMU source's, not open yet */
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
	rec->seam = seam;
	err = rec->src->open(rec);
	rec->seam = NULL;
	if (err < 0)
		goto out_free;
	*out = rec;
	return 0;
out_free:
	qpt_recorder_free(rec);
	return err;
}

int qpt_recorder_start(struct qpt_recorder *rec)
{
	if (rec->started)
		return -QPT_E_STATE;
	rec->started = true;
	return rec->src->start(rec);
}

bool qpt_recorder_exec_failed(const struct qpt_recorder *rec)
{
	return rec->exec_failed;
}

int rec_stop_signal(const struct qpt_recorder *rec)
{
	return rec->o.stop_request ? *rec->o.stop_request : 0;
}

int rec_round(struct qpt_recorder *rec)
{
	struct perf_event_header round = {QPT_RECORD_FINISHED_ROUND, 0, 8};
	int err;

	/* Like perf: a round marker after each pass that wrote.  Then a
	 * flush, so that the file on disk reads whole up to here even if
	 * the disk fills up or we are killed. */
	if (!rec->records_since_round)
		return 0;
	rec->records_since_round = 0;
	err = qpt_writer_write(rec->writer, &round);
	return err < 0 ? err : qpt_writer_flush(rec->writer);
}

int qpt_recorder_poll(struct qpt_recorder *rec, int timeout_ms)
{
	return rec->src->poll(rec, timeout_ms);
}

int64_t qpt_recorder_snapshot(struct qpt_recorder *rec)
{
	if (!rec->o.snapshot || rec->stopped)
		return -QPT_E_STATE;
	return rec->src->snapshot(rec);
}

int qpt_recorder_stop(struct qpt_recorder *rec)
{
	int err, err2;

	if (rec->stopped)
		return -QPT_E_STATE;
	rec->stopped = true;
	err = rec->src->stop(rec);
	qpt_recorder_stats(rec, &rec->final_stats);
	if (!err && rec->src->build_ids)
		err = rec_write_build_ids(rec);
	err2 = rec->writer ? qpt_writer_close(rec->writer) : 0;
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

/* The first version's stats ended at trace_gaps. */
#define STATS_SIZE_V1 (offsetof(struct qpt_capture_stats, trace_gaps) + 8)

int qpt_recorder_stats_sized(const struct qpt_recorder *rec,
			     struct qpt_capture_stats *stats, size_t size)
{
	struct qpt_capture_stats st;

	if (!rec || !stats || size < STATS_SIZE_V1)
		return -QPT_E_INVAL;
	memset(&st, 0, sizeof(st));
	rec->src->stats(rec, &st);
	qpt_sized_copy(stats, size, &st, sizeof(st));
	return 0;
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
	rec->src->free(rec);
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
	free(rec);
}
