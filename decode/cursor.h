/* SPDX-License-Identifier: MIT */
/*
 * replay.c's queue cursors, for the parallel decode (jobs.c): a queue's
 * tables, its parts as cut, and the decode of one part.
 */
#ifndef QPT_DECODE_CURSOR_H
#define QPT_DECODE_CURSOR_H

#include "decode/session.h"

/* The tables of one queue's decode. */
struct qrun {
	struct qd_hist *hist; /* where the address spaces are */
	struct qd_session *s;
	const struct qd_queue *q;
	struct qd_mark *marks; /* increasing ends */
	size_t nr_marks;
	/* with PERF_RECORD_AUX marks: the AUXTRACE records', for bytes past
	 * the last of those (the padding of a payload, or bytes no AUX
	 * record announced) */
	struct qd_mark *tail;
	size_t nr_tail;
	const struct qd_switch *sw; /* this cpu's, in file order */
	uint64_t *sw_max;	    /* the latest time of sw[0..i] */
	size_t nr_sw, sw_pos;
	int32_t pid;   /* the process decoded, -1: unknown */
	uint64_t base; /* aux offset of the current run's first byte */
	struct qd_cut *cuts; /* where its ring lost trace, by offset */
	size_t nr_cuts;
};

/* A lost-data record of a cpu or thread (@key), by file order (@i). */
struct lost_key {
	int32_t key;
	size_t i;
};

/* The recorded losses by cpu and by thread. */
struct lost_index {
	struct lost_key *by_cpu, *by_tid;
};

/*
 * One queue's decode, a step at a time (order.c interleaves the queues):
 * its recorded losses first, then each part of each run (part.c) by a
 * flow of its own, the pending instruction carried over each cut.  Every
 * part starts from the queue's own state (its first process and thread,
 * no switch followed yet), so that its decode does not depend on the
 * parts before but for the carried instruction.
 */
struct qd_cursor {
	struct qrun qr;
	struct qd_flow_ctx fc;
	const struct lost_index *li;
	int32_t pid0, fpid0; /* qr.pid and fc.pid at the start of a part */
	size_t run;	     /* the run cut, or nr_runs */
	uint64_t from, to;   /* its stretch between losses (run offsets) */
	size_t cut_lo, cut_hi; /* the losses told before the stretch */
	bool after_loss;       /* the stretch follows a loss */
	bool started, cutting, part_first;
	/* the next loss to pass (qr.cuts): here, not in qr, which the
	 * workers of a parallel run copy while the cursor cuts on */
	size_t next_cut;
	struct qd_cutter cut;
	struct qd_part part;
	struct qd_flow *flow;
	/* the items made before the queue's first time is known (order.c
	 * places the queue by it), each with a copy of its message */
	struct held {
		struct qpt_item it;
		char msg[160];
	} *held;
	size_t nr_held, cap_held;
	qpt_item_fn fn; /* where the items go */
	void *fn_ctx;
};

/* The losses recorded, by cpu and by thread (free both arrays). */
int qd_lost_index(const struct qd_session *s, struct lost_index *li);
/* The session's tables sorted for the cursors, and its losses indexed. */
int qd_session_sort(struct qd_session *s, struct lost_index *li);
int qd_cursor_init(struct qd_cursor *c, struct qd_session *s,
		   const struct qd_queue *q, const struct lost_index *li,
		   struct qx86_cache *cache, qpt_item_fn fn, void *ctx);
void qd_cursor_fini(struct qd_cursor *c);
/* The queue's recorded losses, as items to @fn. */
int qd_cursor_lost(const struct qd_cursor *c, qpt_item_fn fn, void *ctx);
/* The next part of the queue into c->part (c->part_first: the first of
 * its stretch, which is decoded whole; an empty part where only losses
 * are told): 1, 0 at the end of the queue, or -errno. */
int qd_cursor_cut(struct qd_cursor *c);

/* What one thread decodes with, shared with no other thread at once: its
 * images (the history), instructions, the fast decoder's runs, the
 * paths of flows without instruction items and the instructions of
 * blocks (NULL: none). */
struct qd_tables {
	struct qd_hist *hist;
	struct qx86_cache *cache;
	struct qd_runs *runs;
	struct qd_paths *paths;
	struct qd_blks *blks;
};

/* How a part is decoded apart (jobs.c): where, what with, and each step. */
struct qd_part_env {
	struct qd_tables tab;
	struct qpt_decode_stats *stats;
	enum qd_head head;
	struct qd_carry carry; /* in, then out */
	bool head_done;	       /* out */
	qpt_item_fn fn;
	void *fn_ctx;
	/* after each step: qd_flow_step's value, the time of the latest
	 * items (@has_time); 0 goes on, a negative value ends the part
	 * (qd_cursor_part returns it) */
	int (*mark)(void *arg, int ret, bool has_time, uint64_t time);
	void *mark_arg;
};

/* Decode @part of @c's queue (the losses told before it first), as its
 * serial decode does, in @env.  Returns 0 or -errno. */
int qd_cursor_part(const struct qd_cursor *c, const struct qd_part *part,
		   struct qd_part_env *env);
/* The losses no queue's flow told (a ring without trace), as items. */
int qd_session_untold(struct qd_session *s, qpt_item_fn fn, void *ctx);

#endif
