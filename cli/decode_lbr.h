/* SPDX-License-Identifier: MIT */
/*
 * qpt decode --lbr: LBR records from the decoded flow, printed as text or
 * JSON Lines through the writer of out.h, or written as a Fuchsia perfmon
 * buffer (--format=perfmon -o FILE).
 */
#ifndef QPT_CLI_DECODE_LBR_H
#define QPT_CLI_DECODE_LBR_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/out.h"
#include "qpt/decode.h"
#include "qpt/lbr.h"
#include "qpt/perfmon.h"

struct lbr_args {
	unsigned depth;	    /* 0: no --lbr */
	uint64_t period;    /* --lbr-period */
	bool perfmon;	    /* --format=perfmon */
	const char *output; /* -o */
};

struct lbr_run {
	const struct lbr_args *a;
	struct out *w;
	struct qpt_lbr *lbr;
	struct qpt_perfmon_writer *pm;
	uint64_t records;
};

/* The decoder's want bits for --lbr. */
unsigned lbr_want(const struct lbr_args *a);
/*
 * Prepare @lr for a run whose output goes to @w; @input is the perf.data
 * (its samples become record points) or NULL for a raw stream.  Prints
 * the one line of a failure and returns QPT_EXIT_ERROR, else 0.
 */
int lbr_start(struct lbr_run *lr, const struct lbr_args *a, struct out *w,
	      const char *input);
/* After a run that returned @err: the records of the end (when @err is
 * 0).  Returns @err or the first error of those. */
int lbr_end(struct lbr_run *lr, int err);
/* Write the perfmon buffer (--format=perfmon): the exit code, the one
 * line of a failure printed. */
int lbr_save(struct lbr_run *lr);
void lbr_free(struct lbr_run *lr);

#endif
