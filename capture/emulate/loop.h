/* SPDX-License-Identifier: MIT */
/*
 * The breakpoint engine's loops: a cycle of blocks (emulate/fast.h), each
 * ending in a conditional jump that either stays in the cycle or leaves
 * it, run natively from trip to trip with no stop at the jumps.  What ran
 * is told afterwards by an induction register: one the cycle writes only
 * by adding a constant, once per trip, so that its change counts the
 * trips.  The thread stops where it leaves (a breakpoint on each way out)
 * or where a signal stops it; every trip is then retired as if each jump
 * had stopped it.
 *
 * A loop runs so only while its thread is the only one in its address
 * space (the jumps' breakpoints are taken out for it) and no new task is
 * on its way into the trace.
 */
#ifndef QPT_CAPTURE_EMU_LOOP_H
#define QPT_CAPTURE_EMU_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#define EMU_LOOP_BLOCKS 4 /* blocks in a cycle */
#define EMU_LOOP_INSNS 256 /* instructions in a cycle */

struct emu_thread;
struct emu_block;

/* A cycle found in the code, kept with its first block. */
struct emu_loop_plan {
	unsigned int m; /* blocks */
	uint64_t entry[EMU_LOOP_BLOCKS];
	uint64_t jcc[EMU_LOOP_BLOCKS];	/* each block's end */
	uint64_t stay[EMU_LOOP_BLOCKS]; /* where it stays: the next entry */
	uint64_t exit[EMU_LOOP_BLOCKS]; /* where it leaves */
	int reg;			/* the induction register (0..15) */
	int64_t step;			/* added to it each trip */
	unsigned int ub, ui; /* the step: instruction ui of block ub */
	/* How it pays: runs and their whole trips (both halved now and
	 * then), and the chances skipped since the last run. */
	uint32_t runs, trips, skipped;
};

/* A thread running a loop natively. */
struct emu_loop {
	struct emu_loop_plan *plan; /* b[0]'s */
	struct emu_block *b[EMU_LOOP_BLOCKS];	/* references */
	bool ours[EMU_LOOP_BLOCKS]; /* exit's breakpoint is the loop's */
	bool lifted[EMU_LOOP_BLOCKS]; /* the jump's was planted (some run
				       * natively: emu_fast_ways) */
	uint64_t start; /* the induction register at b[0]'s entry */
	uint64_t until; /* CLOCK_MONOTONIC ns: then its trips so far are told
			 * (the thread interrupted), so that what is left to
			 * tell stays short */
};

/* How long a loop runs natively before its trips so far are told. */
#define EMU_LOOP_SLICE_NS 20000000ULL

/* The conditional jumps a thread went through in a row, newest last. */
struct emu_hops {
	uint64_t jcc[2 * EMU_LOOP_BLOCKS], to[2 * EMU_LOOP_BLOCKS];
	unsigned int n;
};

/* The conditional jump at @jcc went to @to (emulated at its stop). */
void emu_loop_hop(struct emu_hops *h, uint64_t jcc, uint64_t to);
/* Something else ran: no cycle continues over it. */
static inline void emu_loop_forget(struct emu_hops *h)
{
	h->n = 0;
}

/*
 * @t is at the entry its last hop went to (registers in t->regs, to be
 * written back): where the hops close a cycle that can run natively,
 * start it.  1 when the thread runs it, 0 when not, or an error.
 */
int emu_loop_try(struct emu_thread *t);

/*
 * @t, running a loop, stopped (@sig as emu_run_stop's) at @regs: every
 * trip it made is retired and the breakpoints are as before the loop.
 * *@left when it stopped at a way out's breakpoint: the jump that left is
 * retired and the thread is there (prev set).  A signal that stopped it
 * at a way out before that breakpoint ran: the jump is retired too, and
 * t->run is NULL (nothing more to retire).  Otherwise t->run is the block
 * it stopped in, whose path up to @regs->rip is for emu_run_stop to
 * retire.  0 or an error.
 */
int emu_loop_stop(struct emu_thread *t, int sig,
		  struct user_regs_struct *regs, bool *left);

/* The thread is gone: its references dropped (its address space went
 * with it: no breakpoint is put back). */
void emu_loop_drop(struct emu_thread *t);

#endif
