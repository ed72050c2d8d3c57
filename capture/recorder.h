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
	bool uprobe; /* --snapshot-on's (attr.config1 set at the open) */
	uint64_t *ids;
	uint32_t nr_ids;
};

/* A mapped file seen in MMAP/MMAP2 records, for the build-ids. */
struct rec_file {
	char *name;
	uint16_t misc;
};

struct qpt_recorder;
struct qpt_writer_io;

/*
 * A source of a recording's events, driven by the recorder: the PMUs
 * (perf_event_open and the kernel's rings, recorder_pmu.c) or the
 * emulated Intel PT (a ptrace engine and PT encoder writing simulated
 * kernel rings, emulate/record.c).  The recorder owns the options, the
 * events as parsed, the output and its sink, snapshots' and stop's order,
 * and the command's status; a source owns its rings and consumers.
 */
struct rec_source_ops {
	/* Ring sizes when the options give none (0: perf's rules). */
	uint64_t data_pages, aux_pages;
	/* Add the build-ids of the files the MMAP records name at the end. */
	bool build_ids;
	/* Targets, events and rings; the output (rec_open_writer, then
	 * what the source writes: attrs, AUXTRACE_INFO, sideband). */
	int (*open)(struct qpt_recorder *rec);
	/* Let the command run (or enable the events). */
	int (*start)(struct qpt_recorder *rec);
	/* Wait up to @timeout_ms for data and drain: 1 when the targets are
	 * gone, 0, or an error. */
	int (*poll)(struct qpt_recorder *rec, int timeout_ms);
	/* A snapshot of every AUX area: the bytes written, or an error. */
	int64_t (*snapshot)(struct qpt_recorder *rec);
	/* The end: disable and drain, the final snapshot, the command ended
	 * (rec->status); the output is closed after. */
	int (*stop)(struct qpt_recorder *rec);
	void (*stats)(const struct qpt_recorder *rec,
		      struct qpt_capture_stats *stats);
	void (*free)(struct qpt_recorder *rec);
};

extern const struct rec_source_ops rec_source_pmu;
extern const struct rec_source_ops rec_source_emulate;
extern const struct rec_source_ops rec_source_qemu;

/*
 * The PMU source's calls into the kernel, a seam for tests: the real ones
 * (rec_pmu_sys_real) or a simulated kernel's (capture/simkern.h) behind
 * real, pollable fds, with faults injected where a test asks.  Each
 * returns as the call it stands for, -errno on failure.
 */
struct rec_pmu_sys {
	/* perf_event_open(@attr, @pid, @cpu, no group, FD_CLOEXEC) */
	int (*open)(void *ctx, struct perf_event_attr *attr, int pid, int cpu);
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
	/* qpt_sysring_map and qpt_sysring_unmap */
	int (*map)(void *ctx, struct qpt_sysring *sr, int fd,
		   uint64_t data_pages, uint64_t aux_pages, bool aux_overwrite,
		   uint64_t (*reference)(void *ctx));
	void (*unmap)(void *ctx, struct qpt_sysring *sr);
	/* poll(2) on the rings' fds: how many have events, or -errno
	 * (NULL: the real one) */
	int (*poll)(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms);
	/* the output's writes (auxfmt/writer_io.h; NULL: the real ones) */
	const struct qpt_writer_io *out;
	void *ctx;
};

extern const struct rec_pmu_sys rec_pmu_sys_real;

/*
 * The seam's open, ioctl and map, tried again while they fail with EINTR
 * (a signal came) or EAGAIN (a passing shortage), a few times at most:
 * then their error.
 */
int rec_sys_open(struct qpt_recorder *rec, struct perf_event_attr *attr,
		 int pid, int cpu);
int rec_sys_ioctl(struct qpt_recorder *rec, int fd, unsigned long req,
		  void *arg);
int rec_sys_map(struct qpt_recorder *rec, struct qpt_sysring *sr, int fd);

/* qpt_recorder_new with the PMU source (whatever opts->source says) over
 * @sys (borrowed until qpt_recorder_free). */
int rec_pmu_new(const struct qpt_recorder_opts *opts,
		const struct rec_pmu_sys *sys, struct qpt_recorder **rec);

struct rec_crash;
struct rec_uprobe;

struct qpt_recorder {
	struct qpt_recorder_opts o;
	const struct rec_source_ops *src;
	void *src_priv;
	const void *seam; /* a source's test seam, during open only */
	const struct rec_pmu_sys *sys; /* the PMU source's kernel */
	struct rec_crash *crash;   /* the PMU source's crash watch, or NULL */
	struct rec_uprobe *uprobe; /* its --snapshot-on uprobe, or NULL */
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
	struct pollfd *pfds; /* fd -1: the kernel ended the ring's events */
	size_t nr_rings;
	size_t nr_ended;   /* rings whose events the kernel ended (POLLHUP) */
	uint64_t ended_ns; /* when the last of them ended (CLOCK_MONOTONIC) */
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

/* qpt_recorder_new with a source's test seam (NULL: none). */
int rec_new(const struct qpt_recorder_opts *opts, const void *seam,
	    struct qpt_recorder **rec);
/* The signal a stop passes on to the command (0: none asked). */
int rec_stop_signal(const struct qpt_recorder *rec);
/* Write a round marker if records were written since the last, then
 * flush the output. */
int rec_round(struct qpt_recorder *rec);

/* recorder_open.c */
int rec_open_events(struct qpt_recorder *rec);
/* recorder_out.c */
int rec_open_writer(struct qpt_recorder *rec);
int rec_open_output(struct qpt_recorder *rec);
int rec_remember_file(struct qpt_recorder *rec,
		      const struct perf_event_header *h);
int rec_write_build_ids(struct qpt_recorder *rec);

/* recorder_crash.c: the PMU source's crash facts (qpt/crash.h) */
/* Watch the command or -p's process for fatal signals when asked
 * (snapshot mode, or crash_signals); a process that cannot be traced is
 * recorded without (a warning).  Returns 0 or -ENOMEM. */
int rec_crash_open(struct qpt_recorder *rec);
/* Whether the recording may have crash facts (its output then has the
 * crash event's attr): a crash watch or --snapshot-on. */
bool rec_crash_wanted(const struct qpt_recorder *rec);
/* Handle the targets' pending stops (rec->status once the command
 * ended): 1 when the target ended, 0, or an error. */
int rec_crash_poll(struct qpt_recorder *rec);
/* How long poll() may wait for ring data with stops to handle. */
int rec_crash_timeout(const struct qpt_recorder *rec, int timeout_ms);
/* The recording stops (events disabled, last snapshot taken): the
 * command ended (rec->status) or -p's process let go, the facts into the
 * output.  Returns 0 or the first error. */
int rec_crash_stop(struct qpt_recorder *rec);
void rec_crash_free(struct qpt_recorder *rec);
/* The watch's facts collector, or NULL without a watch. */
struct crash_list *rec_crash_facts(struct qpt_recorder *rec);

/* recorder_uprobe.c: the PMU source's --snapshot-on (a uprobe) */
/* SYMBOL[+OFF] of opts.snapshot_on to the command's (or -p's) executable
 * and the file offset there, the uprobe PMU's type from sysfs (nothing
 * without snapshot_on).  Returns 0, -QPT_E_INVAL (no snapshot mode, a bad
 * spec, no such symbol; errbuf says), -QPT_E_NOPMU, -errno, -ENOMEM. */
int rec_uprobe_resolve(struct qpt_recorder *rec);
/* The uprobe's attr into @e (sample_period 1, @sample_type). */
void rec_uprobe_fill(struct qpt_recorder *rec, struct rec_event *e,
		     uint64_t sample_type);
/* The probed file (attr.config1 points at it while the event opens). */
const char *rec_uprobe_path(const struct qpt_recorder *rec);
/* A drained record: a sample of the uprobe is a hit, kept for
 * rec_uprobe_fire.  Returns 0 or -ENOMEM. */
int rec_uprobe_sample(struct qpt_recorder *rec,
		      const struct perf_event_header *h);
/* Each hit kept: a trigger in the crash facts and one snapshot (whose
 * drain may find more hits, each fired too).  Returns 0 or the first
 * error. */
int rec_uprobe_fire(struct qpt_recorder *rec);
/* The triggers into the output when no crash watch writes them. */
int rec_uprobe_stop(struct qpt_recorder *rec);
void rec_uprobe_free(struct qpt_recorder *rec);

#endif /* QPT_CAPTURE_RECORDER_H */
