/* SPDX-License-Identifier: MIT */
/*
 * The ptrace engine of the emulated Intel PT source: runs a command
 * single-stepped, classifies each retired instruction and feeds one packet
 * generator per thread; sideband (COMM, MMAP2, FORK, EXIT, ITRACE_START)
 * is produced as perf records.  Where the bytes and records go is the
 * sink's business (the simulated AUX kernel in qpt record, memory in tests).
 */
#ifndef QPT_CAPTURE_EMU_TRACE_H
#define QPT_CAPTURE_EMU_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"

struct emu_sink_ops {
	/* A thread starts being traced (before any of its bytes or records). */
	int (*thread_new)(void *ctx, pid_t pid, pid_t tid);
	/* Trace bytes of thread @tid. */
	int (*aux)(void *ctx, pid_t tid, const uint8_t *buf, size_t len);
	/* A sideband record (host order, sample_id trailer included) that
	 * belongs to thread @tid's ring. */
	int (*record)(void *ctx, pid_t tid,
		      const struct perf_event_header *rec);
	/* The thread is gone; nothing more arrives for it. */
	int (*thread_exit)(void *ctx, pid_t tid);
	/* Called every few thousand stops (may be NULL) with the count of
	 * instructions so far: snapshot requests, progress.  Returns 0 or
	 * an error that ends the run. */
	int (*poll)(void *ctx, uint64_t insns);
};

struct emu_trace_opts {
	bool no_aslr;
	bool inherit; /* follow fork/vfork children */
	bool retcomp;
	bool tsc, mtc, cyc;    /* timing packets (emu_pt_opts) */
	uint8_t mtc_period;    /* 0..15 */
	uint8_t cyc_thresh;    /* 0..15 */
	uint32_t psb_period;   /* bytes */
	uint32_t chunk;	       /* trace bytes per sink->aux call, about */
	uint64_t sample_id;    /* the identifier in every record's trailer */
	const char *vdso_path; /* write [vdso] here and name it in MMAP2 */
	qpt_log_fn log;
	void *log_ctx;
};

struct emu_trace_result {
	uint64_t insns; /* instructions retired in traced threads */
	uint64_t bytes; /* trace bytes generated */
	uint32_t threads;
	int exit_status;  /* of the command: exit code, or 128 + signal */
	bool exec_failed; /* the command could not be started */
};

/*
 * Run @argv to its end.  Returns 0, -errno (the exec error with
 * res->exec_failed set when the command does not start), or the first
 * error a sink callback returned.
 */
int emu_trace_run(char *const argv[], const struct emu_trace_opts *opts,
		  const struct emu_sink_ops *sink, void *sink_ctx,
		  struct emu_trace_result *res);

#endif
