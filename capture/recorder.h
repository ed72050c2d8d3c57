/* SPDX-License-Identifier: MIT */
/* The recording session's state (qpt_recorder_* in qpt/capture.h). */
#ifndef QPT_CAPTURE_RECORDER_H
#define QPT_CAPTURE_RECORDER_H

#include <poll.h>
#include <stdarg.h>
#include <sys/types.h>

#include "capture/event.h"
#include "capture/ring.h"
#include "capture/sysring.h"
#include "qpt/capture.h"
#include "qpt/writer.h"

/* One event as opened: a user event or the sideband dummy. */
struct rec_event {
	struct perf_event_attr attr;
	const char *name; /* borrowed */
	bool aux;
	uint64_t *ids;
	uint32_t nr_ids;
};

/* A mapped file seen in MMAP/MMAP2 records, for the build-ids. */
struct rec_file {
	char *name;
	uint16_t misc;
};

struct qpt_recorder {
	struct qpt_recorder_opts o;
	struct qpt_event **parsed;
	size_t nr_parsed;
	const struct qpt_event *aux_ev; /* the AUX-area event or NULL */
	struct rec_event *evs;		/* user events, then the dummy */
	size_t nr_evs;
	int *cpus; /* per slot CPU (-1: per-thread) */
	size_t nr_cpus;
	int *tids; /* threads (-1: any, with -a) */
	size_t nr_tids;
	int *fds;
	size_t nr_fds;
	int *ctl_fds; /* AUX events, grouped by ring */
	size_t nr_ctl;
	struct qpt_sysring *rings;
	struct qpt_consumer **consumers;
	struct pollfd *pfds;
	size_t nr_rings;
	uint64_t data_pages, aux_pages;
	size_t id_hdr_size;
	struct qpt_writer *writer;
	struct qpt_sink sink; /* rec_sink_* around the writer */
	uint64_t records_since_round;
	struct rec_file *files;
	size_t nr_files;
	pid_t child;
	int go_fd, err_fd;
	int status;
	bool exec_failed, started, stopped;
	struct qpt_capture_stats final_stats;
};

/* Format a one-line explanation into the caller's errbuf; returns @err. */
int rec_fail(struct qpt_recorder *rec, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rec_log(struct qpt_recorder *rec, enum qpt_log_level level,
	     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* recorder_open.c */
int rec_open_events(struct qpt_recorder *rec);
/* recorder_out.c */
int rec_open_output(struct qpt_recorder *rec);
int rec_remember_file(struct qpt_recorder *rec,
		      const struct perf_event_header *h);
int rec_write_build_ids(struct qpt_recorder *rec);

#endif /* QPT_CAPTURE_RECORDER_H */
