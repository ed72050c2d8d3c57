// SPDX-License-Identifier: MIT
/*
 * Paths of the flows without instruction items (QPT_WANT_PROFILE,
 * QPT_WANT_COVERAGE, QPT_WANT_BRANCH; no QPT_WANT_INSN or
 * QPT_WANT_CYCLES): where the fast decoder stands in a run of TNT
 * packets (nothing but TNT bits and PADs up to the run's last bit: no
 * time, event or address space can change there), the blocks up to a
 * return the path did not call (but for one to the return address on top
 * of the stack, which the key holds) are steered by the TNT bits alone,
 * and so is the way to the next indirect jump or call, whose block ends
 * the path (its tail: its TIP is read when the path is taken).  The
 * first time a start, its bits and that return address are met, the
 * flow decodes the path as always and records what it counted
 * (instructions, taken branches, each function's instructions and
 * calls, coverage blocks and edges), the taken branches it told, and
 * where it ended (paths.c keeps it, unless an array had no room for an
 * entry); each later time the counts are added at once, the branches
 * told again (all at the time the path started at, as the flow tells
 * them: no time changes along it), and the decoders are put where the
 * path ends, with the TNT bits consumed as the block decoder would have
 * consumed them and a tail's TIP read as it would have read it.
 */
#include <string.h>

#include "decode/flowpriv.h"
#include "decode/paths.h"

/* The TNT bits of a key (a path uses no more), the most blocks a path
 * holds, and the fewest bits worth a path. */
#define PATH_BITS 32
#define PATH_BLOCKS 128
#define PATH_FNS 32
#define PATH_MIN_BITS 2

struct path_rec {
	struct qd_path h;
	unsigned depth0; /* return addresses when the path started */
	int low;	 /* the fewest since, less depth0 (-1: it popped one) */
	bool full;	 /* an array is full: the path ends here */
	bool lost;	 /* ... and missed an entry: the path is not kept */
	struct qd_path_fn fn[PATH_FNS];
	uint64_t push[64];
	uint32_t blk[PATH_BLOCKS], edge[2 * PATH_BLOCKS];
	struct qd_path_br br[PATH_BLOCKS];
};

void path_rec_prof(struct flow *f, struct qpt_profile_func *fn, uint64_t insns,
		   uint64_t branches, uint64_t calls)
{
	struct path_rec *r = f->rec;
	uint32_t i;

	r->h.th_insns += insns;
	r->h.th_branches += branches;
	if (!fn || (!insns && !calls))
		return;
	for (i = r->h.nr_fn; i-- > 0;)
		if (r->fn[i].fn == fn) {
			r->fn[i].insns += insns;
			r->fn[i].calls += calls;
			return;
		}
	if (r->h.nr_fn == PATH_FNS) {
		r->full = r->lost = true;
		return;
	}
	r->fn[r->h.nr_fn++] = (struct qd_path_fn){fn, insns, calls};
	r->full |= r->h.nr_fn == PATH_FNS;
}

void path_rec_cov(struct flow *f, bool edge, uint32_t i)
{
	struct path_rec *r = f->rec;

	if (edge && r->h.nr_edge < 2 * PATH_BLOCKS)
		r->edge[r->h.nr_edge++] = i;
	else if (!edge && r->h.nr_blk < PATH_BLOCKS)
		r->blk[r->h.nr_blk++] = i;
	else
		r->lost = true;
	r->full |=
	    r->h.nr_edge == 2 * PATH_BLOCKS || r->h.nr_blk == PATH_BLOCKS;
}

void path_rec_branch(struct flow *f, const struct qd_path_br *br)
{
	struct path_rec *r = f->rec;

	if (r->h.nr_br < PATH_BLOCKS)
		r->br[r->h.nr_br++] = *br;
	else
		r->lost = true;
	r->full |= r->h.nr_br == PATH_BLOCKS;
}

/*
 * Add path @p's counts to the flow's, tell its branches, and set the
 * flow's state at its end; 0 or the callback's error (the flow stops
 * there: where it stands no longer matters).
 */
static int apply(struct flow *f, const struct qd_path *p)
{
	struct qd_flow_ctx *fc = f->fc;
	uint32_t i;

	fc->stats->insns += p->insns;
	fc->stats->fast_insns += p->insns;
	fc->stats->branches += p->branches;
	f->n_insn += p->insns;
	f->n_branch += p->branches;
	f->n_cov += p->cov_ops;
	if (fc->want & QPT_WANT_PROFILE)
		prof_path(f, p->th_insns, p->th_branches, qd_path_fns(p),
			  p->nr_fn);
	if (fc->want & QPT_WANT_COVERAGE) {
		const uint32_t *b = qd_path_blks(p), *e = qd_path_edges(p);

		for (i = 0; i < p->nr_blk; i++)
			qd_cov_count_block(fc->cov, b[i], 1);
		for (i = 0; i < p->nr_edge; i++)
			qd_cov_count_edge(fc->cov, e[i], 1);
	}
	f->pending = true;
	f->p_timed = false;
	f->p_ip = p->li_ip;
	f->p_size = p->li_len;
	f->p_kind = p->p_kind;
	f->next_ip = p->li_ip + p->li_len;
	if (fc->want & QPT_WANT_BRANCH)
		return flow_tell_branches(f, qd_path_brs(p), p->nr_br,
					  p->run);
	return 0;
}

/* Keep what @r recorded, from the flow's counts then (@insns, ...). */
static void save(struct flow *f, struct path_rec *r, uint64_t insns,
		 uint64_t branches, uint64_t cov_ops)
{
	struct qd_flow_ctx *fc = f->fc;
	struct qd_path *h = &r->h;
	unsigned depth = qd_fpt_ret_depth(f->fast);

	h->insns = fc->stats->insns - insns;
	h->branches = fc->stats->branches - branches;
	h->cov_ops = f->n_cov - cov_ops;
	h->pop = (unsigned)-r->low;
	h->nr_push = depth + h->pop - r->depth0;
	qd_fpt_ret_top(f->fast, r->push, h->nr_push);
	qd_fpt_path_end(f->fast, &h->end_ip, &h->li_ip, &h->li_target,
			&h->li_len, &h->li_cls);
	if (h->tail) /* at the indirect branch, its target yet to read */
		h->end_ip = h->li_ip;
	h->p_kind = f->p_kind;
	qd_paths_add(fc->paths, h,
		     &(struct qd_path_arrays){r->fn, r->push, r->blk, r->edge,
					      r->br});
}

/*
 * Decode the path of key @k as always, recording it (@w: the window of
 * bits): the branch into it is told once its first block is decoded (a
 * block that is not, an error's, would have it dropped).  PATH_DONE,
 * PATH_BLOCK (a block the decoder gave that is no part of a path: *@b
 * and *@status for the caller to take on), 0 (no path here) or the
 * callback's error.
 */
static int build(struct flow *f, const struct qd_path_key *k, uint64_t w,
		 struct pt_block *b, int *status)
{
	struct qd_flow_ctx *fc = f->fc;
	uint64_t insns = 0, branches = 0, cov_ops = 0;
	struct path_rec r;
	unsigned blocks = 0;
	int need, err, depth;
	bool tail;

	memset(&r.h, 0, sizeof(r.h));
	r.h.key = *k;
	r.depth0 = qd_fpt_ret_depth(f->fast);
	r.low = 0;
	r.full = r.lost = false;
	for (;;) {
		/* the key's return address, and those the path pushed */
		depth = (int)qd_fpt_ret_depth(f->fast) - (int)r.depth0;
		need = qd_fpt_peek(
		    f->fast, (unsigned)(depth + (int)k->nret),
		    r.h.used < k->nbits ? (int)((w >> r.h.used) & 1) : -1,
		    &tail);
		if (need < 0 || r.full || blocks == PATH_BLOCKS)
			break;
		memset(b, 0, sizeof(*b));
		*status = eng_next(f, b);
		if (*status || !b->ninsn) {
			f->rec = NULL; /* the decoder went its own way */
			return PATH_BLOCK;
		}
		if (!blocks) { /* the path's own from here */
			err = flow_path_enter(f, k->ip);
			if (err)
				return err;
			insns = fc->stats->insns;
			branches = fc->stats->branches;
			cov_ops = f->n_cov;
			f->rec = &r;
		}
		err = flow_walk(f, b);
		if (err) {
			f->rec = NULL;
			return err;
		}
		r.h.used += (unsigned)need;
		blocks++;
		depth = (int)qd_fpt_ret_depth(f->fast) - (int)r.depth0;
		if (depth > (int)r.h.peak)
			r.h.peak = (unsigned)depth;
		if (depth < r.low)
			r.low = depth;
		if (tail) { /* its TIP read (with no event after it) */
			r.h.tail = true;
			break;
		}
	}
	f->rec = NULL;
	r.h.blocks = blocks;
	if (!blocks) { /* none here: remembered as such */
		qd_paths_add(fc->paths, &r.h, NULL);
		return 0;
	}
	if (!r.lost) /* else counted and told as it went, not kept */
		save(f, &r, insns, branches, cov_ops);
	*status = 0;
	return PATH_DONE;
}

int path_step(struct flow *f, struct pt_block *b, int *status)
{
	const struct qd_path *p;
	struct qd_path_key k;
	unsigned n;
	uint64_t w;
	int err;

	if (flow_skipping(f) || f->cov_open || f->next_space ||
	    f->nr_memo > FLOW_MEMO - 4 || !qd_fpt_path_ready(f->fast) ||
	    !flow_path_ready(f))
		return 0;
	n = qd_fpt_window(f->fast, PATH_BITS, &w);
	if (n < PATH_MIN_BITS)
		return 0;
	k.ip = qd_fpt_ip(f->fast);
	k.space = f->fc->space;
	k.nbits = n < PATH_BITS ? n : PATH_BITS;
	k.bits = w & (k.nbits == 64 ? ~0ull : (1ull << k.nbits) - 1);
	/* a path may return to where the thread came from: the return
	 * address on top is part of its key */
	k.nret = qd_fpt_ret_depth(f->fast) ? 1 : 0;
	k.ret = 0;
	if (k.nret)
		qd_fpt_ret_top(f->fast, &k.ret, 1);
	p = qd_paths_find(f->fc->paths, &k);
	if (p && !p->blocks)
		return 0;
	if (!p || qd_fpt_ret_depth(f->fast) + p->peak > 64)
		return build(f, &k, w, b, status);
	*status = qd_fpt_skip_bits(f->fast, p->used);
	if (*status < 0)
		return PATH_BLOCK; /* not expected: libipt takes over */
	qd_fpt_path_set(f->fast, p->end_ip, p->li_ip, p->li_target, p->li_len,
			p->li_cls, p->pop, qd_path_pushes(p), p->nr_push);
	if (p->tail) {
		int st = qd_fpt_tail(f->fast);

		/* nothing told yet: libipt decodes it all again from the
		 * last PSB, as when the block decoder bails out there */
		if (st < 0) {
			*status = QD_FAST_BAIL;
			return PATH_BLOCK;
		}
		*status = st;
	}
	/* the branch into the path, told now that it is taken */
	err = flow_path_enter(f, k.ip);
	if (!err)
		err = apply(f, p);
	if (!err && p->tail)
		flow_block_done(f); /* its TIP may have come with a time */
	return err ? err : PATH_DONE;
}
