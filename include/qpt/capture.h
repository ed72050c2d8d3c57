/* SPDX-License-Identifier: MIT */
/*
 * Capturing perf AUX-area traces (Intel PT, Intel BTS) and any other perf
 * event into perf.data: PMU discovery, event strings, and the recording
 * session the `qpt record` command drives.
 *
 * A recording has one source of its events: the PMUs of this machine
 * (perf_event_open and the kernel's rings), or the emulated Intel PT
 * source (QPT_SOURCE_EMULATE): the command runs single-stepped under
 * ptrace and qpt writes the Intel PT stream user-only tracing would have
 * made (PSB+, TIP.PGE/PGD, TNT, TIP with last-IP compression, FUP,
 * MODE.Exec, return compression, TSC/MTC/CYC as asked) with libipt's
 * encoder.  Its bytes go through a simulated kernel side of the AUX
 * interface (control page, data ring, AUX area with the kernel's rules),
 * one per traced thread as a per-thread mmap, and from there the same
 * ring consumer, snapshots and output as the hardware's, with Intel PT's
 * AUXTRACE_INFO: perf and libipt decode the file as a real recording.
 *
 * What marks a file as emulated: its event's name in EVENT_DESC is the
 * event as asked for with QPT_EMULATE_EVENT_MARK after it
 * ("intel_pt/cyc/u:qpt-emulated"), and the CMDLINE feature holds the qpt
 * command line.
 *
 * The emulated source's vDSO: MMAP2 names it "[vdso]" as the kernel does
 * and the BUILD_ID feature (HEADER_BUILD_ID in a pipe) holds its
 * build-id, as perf record writes them.  Its bytes go to OUTPUT.vdso
 * beside the output (qpt decode looks there; the pair can move together)
 * and, as perf record does, to the build-id cache (buildid_dir/[vdso]/
 * BUILD-ID/vdso with the .build-id/ link), where perf and qpt find them.
 */
#ifndef QPT_CAPTURE_H
#define QPT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a capture saw, summed over its rings.  AUX bytes are counted
 * unpadded.  Truncations are PERF_RECORD_AUX records with the TRUNCATED
 * flag: the trace source stopped because the AUX area was full, so trace
 * was lost there (the kernel does not say how many bytes).  Every byte the
 * trace source wrote into an AUX area (as its head tells) is captured,
 * overwritten or skipped: aux_bytes + aux_overwritten + aux_skipped (where
 * the head runs free; a head kept modulo the area's size, as Intel PT's
 * in snapshot mode, does not tell what was overwritten).
 */
struct qpt_capture_stats {
	uint64_t records;	   /* data-ring records handed on */
	uint64_t data_bytes;	   /* their bytes */
	uint64_t aux_bytes;	   /* AUX payload bytes captured */
	uint64_t aux_buffers;	   /* AUXTRACE records written */
	uint64_t aux_records;	   /* PERF_RECORD_AUX seen */
	uint64_t aux_record_bytes; /* sum of their aux_size */
	uint64_t aux_truncated;	   /* ... with PERF_AUX_FLAG_TRUNCATED */
	uint64_t aux_partial;	   /* ... with PERF_AUX_FLAG_PARTIAL */
	uint64_t aux_collision;	   /* ... with PERF_AUX_FLAG_COLLISION */
	uint64_t aux_overwrite;	   /* ... with PERF_AUX_FLAG_OVERWRITE */
	uint64_t itrace_start;	   /* PERF_RECORD_ITRACE_START seen */
	uint64_t lost_events;	   /* PERF_RECORD_LOST seen */
	uint64_t lost_records;	   /* sum of their lost counts */
	uint64_t lost_samples;	   /* sum of PERF_RECORD_LOST_SAMPLES */
	uint64_t snapshots;	   /* snapshots taken */
	uint64_t snapshot_wrapped; /* ... of an AUX area that had wrapped */
	uint64_t aux_overwritten;  /* snapshot mode: bytes written over
				    * between two snapshots (lost) */
	/* The emulated source only (0 otherwise): */
	uint64_t insns;	     /* instructions retired by traced threads */
	uint64_t threads;    /* threads traced */
	uint64_t lost_traps; /* single-step traps the host swallowed (the
			      * instructions were recovered) */
	uint64_t trace_gaps; /* where they could not be: OVF in the trace */
	uint64_t stops;	     /* ptrace stops of traced threads */
	uint64_t loops;	     /* loops the breakpoint engine ran natively */
	uint64_t loop_trips; /* their whole trips (told from a register) */
	/* Snapshot mode: bytes new since the previous snapshot that a
	 * snapshot left out, being smaller than them (its size, -S). */
	uint64_t aux_skipped;
};

/*
 * Events, as perf spells them:
 *   PMU/term,term=value,.../MODS   any PMU in sysfs by name, e.g.
 *       intel_pt/tsc,noretcomp=1,cyc,psb_period=3/u   or   intel_bts//
 *   NAME[:MODS]                    a hardware or software event by perf's
 *       name: cycles, instructions, branches, task-clock, cpu-clock,
 *       page-faults, context-switches, dummy, ...
 * Terms are the PMU's format files (a term without a value is 1), or
 * config, config1, config2, period, freq.  MODS: u (user), k (kernel),
 * h (hypervisor); naming some excludes the others.  An AUX-area tracer
 * known to this library (intel_pt, intel_bts) starts from perf's defaults
 * (intel_pt: pt, branch, tsc, mtc and psb_period as the caps allow).
 */
struct qpt_event;

struct qpt_event_opts {
	size_t size;		/* sizeof(struct qpt_event_opts) */
	const char *sysfs_root; /* NULL: /sys/bus/event_source/devices */
	char *errbuf;		/* if set: why parsing failed, one line */
	size_t errlen;
	/*
	 * Where sysfs has no intel_pt PMU, describe one as the Linux driver
	 * does (its format files: pt config:0, cyc config:1, mtc config:9,
	 * tsc config:10, noretcomp config:11, branch config:13, mtc_period
	 * config:14-17, cyc_thresh config:19-22, psb_period config:24-27...;
	 * no caps) with type @builtin_intel_pt_type, so that a source
	 * without the hardware (the emulated one) parses intel_pt/.../ into
	 * the config perf will read.  Defaults then the emulated source's:
	 * pt, branch, psb_period 3 and mtc_period 3 (MTC only when mtc is
	 * asked), no timing packets.
	 */
	bool builtin_intel_pt;
	uint32_t builtin_intel_pt_type;
};

/* Defaults into the caller's @size bytes (no byte past them; see qpt.h). */
QPT_API void qpt_event_opts_init_sized(struct qpt_event_opts *opts,
				       size_t size);
static inline void qpt_event_opts_init(struct qpt_event_opts *opts)
{
	qpt_event_opts_init_sized(opts, sizeof(*opts));
}

/*
 * Parse @str into *@event (free with qpt_event_free).  @opts may be NULL
 * for defaults; an older (smaller) struct gets the defaults of what it
 * lacks.  Returns 0, -QPT_E_NOPMU (the PMU is not on this machine; errbuf
 * names it), -QPT_E_INVAL (syntax, unknown term or event, value too
 * large: errbuf says which; an @opts smaller than the first version's or
 * with bytes set past what this version knows), -QPT_E_FORMAT (a sysfs
 * file that does not parse), -ENOMEM.
 */
QPT_API int qpt_event_parse(const char *str, const struct qpt_event_opts *opts,
			    struct qpt_event **event);
QPT_API void qpt_event_free(struct qpt_event *event);

/* The perf_event_attr the event string gives (type, config*, exclude_*,
 * sample period or frequency); borrowed from @event. */
QPT_API const struct perf_event_attr *
qpt_event_attr(const struct qpt_event *event);
/* The PMU's name ("intel_pt", "software", "hardware", ...); borrowed. */
QPT_API const char *qpt_event_pmu(const struct qpt_event *event);
/* The event string as it was asked for ("intel_pt/cyc/u"); borrowed. */
QPT_API const char *qpt_event_string(const struct qpt_event *event);
/* Whether the event writes an AUX area (a known AUX-area tracer). */
QPT_API bool qpt_event_is_aux(const struct qpt_event *event);

/* Where a recording's events come from. */
enum qpt_source {
	QPT_SOURCE_PMU = 0,	/* this machine's PMUs (perf_event_open) */
	QPT_SOURCE_EMULATE = 1, /* the emulated Intel PT source */
	QPT_SOURCE_QEMU = 2,	/* the emulated Intel PT of QEMU user mode */
};

#define QPT_EMULATE_EVENT_MARK ":qpt-emulated"
/* The PERF_TYPE the emulated Intel PT event carries (priv[0] too). */
#define QPT_EMULATE_PMU_TYPE 8
/*
 * The intel_pt config bits the emulated source honours (the Linux
 * driver's format): pt (0), cyc (1), mtc (9), tsc (10), noretcomp (11),
 * branch (13), mtc_period (14-17), cyc_thresh (19-22), psb_period
 * (24-27).  pt and branch must be set.  TSC packets come from the host
 * clock (CLOCK_MONOTONIC ns: AUXTRACE_INFO has time_mult 1, time_shift
 * 0); MTC from a 25 MHz crystal derived from it (TSC:CTC 40/1); CYC
 * counts TSC ticks (the core at the max non-turbo ratio 10).
 */
#define QPT_EMULATE_CONFIG_MASK 0x0f7bee03ULL

/*
 * A recording session: perf events on a command, a process or CPUs, their
 * rings drained into a perf.data file (through the auxfmt writer).
 *
 * Targets (one of):
 *   @argv      run this command: forked, held until qpt_recorder_start,
 *              then exec'd with the events enabled on exec; per-CPU rings
 *              with inheritance (perf's default);
 *   @pid       a running process: every thread, per-CPU rings;
 *   @all_cpus  every CPU (-a); @cpu_list "0-3,5" (-C) some.
 *   @per_thread: one ring per thread instead (no inheritance).
 * Events: @events (@nr_events strings, qpt_event_parse syntax); none: the
 * default "intel_pt//" (which fails with -QPT_E_NOPMU without the PMU).
 * At most one AUX-area event.  A dummy event carries the sideband (mmap2,
 * comm, task, context switches) into the same rings.
 *
 * The emulated source (@source QPT_SOURCE_EMULATE) runs @argv only (no
 * @pid, CPUs or per-thread choice: it is per thread), with one event,
 * intel_pt/.../u (parsed as the Linux driver's PMU where sysfs has none;
 * config bits QPT_EMULATE_CONFIG_MASK); its rings default to 128 data
 * and 1024 AUX pages; the command's threads each get one.
 */
struct qpt_recorder_opts {
	size_t size;	    /* sizeof(struct qpt_recorder_opts) */
	const char *output; /* perf.data path, "-": pipe to stdout */
	const char *const *events;
	size_t nr_events;
	const char *sysfs_root; /* NULL: the real sysfs */
	char *const *argv;	/* the command, NULL-terminated */
	int pid;		/* 0: none */
	bool all_cpus;
	const char *cpu_list;
	bool per_thread;
	uint64_t data_pages;	/* data ring pages, power of 2; 0: perf's */
	uint64_t aux_pages;	/* AUX pages, power of 2; 0: perf's */
	bool snapshot;		/* AUX in snapshot (overwrite) mode */
	uint64_t snapshot_size; /* bytes per snapshot; 0: the whole area */
	uint64_t sample_period; /* -c for sampling events; 0: none */
	uint64_t sample_freq;	/* -F; 0: perf's 4000 unless -c */
	int compress;		/* zstd level for the writer; 0: off */
	int cmd_argc;		/* the command line for CMDLINE */
	char *const *cmd_argv;
	qpt_log_fn log;
	void *log_ctx;
	char *errbuf; /* one line about the last failure */
	size_t errlen;
	/*
	 * Read when the recording ends before the command (qpt_recorder_stop
	 * with the command running): a signal number to pass on to it (0:
	 * SIGTERM); what has not ended stop_grace_ms later (0: 2000) is
	 * killed.  The emulated source also polls it while it steps, so a
	 * caller's signal handler that sets it ends the run.  The library
	 * installs no signal handler.  May be NULL.
	 */
	volatile int *stop_request;
	uint32_t stop_grace_ms;
	enum qpt_source source;
	/* The emulated source (QPT_SOURCE_EMULATE) only: */
	bool inherit;		 /* follow fork/vfork children */
	bool aslr;		 /* keep ASLR (default: personality
				  * ADDR_NO_RANDOMIZE, as the tests need) */
	const char *buildid_dir; /* the build-id cache for the vDSO's bytes
				  * (perf's ~/.debug); NULL: none */
	/* Crash facts (qpt/crash.h): a traced thread about to die of one of
	 * these signals (bit sig - 1; 0: SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	 * SIGABRT, SIGSYS, SIGTRAP) without a handler is recorded (signal,
	 * si_code, address, thread, registers, the faulting bytes) before
	 * the signal is delivered as usual.  Not in pipe mode.  The PMU
	 * source watches @argv's command or @pid's process for them in
	 * snapshot mode, or when this is set: its threads under
	 * PTRACE_SEIZE (no stepping; threads they create followed), each
	 * AUX area snapshotted at a fatal signal while the thread is held,
	 * every other stop passed on; a process that cannot be traced is
	 * recorded without (a QPT_LOG_WARN).  The command's status, its
	 * group-stops and signals are as without the watch. */
	uint64_t crash_signals;
	/* "SYMBOL[+OFF]" (snapshot mode): a snapshot each time a traced
	 * thread reaches that address, recorded as a trigger in the crash
	 * facts.  The emulated source looks it up in the ELF symbols of the
	 * mapped files (again at each exec) and snapshots at the address.
	 * The PMU source (a command or @pid only) looks it up in the
	 * executable alone (not its shared libraries) and opens a uprobe
	 * there (the uprobe PMU: file and offset, through fork and exec) on
	 * every target; each of its samples drained is a trigger and one
	 * snapshot, taken shortly after the hit (the trace runs a little
	 * past it).  qpt_recorder_new fails with -QPT_E_INVAL when the
	 * symbol is not found, -QPT_E_NOPMU without the uprobe PMU.  NULL:
	 * none. */
	const char *snapshot_on;
	/* Single-step every instruction (the reference engine) instead of
	 * running straight-line code natively and stopping at branches. */
	bool emulate_step;
	/* The CPU the command (its threads and children) and the tracing
	 * thread are bound to while the recording runs, as rr does: a ptrace
	 * stop whose two sides run on different CPUs costs several times
	 * more (in VMs most).  The command sees that affinity.
	 * QPT_CPU_HERE (the default): the CPU the caller is on when the
	 * recording starts; QPT_CPU_UNBOUND: none.  The tracing thread's
	 * own affinity is put back at qpt_recorder_free. */
	int emulate_cpu;
	/*
	 * The emulated Intel PT at translation speed (QPT_SOURCE_QEMU): the
	 * command runs under QEMU's user mode (@qemu: its qemu-x86_64; NULL:
	 * the one on PATH) with qpt's plugin (@qemu_plugin: its file; NULL:
	 * the installed one), which writes the trace and sideband into
	 * rings this process drains.  Its options are the emulated
	 * source's (@aslr, snapshots, --snapshot-on); the command's threads
	 * and forked children each have their own ring, exec ends a
	 * process's trace (QEMU runs the new program natively).
	 */
	const char *qemu;
	const char *qemu_plugin;
};

#define QPT_CPU_HERE (-1)
#define QPT_CPU_UNBOUND (-2)

/* Defaults into the caller's @size bytes (no byte past them; see qpt.h). */
QPT_API void qpt_recorder_opts_init_sized(struct qpt_recorder_opts *opts,
					  size_t size);
static inline void qpt_recorder_opts_init(struct qpt_recorder_opts *opts)
{
	qpt_recorder_opts_init_sized(opts, sizeof(*opts));
}

struct qpt_recorder;

/*
 * Parse the events, fork the command (held), open and map the events,
 * create the output and write its attrs, AUXTRACE_INFO, TIME_CONV and the
 * synthesized sideband (MMAP2 of every executable mapping, COMM) of the
 * targets.  The emulated source: check the options, create the output and
 * write its attr and AUXTRACE_INFO (the command starts at
 * qpt_recorder_start, traced).  Returns 0 and *@rec, or: -QPT_E_NOPMU (errbuf names the PMU),
 * -QPT_E_INVAL (options, events), -EACCES/-EPERM (perf_event_paranoid),
 * -EBUSY, -ENOMEM / -EPERM from mmap (perf_event_mlock_kb), -ENOENT /
 * -EOPNOTSUPP (the event does not exist here), -ESRCH (no such process),
 * -errno from the output.  errbuf has a one-line explanation.
 */
QPT_API int qpt_recorder_new(const struct qpt_recorder_opts *opts,
			     struct qpt_recorder **rec);

/*
 * Let the command exec (or enable the events for -p/-a).  Returns 0, or
 * the exec's -errno (qpt_recorder_exec_failed() is then true: a bad
 * command, exit 127 like a shell), or for the emulated source -EPERM /
 * -EACCES when ptrace is not allowed.
 */
QPT_API int qpt_recorder_start(struct qpt_recorder *rec);
QPT_API bool qpt_recorder_exec_failed(const struct qpt_recorder *rec);

/*
 * Wait up to @timeout_ms for data (poll, returns early on a signal), drain
 * every ring.  The emulated source steps the command for up to
 * @timeout_ms instead (returning early on a signal; while every traced
 * thread is blocked in the kernel it waits for one to stop).  The PMU
 * source watching for crashes (crash_signals) handles its targets' stops
 * first and waits at most 10 ms for data (a stop holds its thread until
 * handled; a caller's SIGCHLD handler ends the wait at once).  Returns 1
 * when the command has exited (or every traced thread is gone), 0
 * otherwise, or -errno (output error, e.g. -ENOSPC; the emulated source:
 * ptrace's errors, -QPT_E_* from the Intel PT encoder).
 */
QPT_API int qpt_recorder_poll(struct qpt_recorder *rec, int timeout_ms);

/* Snapshot mode: take a snapshot of every AUX area now.  Returns the bytes
 * written or an error; -QPT_E_STATE when not in snapshot mode. */
QPT_API int64_t qpt_recorder_snapshot(struct qpt_recorder *rec);

/*
 * Finish: disable the events, drain (and in snapshot mode, take the final
 * snapshot), add the build-ids of the mapped files, close the output.  A
 * command still running is ended as perf record ends its workload: the
 * signal in *stop_request (0 or none: SIGTERM) goes on to it and what has
 * not ended stop_grace_ms later is killed (the emulated source traces it
 * until then; the hardware's events are disabled first).  Its wait
 * status is then qpt_recorder_status.  Returns 0 or the first error; the
 * file is readable in either case.
 */
QPT_API int qpt_recorder_stop(struct qpt_recorder *rec);

/* The command's pid (0 without one) and, once it exited, its wait status
 * (-1 while it runs). */
QPT_API int qpt_recorder_pid(const struct qpt_recorder *rec);
QPT_API int qpt_recorder_status(const struct qpt_recorder *rec);

/* Counters so far, summed over the rings, into the caller's @stats of
 * @size bytes (see qpt.h: sized outputs).  Returns 0 or -QPT_E_INVAL (no
 * recorder or stats, a size too small). */
QPT_API int qpt_recorder_stats_sized(const struct qpt_recorder *rec,
				     struct qpt_capture_stats *stats,
				     size_t size);
static inline int qpt_recorder_stats(const struct qpt_recorder *rec,
				     struct qpt_capture_stats *stats)
{
	return qpt_recorder_stats_sized(rec, stats, sizeof(*stats));
}
/* Bytes written to the output. */
QPT_API uint64_t qpt_recorder_output_bytes(const struct qpt_recorder *rec);

/* Free; kills (SIGKILL) and reaps a command that never started. */
QPT_API void qpt_recorder_free(struct qpt_recorder *rec);

#ifdef __cplusplus
}
#endif

#endif /* QPT_CAPTURE_H */
