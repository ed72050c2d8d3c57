/* SPDX-License-Identifier: MIT */
/* qpt decode --stats: the exact flat profile, as text or JSON Lines. */
#ifndef QPT_CLI_DECODE_STATS_H
#define QPT_CLI_DECODE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/out.h"
#include "qpt/decode.h"

struct stats_thread {
	int32_t pid, tid;
	uint64_t insns, branches, errors, overflows;
};

struct stats_run {
	struct stats_thread *th;
	size_t nr;
};

/* The item callback of a --stats run (@ctx: a struct stats_run): the
 * errors, losses and overflows of each thread. */
int stats_item(const struct qpt_item *it, void *ctx);
/* Print the profile of @dec's run; 0 or -ENOMEM. */
int stats_print(struct stats_run *st, struct qpt_decoder *dec, struct out *w,
		bool json);
void stats_free(struct stats_run *st);

#endif
