/* SPDX-License-Identifier: MIT */
/* qpt crash's report: text, or one JSON object. */
#ifndef QPT_CLI_CRASH_PRINT_H
#define QPT_CLI_CRASH_PRINT_H

#include <stdbool.h>

#include "cli/crash_syms.h"
#include "cli/crash_unwind.h"
#include "cli/out.h"
#include "qpt/crash.h"
#include "qpt/crash_walk.h"

/* A thread of the walk: its index there and its summary. */
struct crash_thr {
	size_t i;
	struct qpt_crash_thread t;
};

struct crash_view {
	const struct qpt_crash_walk *walk;
	const struct qpt_crash *c;  /* the fatal signal */
	const struct crash_thr *t;  /* its thread in the walk, or NULL */
	const char *comm;	    /* the program's name, or "" */
	bool all_threads;
	unsigned insns;		    /* instructions to show */
	struct crash_syms *syms;    /* any address's symbol, file:line */
	const struct crash_unwound *unw; /* the stack copy unwound */
};

void crash_print_text(const struct crash_view *v, struct out *w);
void crash_print_json(const struct crash_view *v, struct out *w);

#endif
