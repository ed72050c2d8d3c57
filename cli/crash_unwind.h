/* SPDX-License-Identifier: MIT */
/*
 * qpt crash's second opinion: the crashed thread's stack unwound from the
 * copy the recording kept (its registers and the bytes from rsp up) with
 * elfutils' libdwfl and the files' CFI (.eh_frame, .debug_frame), as a
 * debugger unwinds a core, and where it disagrees with the stack rebuilt
 * from the trace.
 */
#ifndef QPT_CLI_CRASH_UNWIND_H
#define QPT_CLI_CRASH_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/crash_syms.h"
#include "qpt/crash.h"

#define CRASH_UNWIND_MAX 256

/* Why the unwind stopped. */
enum crash_unwind_end {
	CRASH_UNWIND_DONE,     /* the outermost frame (no caller in its CFI) */
	CRASH_UNWIND_NO_STACK, /* no byte at rsp was kept (a stack overflow?) */
	CRASH_UNWIND_COPY_END, /* it read past the bytes kept */
	CRASH_UNWIND_NO_CODE,  /* a return address in no file mapped: the
				* stack was overwritten */
	CRASH_UNWIND_NO_CFI,   /* no CFI for a frame's code */
	CRASH_UNWIND_MAXED,    /* CRASH_UNWIND_MAX frames */
};

struct crash_unwound {
	size_t nr;
	/* Each frame's pc: the faulting instruction, then return addresses
	 * (their symbol is that of pc - 1). */
	uint64_t pc[CRASH_UNWIND_MAX];
	/* pc is where the frame was interrupted (the faulting instruction,
	 * below a signal frame), not a return address */
	bool activation[CRASH_UNWIND_MAX];
	enum crash_unwind_end end;
	bool done; /* an unwind was made (the stack was kept) */
};

/* Unwind @c's stack copy over @s's files (the crashed process's). */
void crash_unwind(struct crash_syms *s, const struct qpt_crash *c,
		  struct crash_unwound *u);

/* What @end says, in words. */
const char *crash_unwind_end_text(enum crash_unwind_end end);

#endif
