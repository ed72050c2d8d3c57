// SPDX-License-Identifier: MIT
/*
 * The call flow of the pictures: the crash walk rebuilds each thread's
 * stack from the items; this follows its frames and tells a view what
 * changed (callflow.h).  A stack changes at a branch, or at the
 * instruction after one (where the walk settles a transfer), so it is
 * looked at only then; most changes are a frame more or fewer at the top,
 * seen by comparing the top frame alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/callflow.h"
#include "cli/cli.h"

int callflow_init(struct callflow *cf, const struct callflow_ops *ops,
		  void *ctx)
{
	struct qpt_crash_walk_opts o;

	memset(cf, 0, sizeof(*cf));
	cf->ops = ops;
	cf->ctx = ctx;
	qpt_crash_walk_opts_init(&o);
	o.last = 0; /* no branches kept: the stack is what is wanted */
	return qpt_crash_walk_new(&o, &cf->walk);
}

void callflow_fini(struct callflow *cf)
{
	size_t i;

	for (i = 0; i < cf->nr; i++)
		free(cf->t[i].f);
	free(cf->t);
	qpt_crash_walk_free(cf->walk);
	memset(cf, 0, sizeof(*cf));
}

static struct cf_thread *thread_of(struct callflow *cf, int32_t tid)
{
	struct cf_thread *t;
	size_t i;

	if (cf->nr && cf->t[cf->last].tid == tid)
		return &cf->t[cf->last];
	for (i = 0; i < cf->nr; i++)
		if (cf->t[i].tid == tid) {
			cf->last = i;
			return &cf->t[i];
		}
	if (cli_grow(&cf->t, &cf->cap, cf->nr, sizeof(*t)))
		return NULL;
	t = &cf->t[cf->nr];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->walk = -1;
	cf->last = cf->nr++;
	return t;
}

/* Frame @level (0: outermost) of the walk's stack of @n frames. */
static int walk_frame(const struct callflow *cf, const struct cf_thread *t,
		      size_t n, size_t level, struct qpt_crash_frame *f)
{
	return qpt_crash_walk_frame(cf->walk, (size_t)t->walk, n - 1 - level,
				    f);
}

static bool same(const struct cf_frame *a, const struct qpt_crash_frame *b)
{
	return a->site == b->site && a->sym == b->sym && a->signal == b->signal;
}

/* How many of the frames the view knows the walk's @n frames keep. */
static size_t kept(const struct callflow *cf, const struct cf_thread *t,
		   size_t n)
{
	struct qpt_crash_frame f;
	size_t top = n < t->depth ? n : t->depth, k;

	if (!top)
		return 0;
	/* a return, a jump, or a call on top of the frames known */
	if (!walk_frame(cf, t, n, top - 1, &f) && same(&t->f[top - 1], &f))
		return top;
	for (k = 0; k < top; k++)
		if (walk_frame(cf, t, n, k, &f) || !same(&t->f[k], &f))
			break;
	return k;
}

/* Tell the view how the thread's stack changed (@it: the item that
 * changed it). */
static int sync_stack(struct callflow *cf, struct cf_thread *t,
		      const struct qpt_item *it)
{
	struct qpt_crash_thread ct;
	struct qpt_crash_frame f;
	size_t n, k;
	int err;

	err = qpt_crash_walk_thread(cf->walk, (size_t)t->walk, &ct);
	if (err)
		return err;
	n = ct.nr_frames;
	k = kept(cf, t, n);
	for (; t->depth > k; t->depth--) {
		err = cf->ops->pop(cf->ctx, (size_t)(t - cf->t), t->depth - 1,
				   it);
		if (err)
			return err;
	}
	if (n > t->cap) {
		struct cf_frame *nf = realloc(t->f, 2 * n * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		t->f = nf;
		t->cap = 2 * n;
	}
	for (; t->depth < n; t->depth++) {
		err = walk_frame(cf, t, n, t->depth, &f);
		if (!err)
			err = cf->ops->push(cf->ctx, (size_t)(t - cf->t),
					    t->depth, &f, it);
		if (err)
			return err;
		t->f[t->depth] = (struct cf_frame){f.site, f.sym, f.signal};
	}
	return 0;
}

int callflow_item(const struct qpt_item *it, void *ctx)
{
	struct callflow *cf = ctx;
	struct cf_thread *t;
	int err;

	err = qpt_crash_walk_item(it, cf->walk);
	if (err || !(it->flags & QPT_ITEM_HAS_TID) ||
	    it->type == QPT_ITEM_EVENT)
		return err;
	t = thread_of(cf, it->tid);
	if (!t)
		return -ENOMEM;
	if (t->walk < 0) {
		t->walk = qpt_crash_walk_find(cf->walk, it->tid);
		if (t->walk < 0)
			return t->walk;
	}
	if (it->type == QPT_ITEM_BRANCH) {
		t->recheck = true;
		return sync_stack(cf, t, it);
	}
	if (t->recheck) {
		t->recheck = false;
		err = sync_stack(cf, t, it);
		if (err)
			return err;
	}
	return cf->ops->insn(cf->ctx, (size_t)(t - cf->t), t->depth, it);
}

int callflow_finish(struct callflow *cf)
{
	size_t i;
	int err;

	for (i = 0; i < cf->nr; i++)
		for (; cf->t[i].depth; cf->t[i].depth--) {
			err =
			    cf->ops->pop(cf->ctx, i, cf->t[i].depth - 1, NULL);
			if (err)
				return err;
		}
	return 0;
}
