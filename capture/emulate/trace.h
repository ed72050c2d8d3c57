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

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <linux/perf_event.h>

#include "capture/emulate/trigger.h"
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
	/* The bytes of the [vdso] mapped in process @pid and its build-id
	 * (@bid_len 0: none) (may be NULL): the code that MMAP2 records name
	 * "[vdso]" as the kernel does, with that build-id. */
	int (*vdso)(void *ctx, pid_t pid, const uint8_t *buf, size_t len,
		    const uint8_t *bid, size_t bid_len);
	/* Called every few thousand stops (may be NULL) with the count of
	 * instructions so far: snapshot requests, progress.  Returns 0 or
	 * an error that ends the run. */
	int (*poll)(void *ctx, uint64_t insns);
	/* Thread @tid is about to die of the fatal signal @si (one of
	 * emu_trace_opts.crash_signals, no handler): @regs at its delivery
	 * (rip: the faulting instruction, which does not retire), @insn the
	 * @insn_len bytes there (may be NULL).  The signal is delivered after
	 * the call returns 0. */
	int (*crash)(void *ctx, pid_t pid, pid_t tid, const siginfo_t *si,
		     const struct user_regs_struct *regs, const uint8_t *insn,
		     size_t insn_len);
	/* Thread @tid is about to run the instruction at the --snapshot-on
	 * address (@regs); every thread's packets so far are out. */
	int (*trigger)(void *ctx, pid_t pid, pid_t tid,
		       const struct user_regs_struct *regs);
};

/*
 * The ptrace requests and waits of the stepping loop, a seam for tests (a
 * host that swallows single-step traps is simulated over the real calls).
 * Each returns 0 (wait: the task id, 0 with WNOHANG when none) or -errno.
 */
struct emu_ptrace_ops {
	/* waitpid(-1, status, __WALL | flags) */
	pid_t (*wait)(void *ctx, int *status, int flags);
	/* PTRACE_SINGLESTEP delivering @sig (0: none) */
	int (*step)(void *ctx, pid_t tid, int sig);
	int (*getregs)(void *ctx, pid_t tid, struct user_regs_struct *regs);
	int (*getsiginfo)(void *ctx, pid_t tid, siginfo_t *si);
	/* PTRACE_PEEKDATA: 8 bytes at @addr */
	int (*peek)(void *ctx, pid_t tid, uint64_t addr, uint64_t *val);
	/* PTRACE_GETEVENTMSG (at an exec stop: the execing thread's former
	 * tid) */
	int (*eventmsg)(void *ctx, pid_t tid, unsigned long *msg);
	/* The breakpoint engine: PTRACE_SYSCALL delivering @sig (run to a
	 * breakpoint or the next system call), PTRACE_SETREGS and
	 * PTRACE_POKEDATA (8 bytes at @addr). */
	int (*cont)(void *ctx, pid_t tid, int sig);
	int (*setregs)(void *ctx, pid_t tid,
		       const struct user_regs_struct *regs);
	int (*poke)(void *ctx, pid_t tid, uint64_t addr, uint64_t val);
};

/* The real system calls (their ctx is unused). */
extern const struct emu_ptrace_ops emu_ptrace_sys;

struct emu_trace_opts {
	/* The single-step engine (the reference), not the breakpoint one
	 * that runs straight-line code natively and stops at branches. */
	bool step;
	/* Bind the tracing thread and the command to @cpu (-1: the CPU the
	 * run starts on) until emu_trace_free, which puts the tracing
	 * thread's affinity back. */
	bool bind;
	int cpu;
	bool no_aslr;
	bool inherit; /* follow fork/vfork children */
	bool retcomp;
	bool tsc, mtc, cyc;    /* timing packets (emu_pt_opts) */
	uint8_t mtc_period;    /* 0..15 */
	uint8_t cyc_thresh;    /* 0..15 */
	uint32_t psb_period;   /* bytes */
	uint32_t chunk;	       /* trace bytes per sink->aux call, about */
	uint64_t sample_id;    /* the identifier in every record's trailer */
	uint64_t crash_signals; /* bit (sig - 1): fatal ones go to sink->crash */
	struct emu_trigger *trigger; /* --snapshot-on addresses, or NULL */
	/* Polled between stops: non-zero (a signal number) asks to end the
	 * run: the signal goes on to the command, which gets stop_grace_ms
	 * (0: 2000) to end before every traced task is killed.  May be NULL. */
	volatile int *stop_request;
	uint32_t stop_grace_ms;
	const struct emu_ptrace_ops *ptrace; /* NULL: emu_ptrace_sys */
	void *ptrace_ctx;
	qpt_log_fn log;
	void *log_ctx;
};

struct emu_trace_result {
	uint64_t insns; /* instructions retired in traced threads */
	uint64_t bytes; /* trace bytes generated */
	uint32_t threads;
	int exit_status;  /* of the command: exit code, or 128 + signal */
	int term_signal;  /* the signal that killed the command, or 0 */
	int wait_status;  /* the command's wait status, -1 while it runs */
	bool exec_failed; /* the command could not be started */
	int bind_errno;	  /* it could not be bound to its CPU (errno) */
	uint64_t stops;	  /* ptrace stops of traced threads */
	uint64_t lost_traps; /* stops that came an instruction late or more
			      * (the single-step trap was swallowed) */
	uint64_t gaps;	     /* of those, where what ran was not known: an
			      * overflow (OVF) in the trace */
	uint64_t loops;	     /* loops run natively (emulate/loop.h) */
	uint64_t loop_trips; /* their whole trips: a stop saved for each
			      * conditional jump of each */
	const char *pt_error; /* the run failed in libipt's encoder: its
			       * message (static), else NULL */
};

struct emu_tracer;

/*
 * Start @argv traced, stopped at its exec (its sideband and first
 * instruction handed to @sink).  @opts, @sink_ctx and @res are borrowed
 * until emu_trace_free.  Returns 0, or -errno (the exec error with
 * res->exec_failed set when the command does not start); *@tr is to be
 * freed with emu_trace_free in either case.
 */
int emu_trace_start(char *const argv[], const struct emu_trace_opts *opts,
		    const struct emu_sink_ops *sink, void *sink_ctx,
		    struct emu_trace_result *res, struct emu_tracer **tr);
/*
 * Step the command's threads: returns 1 once every traced thread is gone,
 * 0 when CLOCK_MONOTONIC reaches @until_ns (0: no limit) or a signal
 * interrupts the wait for the next stop (a blocked command's wait lasts
 * until it stops or a signal comes), or an error (then the run is over).
 */
int emu_trace_continue(struct emu_tracer *tr, uint64_t until_ns);
/*
 * End the run as perf record ends its workload: @sig (0: SIGTERM) goes on
 * to the command, still traced; what has not ended stop_grace_ms later is
 * killed.  Returns when every thread is gone: 1, or an error.
 */
int emu_trace_end(struct emu_tracer *tr, int sig);
/* Every thread's staged trace bytes to the sink. */
int emu_trace_drain(struct emu_tracer *tr);
/*
 * Every thread's trace up to now to the sink (before a snapshot): the
 * threads that run natively are stopped first (emu_tr_interrupt) and what
 * they ran is told, other stops handled as they come, until
 * CLOCK_MONOTONIC reaches @until_ns.  Returns as emu_trace_continue.
 */
int emu_trace_quiesce(struct emu_tracer *tr, uint64_t until_ns);
/* The command's pid (0 before it was forked). */
pid_t emu_trace_child(const struct emu_tracer *tr);
/* Kill and reap whatever is still traced; free. */
void emu_trace_free(struct emu_tracer *tr);

/*
 * Run @argv to its end.  Returns 0, -errno (the exec error with
 * res->exec_failed set when the command does not start), or the first
 * error a sink callback returned.
 */
int emu_trace_run(char *const argv[], const struct emu_trace_opts *opts,
		  const struct emu_sink_ops *sink, void *sink_ctx,
		  struct emu_trace_result *res);

#endif
