/* SPDX-License-Identifier: MIT */
/*
 * qpt_split inside: split_plan.c reads the input into the session's
 * tables and cuts its queues into units dealt out to shards; split.c
 * writes the shards.
 */
#ifndef QPT_DECODE_SPLIT_H
#define QPT_DECODE_SPLIT_H

#include "decode/session.h"
#include "qpt/split.h"
#include "qpt/writer.h"

/* Bytes [from, to) (aux offsets) of run @run of queue @queue: from a PSB
 * (or the run's, or a loss's, start) to the next PSB (or its end). */
struct split_unit {
	size_t queue, run;
	uint64_t from, to;
	uint64_t tail; /* the end of the PSB+ at @to (@to when none) */
	bool at_psb;   /* @from is a PSB's (else a run's or a loss's start) */
	uint32_t shard;
};

struct split_shard {
	struct qpt_writer *w;
	char *path;
	bool *seen;  /* per queue: its AUXTRACE bytes come in this shard */
	size_t next; /* the first unit of the shard not yet opened */
};

struct split {
	struct qd_session s;  /* the queues and losses, as the decode's */
	struct qpt_reader *r; /* the first pass's: the runs borrow from it */
	struct qd_put *puts;  /* each AUXTRACE record's bytes, in file order */
	size_t nr_puts, cap_puts;
	struct split_unit *units; /* in the decode's order */
	size_t nr_units, cap_units;
	uint64_t min_unit; /* a unit's least bytes, but at a loss or end */
	size_t *first_unit, *end_unit; /* per queue: its units */
	size_t *lost_unit;    /* per loss cut in a flow: told before it */
	uint32_t *lost_shard; /* per loss: the shard whose decode tells it */
	uint32_t nr_shards;
	struct split_shard *sh;
	uint64_t errpos;
	char errmsg[160];
};

/* Say why @sp failed; returns @err. */
int split_fail(struct split *sp, int err, const char *msg);

/* The units of @sp's session dealt to at most @shards shards; where
 * each loss is told.  Returns 0, -ENOMEM, -QPT_E_UNSUPPORTED. */
int split_plan(struct split *sp, uint32_t shards);

#endif
