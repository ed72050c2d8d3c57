// SPDX-License-Identifier: MIT
/*
 * Full call stacks from call-stack LBR samples.  A CALL_STACK LBR of D
 * slots pushes each call into the slot after its top of stack (TOS) and
 * pops a return by moving the TOS back, so a call at depth d (calls minus
 * returns so far) always sits in slot (d + c) mod D for a constant c of
 * the thread: hw_idx tells a sample's depth modulo D.  Per thread this
 * keeps the stack as far as known (a frame per depth, outermost first);
 * a sample whose LBR lost its outer frames (deeper than D, or lost for
 * good when a recursion deeper than D unwound) gets them back from there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/lbr_priv.h"

struct sthread {
	int32_t tid;
	bool have_c;
	bool placed; /* the last sample's depth was known: */
	uint64_t top, nr; /* its newest entry's depth, its entries */
	uint64_t c;
	struct qpt_lbr_entry *mem; /* mem[d - 1]: the call at depth d */
	size_t m, cap;
};

struct qpt_lbr_stitch {
	struct qpt_lbr_stitch_opts o;
	struct sthread *th;
	size_t nr_th, cap_th;
	struct qd_tidmap map;
	struct qpt_lbr_entry *out;
	size_t cap_out;
	/* the caller's entries at the library's stride, and the frames at
	 * the caller's (entry sizes other than the library's) */
	struct qpt_lbr_entry *in;
	size_t cap_in;
	uint8_t *out_sized;
	size_t cap_out_sized;
};

void qpt_lbr_stitch_opts_init_sized(struct qpt_lbr_stitch_opts *out, size_t size)
{
	struct qpt_lbr_stitch_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	opts->max_lbr = 32;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_lbr_stitch_new(const struct qpt_lbr_stitch_opts *opts,
		       struct qpt_lbr_stitch **out)
{
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st;

	if (!out)
		return -QPT_E_INVAL;
	qpt_lbr_stitch_opts_init(&o);
	if (opts && qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(size_t)))
		return -QPT_E_INVAL;
	if (!o.max_lbr || o.max_lbr > QPT_LBR_MAX_DEPTH)
		return -QPT_E_INVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->o = o;
	*out = st;
	return 0;
}

void qpt_lbr_stitch_free(struct qpt_lbr_stitch *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr_th; i++)
		free(st->th[i].mem);
	free(st->th);
	qd_tidmap_free(&st->map);
	free(st->out);
	free(st->in);
	free(st->out_sized);
	free(st);
}

static struct sthread *thread_get(struct qpt_lbr_stitch *st, int32_t tid)
{
	bool made;
	long i = qd_tid_slot(&st->map, &st->th, &st->nr_th, &st->cap_th,
			     sizeof(*st->th), tid, &made);

	if (i < 0)
		return NULL;
	st->th[i].tid = tid;
	return &st->th[i];
}

static bool same(const struct qpt_lbr_entry *a, const struct qpt_lbr_entry *b)
{
	return a->from == b->from && a->to == b->to;
}

static bool link(const struct qpt_lbr_stitch *st, uint64_t to, uint64_t from)
{
	if (st->o.link)
		return st->o.link(to, from, st->o.link_ctx);
	return from >= to && from - to < (1u << 20);
}

/* Whether the function of @e's call site is entered by a call the
 * thread has made (so @e is not the outermost call of the thread). */
static bool is_callee(const struct qpt_lbr_stitch *st, const struct sthread *t,
		      const struct qpt_lbr_entry *e, size_t nr)
{
	const struct qpt_lbr_entry *outer = &e[nr - 1];
	size_t i;

	for (i = 0; i + 1 < nr; i++)
		if (link(st, e[i].to, outer->from))
			return true;
	for (i = 0; i < t->m; i++)
		if (link(st, t->mem[i].to, outer->from))
			return true;
	return false;
}

/*
 * How well depth @depth for the newest entry fits the memory: 4 when the
 * outermost visible frame is the remembered one and links to the frame
 * below it, 3 remembered only, 2 links only, 0 neither.  With nothing
 * below (the outermost frame at depth 1): 3 when it is the thread's
 * remembered outermost call, 1 when it may be a new one (nothing known,
 * or its function is not one the thread was seen to call), else 0.
 */
static unsigned fit(const struct qpt_lbr_stitch *st, const struct sthread *t,
		    const struct qpt_lbr_entry *e, size_t nr, uint64_t depth)
{
	uint64_t below = depth - nr; /* frames from memory */
	const struct qpt_lbr_entry *outer = &e[nr - 1];
	bool known = below < t->m && same(&t->mem[below], outer);
	bool linked;

	if (!below) {
		if (known)
			return 3;
		return !t->m || !is_callee(st, t, e, nr) ? 1 : 0;
	}
	linked = link(st, t->mem[below - 1].to, outer->from);
	return (linked ? 2 : 0) + (known ? 2 : 0);
}

/*
 * The depth of the sample's newest entry: of the depths congruent to
 * hw_idx - c modulo D that leave at most the remembered frames below the
 * entries, the best fitting one; of equals, one whose outermost entry
 * lies among the last sample's entries (as perf's stitching assumes: in
 * a recursion the frames agree at every depth), else the shallowest.
 * UINT64_MAX when none fits (the frames below are not known: nothing is
 * stitched and the memory stays as it was).
 */
static uint64_t pick_depth(const struct qpt_lbr_stitch *st,
			   const struct sthread *t,
			   const struct qpt_lbr_entry *e, size_t nr,
			   uint64_t hw_idx)
{
	uint64_t d = st->o.max_lbr, depth = (hw_idx + d - t->c % d) % d;
	uint64_t best = UINT64_MAX;
	unsigned best_fit = 0;

	if (!nr)
		return UINT64_MAX; /* no evidence for any depth */
	while (depth < nr)
		depth += d;
	for (; depth - nr <= t->m; depth += d) {
		uint64_t base = depth - nr + 1;
		unsigned f = 2 * fit(st, t, e, nr, depth) +
			     (t->placed && base <= t->top &&
			      base + t->nr > t->top);

		if (f > best_fit && f > 1) {
			best_fit = f;
			best = depth;
		}
	}
	return best;
}

/* The thread's stack becomes the @below remembered frames and the
 * sample's entries over them. */
static int remember(struct sthread *t, const struct qpt_lbr_entry *e,
		    size_t nr, size_t below)
{
	size_t j;

	if (qd_grow(&t->mem, &t->cap, below + nr, sizeof(*t->mem)))
		return -ENOMEM;
	for (j = 0; j < nr; j++)
		t->mem[below + j] = e[nr - 1 - j];
	t->m = below + nr;
	return 0;
}

static int stitch_sample(struct qpt_lbr_stitch *st, int32_t tid,
			 const struct qpt_lbr_entry *e, size_t nr,
			 uint64_t hw_idx, const struct qpt_lbr_entry **frames,
			 size_t *stitched)
{
	struct sthread *t = thread_get(st, tid);
	uint64_t d = st->o.max_lbr, depth = UINT64_MAX;
	size_t below = 0, j;

	*stitched = 0;
	*frames = st->out;
	if (!t)
		return -ENOMEM;
	if (nr > d)
		nr = (size_t)d; /* more than the LBR holds: not a call stack */
	if (!t->have_c && nr < d) {
		/* the first stack that fits the LBR is taken whole */
		t->have_c = true;
		t->c = (hw_idx + d - nr % d) % d;
		depth = nr;
	} else if (t->have_c) {
		depth = pick_depth(st, t, e, nr, hw_idx);
	}
	t->placed = depth != UINT64_MAX;
	if (depth != UINT64_MAX) {
		t->top = depth;
		t->nr = nr;
		below = (size_t)(depth - nr);
		if (remember(t, e, nr, below))
			return -ENOMEM;
	}
	if (qd_grow(&st->out, &st->cap_out, nr + below, sizeof(*st->out)))
		return -ENOMEM;
	*frames = st->out;
	if (nr) /* @e may be NULL then */
		memcpy(st->out, e, nr * sizeof(*e));
	for (j = 0; j < below; j++)
		st->out[nr + j] = t->mem[below - 1 - j];
	*stitched = below;
	return (int)(nr + below);
}

/* The first version's entry ends with flags. */
#define ENTRY_SIZE_V1 (offsetof(struct qpt_lbr_entry, flags) + 2)

int qpt_lbr_stitch_sample_sized(struct qpt_lbr_stitch *st, int32_t tid,
				const struct qpt_lbr_entry *e, size_t nr,
				uint64_t hw_idx,
				const struct qpt_lbr_entry **frames,
				size_t *stitched, size_t entry_size)
{
	const struct qpt_lbr_entry *full;
	size_t i;
	int n;

	if (!st || (nr && !e) || !frames || !stitched ||
	    entry_size < ENTRY_SIZE_V1)
		return -QPT_E_INVAL;
	if (entry_size == sizeof(*e))
		return stitch_sample(st, tid, e, nr, hw_idx, frames, stitched);
	if (nr > st->o.max_lbr)
		nr = st->o.max_lbr; /* as stitch_sample does */
	if (qd_grow(&st->in, &st->cap_in, nr + 1, sizeof(*st->in)))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		qpt_sized_copy(&st->in[i], sizeof(*st->in),
			       (const char *)e + i * entry_size,
			       entry_size < sizeof(*e) ? entry_size
						       : sizeof(*e));
	n = stitch_sample(st, tid, st->in, nr, hw_idx, &full, stitched);
	if (n < 0)
		return n;
	if (qd_grow(&st->out_sized, &st->cap_out_sized,
		    ((size_t)n + 1) * entry_size, 1))
		return -ENOMEM;
	for (i = 0; i < (size_t)n; i++)
		qpt_sized_copy(st->out_sized + i * entry_size, entry_size,
			       &full[i], sizeof(full[i]));
	*frames = (const struct qpt_lbr_entry *)st->out_sized;
	return n;
}
