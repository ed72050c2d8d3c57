/* SPDX-License-Identifier: MIT */
/*
 * The path cache (paths.c): what the flow counts along a path that TNT
 * bits alone steer, by its start and those bits; flow_path.c records and
 * replays them.
 */
#ifndef QPT_DECODE_PATHS_H
#define QPT_DECODE_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "qpt/decode.h"

/* Where a path starts, the bits it may use (the first at bit 0), and
 * the return address it may return to without calling (@nret 1: @ret,
 * the top of the return stack; 0: none, the stack is empty). */
struct qd_path_key {
	uint64_t ip;
	const void *space;
	uint64_t bits;
	uint64_t ret;
	unsigned nbits, nret;
};

/* A function's counts along a path. */
struct qd_path_fn {
	struct qpt_profile_func *fn;
	uint64_t insns, calls;
};

/* A taken branch along a path (for QPT_WANT_BRANCH items), with the
 * symbols its item had (those of the path's space). */
struct qd_path_br {
	uint64_t from, to;
	const char *sym, *to_sym;
	uint64_t symoff, to_symoff;
	uint32_t kind; /* qpt_branch_kind */
};

/*
 * A path: its key, what it uses and where it ends, its counts; then its
 * arrays (qd_path_fns, _pushes, _blks, _edges, _brs).
 */
struct qd_path {
	struct qd_path_key key;
	unsigned used;	   /* TNT bits it consumes */
	unsigned blocks;   /* 0: no path starts here */
	unsigned peak;	   /* the most return addresses it adds at once */
	unsigned pop;	   /* it returns to the key's ret (1) or not (0) */
	bool tail;	   /* its last block ends with an indirect jump or
			    * call, whose TIP is read at its end */
	uint64_t insns;	   /* instructions */
	uint64_t branches; /* taken branches */
	uint64_t th_insns, th_branches; /* the thread's profile counts */
	uint64_t cov_ops; /* coverage counts (blocks, fall-throughs) */
	/* the block decoder at the end: where it is, its last instruction */
	uint64_t end_ip, li_ip, li_target;
	uint8_t li_len, li_cls;
	/* the flow: the pending instruction (its branch kind) */
	unsigned p_kind;
	uint32_t nr_fn, nr_push, nr_blk, nr_edge, nr_br;
	uint64_t run; /* its branches' run id (qpt_item's @run), set when
		       * kept */
};

struct qd_paths;

struct qd_paths *qd_paths_new(void);
void qd_paths_free(struct qd_paths *p);
/* Forget every path (the tables their counts point into are gone). */
void qd_paths_reset(struct qd_paths *p);
/* The path of key @k, or NULL. */
const struct qd_path *qd_paths_find(const struct qd_paths *p,
				    const struct qd_path_key *k);
/* The arrays of a path being kept (NULL where its count is 0). */
struct qd_path_arrays {
	const struct qd_path_fn *fn;
	const uint64_t *push;
	const uint32_t *blk, *edge;
	const struct qd_path_br *br;
};

/* Keep path @h with its arrays @a (NULL: none); 0, or -1 when it is too
 * large. */
int qd_paths_add(struct qd_paths *p, const struct qd_path *h,
		 const struct qd_path_arrays *a);
const struct qd_path_fn *qd_path_fns(const struct qd_path *e);
const uint64_t *qd_path_pushes(const struct qd_path *e);
const uint32_t *qd_path_blks(const struct qd_path *e);
const uint32_t *qd_path_edges(const struct qd_path *e);
const struct qd_path_br *qd_path_brs(const struct qd_path *e);

#endif
