/* SPDX-License-Identifier: MIT */
/*
 * Inside the ptrace engine: the tracer and its threads, shared by the
 * stepping loop (emulate/trace.c) and the breakpoint engine that runs
 * blocks natively between stops (emulate/run.c).
 */
#ifndef QPT_CAPTURE_EMU_TRACE_PRIV_H
#define QPT_CAPTURE_EMU_TRACE_PRIV_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "capture/emulate/fast.h"
#include "capture/emulate/insn.h"
#include "capture/emulate/loop.h"
#include "capture/emulate/proc.h"
#include "capture/emulate/pt.h"
#include "capture/emulate/sideband.h"
#include "capture/emulate/trace.h"

struct emu_thread {
	pid_t tid, pid;
	struct emu_tracer *tr;
	struct emu_pt *pt;
	struct emu_proc *proc; /* shared by the process's threads */
	bool have_prev;	       /* prev, at prev_ip, runs next */
	bool leader;	       /* owns proc */
	bool expect_known;
	bool killed;
	bool interrupted; /* a SIGSTOP of the tracer's on its way (its stop
			   * tells what ran; the signal is not delivered) */
	bool silent; /* traced only to keep breakpoints from it (a vfork
		      * child not followed): nothing of it is recorded */
	uint64_t prev_ip;
	uint64_t expect; /* where prev goes (expect_known) */
	struct emu_insn prev;
	int inject;
	/* The breakpoint engine: */
	struct user_regs_struct regs; /* at prev_ip (as emulated) */
	bool regs_dirty;	      /* regs to be written back */
	struct emu_block *run;	      /* runs natively from its entry */
	struct emu_block *way[2];     /* and on, where run's end has no
				       * breakpoint (emu_fast_ways) */
	uint64_t lifted;	      /* a breakpoint taken out for a step */
	struct emu_loop loop;	      /* runs natively (loop.plan set) */
	struct emu_hops hops;	      /* the jumps before this stop */
	struct emu_thread *next;
};

struct emu_tracer {
	const struct emu_trace_opts *opts;
	const struct emu_ptrace_ops *ops;
	void *ops_ctx;
	struct emu_sb sb;
	struct emu_thread *threads;
	struct emu_trace_result *res;
	pid_t child;
	bool child_gone;
	bool fast;	   /* the breakpoint engine (not opts->step) */
	int stopping;	   /* the stop request seen (a signal), or 0 */
	uint64_t deadline; /* stopping: kill what is left from then (ns) */
	uint64_t asked;	   /* when a stop request was first seen (ns), 0 */
	unsigned int interrupts; /* threads interrupted, their stop to come */
	bool quiesce;		 /* the loop ends once none is to come */
	unsigned int stops;
	/* New tasks announced by their parent's event, not seen yet: no
	 * loop runs natively meanwhile (the new task may share its memory).
	 * no_loops: a new task could not be told (never again). */
	cpu_set_t affinity; /* the tracing thread's, to put back (bound) */
	bool bound;
	pid_t *unborn;
	size_t nr_unborn, unborn_cap;
	bool no_loops;
	bool done; /* every thread gone, or an error ended the run */
};

/* NR_* for emu_tr_retire's @nr */
#define NR_UNKNOWN (-1L) /* not known: read the maps again */
#define NR_NONE (-2L)	 /* they are read anyway or no longer matter */

/* trace.c */
void emu_tr_log(struct emu_tracer *tr, enum qpt_log_level lvl, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
/* The process state of @pid (any of its threads'), or NULL. */
struct emu_proc *emu_tr_find_proc(struct emu_tracer *tr, pid_t pid);
int emu_tr_insn_at(struct emu_thread *t, uint64_t ip, struct emu_insn *insn);
int emu_tr_retire(struct emu_thread *t, uint64_t ip,
		  const struct emu_insn *insn, uint64_t next, long nr);
/* The thread is at @regs->rip, which runs next: prev set, the
 * --snapshot-on trigger checked. */
int emu_tr_at(struct emu_thread *t, const struct user_regs_struct *regs);
/* Where prev goes from @regs (before it is stepped). */
void emu_tr_predict(struct emu_thread *t, const struct user_regs_struct *regs);
int emu_tr_step(struct emu_thread *t);
/* Whether @t is the only thread in its address space, with no new task on
 * its way (a loop may run natively). */
bool emu_tr_alone(const struct emu_thread *t);

/* stop.c */
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t emu_tr_now_ns(void);
/* The run is asked to end with the signal tr->stopping. */
void emu_tr_stop_begin(struct emu_tracer *tr);
/* A stop request seen; past the deadline, what is left killed. */
void emu_tr_stop_check(struct emu_tracer *tr);
/* The next stop (the wait op's result); while stopping, without
 * blocking past the deadline (0: none yet); while a loop runs natively,
 * interrupting it once its slice is over (emu_tr_interrupt). */
pid_t emu_tr_next_stop(struct emu_tracer *tr, int *status);
/* Whether what is left to tell must be cut short (a gap in the trace): a
 * stop request was seen more than EMU_TELL_NS ago. */
bool emu_tr_hurry(struct emu_tracer *tr);
/* Stop @t wherever it runs natively (a SIGSTOP it is not given): its stop
 * retires what it ran, and it goes on. */
void emu_tr_interrupt(struct emu_thread *t);
/* The stop of an interrupted thread came, or the thread went. */
void emu_tr_interrupted(struct emu_thread *t);

/* maps.c: the maps read again (@reset: a new image), new executable
 * mappings announced, code gone dropped from the caches. */
int emu_tr_scan_maps(struct emu_thread *t, bool reset);

/* run.c: the breakpoint engine */
/* The process of @t has a new address space (exec), with no breakpoint
 * in it. */
int emu_run_new_space(struct emu_thread *t);
/* The new process @t, child of @ppid: its address space's breakpoints
 * (shared with a vfork parent, copied with a fork); 1 when it is a fork
 * not followed, its breakpoints taken out, to be let go untraced. */
int emu_run_fork(struct emu_tracer *tr, struct emu_thread *t, pid_t ppid);
/* Resume @t (prev set, nothing to inject): natively to the end of the
 * block at prev_ip, through branches it emulates, or a step. */
int emu_run_resume(struct emu_thread *t);
/*
 * @t, running a block, stopped (@sig, 0x80 for a system call stop) at
 * @regs: what ran is retired.  *@done when the stop was the block's end
 * (the thread is then at its next instruction, prev set); otherwise the
 * thread is where @regs says, prev set there, for the stop's own handling.
 */
int emu_run_stop(struct emu_thread *t, int sig, struct user_regs_struct *regs,
		 bool *done);
/* Step prev, its breakpoint lifted first where one is planted there (a
 * branch that must run for real, a signal delivered there). */
int emu_run_step(struct emu_thread *t);
/* After a step of @t: a breakpoint lifted for it goes back. */
int emu_run_stepped(struct emu_thread *t);
/* The thread's code as the block builder reads it. */
void emu_run_code(struct emu_thread *t, struct emu_code *c);
/* The first @k instructions of @b's path ran. */
int emu_run_path(struct emu_thread *t, const struct emu_block *b, uint32_t k);
/* Resume @t natively (its registers written back first). */
int emu_run_go(struct emu_thread *t);
/* The blocks @t runs are no longer its own (gone, or a new address
 * space). */
void emu_run_drop(struct emu_thread *t);
/* Whether @t runs natively (a block or a loop): its stops are
 * emu_run_stop's. */
static inline bool emu_run_native(const struct emu_thread *t)
{
	return t->run || t->loop.plan;
}

#endif
