/* SPDX-License-Identifier: MIT */
/* The decoder object, shared by decoder.c (raw runs) and session.c. */
#ifndef QPT_DECODE_DECODER_H
#define QPT_DECODE_DECODER_H

#include "decode/fast.h"

struct qpt_decoder {
	struct qpt_decoder_opts opts;
	struct qd_files files;
	struct pt_image_section_cache *iscache;
	struct qd_space *manual; /* --image: added to every space */
	struct qx86_cache *icache; /* decoded instructions: made once, for
				    * every run (qd_decoder_caches) */
	struct qpt_decode_stats stats;
	struct qd_runs *runs; /* the fast decoder's, across runs */
	struct qd_prof *prof; /* QPT_WANT_PROFILE */
	struct qd_cov *cov;   /* QPT_WANT_COVERAGE */
	struct qd_paths *paths; /* the path cache, per run */
	struct qd_blks *blks;	/* blocks' instructions, per run */
	struct qd_progress progress; /* of the current run */
	struct qpt_missing_image *missing;
	size_t nr_missing;
	uint64_t errpos;
	char errmsg[256];
};

void qd_decoder_reset_results(struct qpt_decoder *dec);
/*
 * The decoder's caches emptied for a new run (the code at an address may
 * differ from the last run's: another image, another recording's spaces
 * at the same addresses): its straight-line runs' and its decoded
 * instructions', which it returns (2^QD_ICACHE_ORDER entries, 1 MiB: made
 * at the first run, not at each); NULL when out of memory.
 */
struct qx86_cache *qd_decoder_caches(struct qpt_decoder *dec);
/* The run's progress context for its flows (NULL: nobody asked), its
 * total set to @total trace bytes. */
struct qd_progress *qd_decoder_progress(struct qpt_decoder *dec,
					uint64_t total);
int qd_decoder_collect_missing(struct qpt_decoder *dec);

#endif
