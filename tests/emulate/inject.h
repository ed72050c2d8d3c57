/* SPDX-License-Identifier: MIT */
/*
 * The engine's ptrace seam over a simulated host that swallows single-step
 * traps: the trap after each instruction of the chosen kinds (gt_x86.h)
 * never comes; the thread runs on to the next one (and with @twice, past
 * a direct call or a Jcc after it too; after a Jcc what ran cannot be
 * told).
 */
#ifndef QPT_TESTS_INJECT_H
#define QPT_TESTS_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/emulate/trace.h"

#define INJECT_THREADS 64

struct inject_thread {
	int tid;
	bool traced; /* the engine knows what it steps: it last stopped
		      * after a step */
	int swallow; /* 1: the next trap; 2: it, the second after first */
	uint64_t first;
};

struct inject {
	int kinds;  /* mask of 1 << enum gt_kind */
	bool twice; /* also the trap after a call or Jcc that follows */
	struct inject_thread t[INJECT_THREADS];
	int nt;
	unsigned long swallowed; /* traps swallowed */
	unsigned long twice_n;	 /* of those, the second of two in a row
				  * after a Jcc: gaps in the trace */
};

/* The ops; their ctx is a struct inject. */
extern const struct emu_ptrace_ops inject_ops;

#endif
