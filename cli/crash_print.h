/* SPDX-License-Identifier: MIT */
/* qpt crash's report: text, or one JSON object. */
#ifndef QPT_CLI_CRASH_PRINT_H
#define QPT_CLI_CRASH_PRINT_H

#include <stdbool.h>

#include "cli/crash_syms.h"
#include "cli/crash_walk.h"
#include "cli/out.h"
#include "qpt/crash.h"

struct crash_view {
	const struct cw *walk;
	const struct qpt_crash *c;  /* the fatal signal */
	const struct cw_thread *t;  /* its thread's walk, or NULL */
	const char *comm;	    /* the program's name, or "" */
	bool all_threads;
	unsigned insns;		    /* instructions to show */
	struct crash_syms *syms;    /* any address's symbol, file:line */
};

void crash_print_text(const struct crash_view *v, struct out *w);
void crash_print_json(const struct crash_view *v, struct out *w);

#endif
