/* SPDX-License-Identifier: MIT */
/*
 * The emulated Intel PT source: a command runs single-stepped under
 * ptrace and qpt writes the Intel PT stream user-only tracing would have
 * made (PSB+, TIP.PGE/PGD, TNT, TIP with last-IP compression, FUP,
 * MODE.Exec, return compression) with libipt's encoder.  The bytes go
 * through a simulated kernel side of the AUX interface (control page, data
 * ring, AUX area with the kernel's rules) and the same ring consumer as the
 * hardware path into perf.data, with Intel PT's AUXTRACE_INFO, so perf and
 * libipt decode the file as a real recording.
 *
 * What marks a file as emulated: its event is named QPT_EMULATE_EVENT_NAME
 * in EVENT_DESC, and the CMDLINE feature holds the qpt command line.
 *
 * The vDSO: MMAP2 names it "[vdso]" as the kernel does and the BUILD_ID
 * feature (HEADER_BUILD_ID in a pipe) holds its build-id, as perf record
 * writes them.  Its bytes go to OUTPUT.vdso beside the output (qpt decode
 * looks there; the pair can move together) and, as perf record does, to
 * the build-id cache (buildid_dir/[vdso]/BUILD-ID/vdso with the
 * .build-id/ link), where perf and qpt find them by build-id.
 */
#ifndef QPT_EMULATE_H
#define QPT_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"
#include "qpt/capture.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QPT_EMULATE_EVENT_NAME "intel_pt//u:qpt-emulated"
/* The PERF_TYPE the emulated Intel PT event carries (priv[0] too). */
#define QPT_EMULATE_PMU_TYPE 8

struct qpt_emulate_opts {
	size_t size;		/* sizeof(struct qpt_emulate_opts) */
	const char *output;	/* perf.data path ("-": stdout, pipe mode) */
	char *const *argv;	/* the command, NULL-terminated */
	bool aslr;		/* keep ASLR (default: personality
				 * ADDR_NO_RANDOMIZE, as the tests need) */
	bool inherit;		/* follow fork/vfork children */
	bool noretcomp;		/* no return compression */
	bool tsc;		/* TSC packets (PSB+, TIP.PGE) from the host
				 * clock: CLOCK_MONOTONIC ns, so AUXTRACE_INFO
				 * has time_mult 1, time_shift 0, time_zero 0 */
	bool mtc;		/* MTC packets (and TMA after each TSC) from
				 * a 25 MHz crystal clock derived from the
				 * host clock: TSC:CTC ratio 40/1 */
	uint32_t mtc_period;	/* intel_pt mtc_period term: MTC when CTC bit
				 * n changes; 0..15, default 3 as perf */
	bool cyc;		/* CYC packets (cycles = TSC ticks: the core
				 * runs at the max non-turbo ratio 10, CBR in
				 * PSB+) */
	uint32_t cyc_thresh;	/* intel_pt cyc_thresh term: CYC for at
				 * least 2^(n-1) cycles; 0..15, default 0 */
	uint32_t psb_period;	/* intel_pt psb_period term: PSB every
				 * 2^(n+11) bytes; default 3 as perf */
	uint64_t data_pages;	/* data ring pages, power of 2; 0: 128 */
	uint64_t aux_pages;	/* AUX pages, power of 2; 0: 1024 */
	bool snapshot;		/* AUX in overwrite mode, snapshots on
				 * request and at each thread's end */
	uint64_t snapshot_size; /* bytes per snapshot; 0: whole area */
	/* Polled while running: non-zero asks for a snapshot (the library
	 * clears it).  May be NULL. */
	volatile int *snapshot_request;
	/* Polled while running: non-zero (a signal number) asks to end the
	 * run as perf record ends its workload: the signal goes on to the
	 * command, still traced; what has not ended stop_grace_ms later (0:
	 * 2000) is killed, and every thread's trace ends at its exit.  The
	 * library installs no signal handler: the caller's sets this.  May
	 * be NULL. */
	volatile int *stop_request;
	uint32_t stop_grace_ms;
	/* The build-id cache to put the vDSO's bytes in (perf's ~/.debug);
	 * NULL: none. */
	const char *buildid_dir;
	/* Called now and then with the instructions traced so far (may be
	 * NULL), e.g. to show progress. */
	void (*progress)(uint64_t insns, void *ctx);
	void *progress_ctx;
	int compress; /* zstd level for the writer; 0: off */
	int cmd_argc; /* the command line for CMDLINE */
	char *const *cmd_argv;
	qpt_log_fn log;
	void *log_ctx;
	char *errbuf; /* one line about the last failure */
	size_t errlen;
	/* Crash facts (qpt/crash.h): a traced thread about to die of one of
	 * these signals (bit sig - 1; 0: SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	 * SIGABRT, SIGSYS, SIGTRAP) without a handler is recorded (signal,
	 * si_code, address, thread, registers, the faulting bytes) before
	 * the signal is delivered as usual.  Not in pipe mode. */
	uint64_t crash_signals;
	/* "SYMBOL[+OFF]" (snapshot mode): a snapshot each time a traced
	 * thread reaches that address (looked up in the ELF symbols of the
	 * mapped files, again at each exec), recorded as a trigger in the
	 * crash facts.  NULL: none. */
	const char *snapshot_on;
};

QPT_API void qpt_emulate_opts_init(struct qpt_emulate_opts *opts);

struct qpt_emulate_result {
	uint64_t insns;	       /* instructions retired by traced threads */
	uint64_t trace_bytes;  /* Intel PT bytes generated */
	uint32_t threads;      /* threads traced */
	int exit_status;       /* command: exit code, or 128 + signal */
	int term_signal;       /* the signal that killed it, or 0 */
	bool exec_failed;      /* the command could not be started */
	uint64_t lost_traps;   /* single-step traps the host swallowed (the
				* instructions were recovered) */
	uint64_t gaps;	       /* where they could not be: OVF in the trace */
	uint64_t output_bytes; /* written to the output */
	struct qpt_capture_stats capture; /* as the consumer saw it */
};

/*
 * Run the command to its end under emulation and write the recording.
 * Blocks until every traced thread is gone.  Returns 0 (the command may
 * have failed or died: see res->exit_status; the file is complete up to
 * its death), -QPT_E_INVAL (options), -ENOENT/-EACCES/... with
 * res->exec_failed when the command does not start (no output is left),
 * -errno from ptrace or the output.  errbuf says what failed.
 */
QPT_API int qpt_emulate_record(const struct qpt_emulate_opts *opts,
			       struct qpt_emulate_result *res);

#ifdef __cplusplus
}
#endif

#endif /* QPT_EMULATE_H */
