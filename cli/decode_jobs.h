/* SPDX-License-Identifier: MIT */
/* qpt decode -j: decoding and printing on worker threads (decode_jobs.c). */
#ifndef QPT_CLI_DECODE_JOBS_H
#define QPT_CLI_DECODE_JOBS_H

#include "cli/decode_print.h"

/* Whether -j @jobs (0: the library's choice) may run on worker threads
 * for @o's output: not one, and lines that depend on their item only (not
 * --calls, whose indent follows the calls before, nor --last, nor
 * --itrace's period, counted over the queue's instructions). */
bool decode_jobs_wanted(unsigned jobs, const struct printer *o);

/* qpt_decoder_run_file_jobs of @name, each item to @item with a printer
 * like @o; the lines end in @o's writer in a serial run's order. */
int decode_jobs_run(struct qpt_decoder *dec, const char *name,
		    struct printer *o, qpt_item_fn item);

#endif
