// SPDX-License-Identifier: MIT
/*
 * qpt crash's walk: one decoder run with instructions, branches, events
 * and symbols.  The branches go on to the LBR tracker (decode/lbr_*.c),
 * which hands out each thread's last N at the end of its trace; the
 * instructions fill a ring per thread; calls and returns move a shadow
 * stack.  A return with no call in the window below it means the window
 * began mid-stack (the frames outside it are not in the trace).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/crash_walk.h"

struct cw_thread *cw_find(struct cw *w, int32_t tid)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (w->threads[i].tid == tid)
			return &w->threads[i];
	return NULL;
}

static struct cw_thread *get_thread(struct cw *w, const struct qpt_item *it)
{
	struct cw_thread *t = cw_find(w, it->tid);

	if (t)
		return t;
	if (w->nr == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;

		t = realloc(w->threads, cap * sizeof(*t));
		if (!t)
			return NULL;
		w->threads = t;
		w->cap = cap;
	}
	t = &w->threads[w->nr];
	memset(t, 0, sizeof(*t));
	t->ring = calloc(w->k ? w->k : 1, sizeof(*t->ring));
	if (!t->ring)
		return NULL;
	t->pid = it->pid;
	t->tid = it->tid;
	w->nr++;
	return t;
}

static void fill_insn(struct cw_insn *d, const struct qpt_item *it)
{
	d->ip = it->ip;
	d->sym = it->sym;
	d->symoff = it->symoff;
	d->size = it->size;
	memcpy(d->raw, it->raw, sizeof(d->raw));
}

static int push(struct cw_thread *t, uint64_t site, const char *sym,
		uint64_t symoff, bool signal)
{
	struct cw_frame *f;

	if (t->depth == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;

		f = realloc(t->stack, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		t->stack = f;
		t->cap = cap;
	}
	f = &t->stack[t->depth++];
	f->site = site;
	f->sym = sym;
	f->symoff = symoff;
	f->signal = signal;
	return 0;
}

/* A return to @to: pops its frame, or, with none in the window, tells
 * that the window began below the frame it returns to. */
static void pop(struct cw_thread *t, const struct qpt_item *it)
{
	if (t->depth) {
		t->depth--;
		return;
	}
	t->below++;
	t->base_next = true; /* the next instruction, where it returns */
}

/* The trace resumes at @to after it stopped: into a signal handler (a
 * signal frame), back from one (sigreturn to a signal frame's site), or
 * after a system call (nothing changes). */
static int resume(struct cw_thread *t, const struct qpt_item *it)
{
	size_t i;

	for (i = t->depth; i-- > 0;)
		if (t->stack[i].signal && t->stack[i].site == it->to) {
			t->depth = i;
			t->async_pending = false;
			return 0;
		}
	if (!t->async_pending || it->to == t->async_ip)
		return 0;
	t->async_pending = false;
	return push(t, t->async_ip, t->end_sym, t->end_symoff, true);
}

static int on_branch(struct cw_thread *t, const struct qpt_item *it)
{
	switch (it->kind) {
	case QPT_BR_CALL:
	case QPT_BR_IND_CALL:
		return push(t, it->ip, it->sym, it->symoff, false);
	case QPT_BR_RET:
		pop(t, it);
		return 0;
	case QPT_BR_TRACE_END:
		t->end_ip = it->ip;
		t->end_sym = it->sym;
		t->end_symoff = it->symoff;
		t->ended_async = it->via == QPT_BR_ASYNC;
		t->async_pending = t->ended_async;
		t->async_ip = it->ip;
		return 0;
	case QPT_BR_TRACE_BEGIN:
		if (!t->insns)
			t->began = true;
		t->ended_async = false;
		return resume(t, it);
	default:
		return 0;
	}
}

static int on_item(const struct qpt_item *it, void *ctx)
{
	struct cw *w = ctx;
	struct cw_thread *t;
	int err;

	err = qpt_lbr_item(it, w->lbr);
	if (err)
		return err;
	if (!(it->flags & QPT_ITEM_HAS_TID))
		return 0;
	t = get_thread(w, it);
	if (!t)
		return -ENOMEM;
	if (it->type == QPT_ITEM_BRANCH)
		return on_branch(t, it);
	if (it->type != QPT_ITEM_INSN)
		return 0;
	if (!t->insns) {
		fill_insn(&t->first, it);
		t->base = t->first;
	}
	if (t->base_next) {
		fill_insn(&t->base, it);
		t->base_next = false;
	}
	if (w->k)
		fill_insn(&t->ring[t->insns % w->k], it);
	t->insns++;
	t->end_ip = it->ip;
	t->end_sym = it->sym;
	t->end_symoff = it->symoff;
	return 0;
}

/* The LBR tracker's record at the end of each thread's trace. */
static int on_lbr(const struct qpt_lbr_record *r, void *ctx)
{
	struct cw *w = ctx;
	struct cw_thread *t = cw_find(w, r->tid);

	if (!t || (r->point != QPT_LBR_AT_END && r->point != QPT_LBR_AT_CRASH))
		return 0;
	free(t->branches);
	t->nr_branches = 0;
	t->branches = r->nr ? malloc(r->nr * sizeof(*t->branches)) : NULL;
	if (r->nr && !t->branches)
		return -ENOMEM;
	if (r->nr)
		memcpy(t->branches, r->entries, r->nr * sizeof(*t->branches));
	t->nr_branches = r->nr;
	return 0;
}

/* Instructions kept per thread: those shown, and enough recent ones to
 * name the symbols of the branches shown. */
#define CW_KEEP 32768u

int cw_run(struct cw *w, const char *path, unsigned last, unsigned insns)
{
	struct qpt_decoder_opts dopts;
	struct qpt_lbr_opts lopts;
	int err;

	w->k = insns > CW_KEEP ? insns : CW_KEEP;
	qpt_decoder_opts_init(&dopts);
	dopts.want = QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT |
		     QPT_WANT_SYMBOLS;
	err = qpt_decoder_new(&dopts, &w->dec);
	if (err)
		return err;
	qpt_lbr_opts_init(&lopts);
	lopts.depth = last ? last : 1;
	err = qpt_lbr_new(&lopts, on_lbr, w, &w->lbr);
	if (err)
		return err;
	err = qpt_decoder_run_file(w->dec, path, on_item, w);
	if (!err)
		err = qpt_lbr_finish(w->lbr);
	if (!last) {
		size_t i;

		for (i = 0; i < w->nr; i++)
			w->threads[i].nr_branches = 0;
	}
	return err;
}

const struct cw_insn *cw_insn_at(const struct cw *w,
				 const struct cw_thread *t, size_t i)
{
	if (!w->k || i >= t->insns || i >= w->k)
		return NULL;
	return &t->ring[(t->insns - 1 - i) % w->k];
}

const char *cw_sym(const struct cw *w, const struct cw_thread *t,
		   uint64_t ip, uint64_t *symoff)
{
	const struct cw_insn *in;
	size_t i;

	if (ip == t->end_ip && t->end_sym) {
		*symoff = t->end_symoff;
		return t->end_sym;
	}
	for (i = 0; (in = cw_insn_at(w, t, i)); i++)
		if (in->ip == ip) {
			*symoff = in->symoff;
			return in->sym;
		}
	return NULL;
}

void cw_free(struct cw *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->threads[i].ring);
		free(w->threads[i].stack);
		free(w->threads[i].branches);
	}
	free(w->threads);
	qpt_lbr_free(w->lbr);
	qpt_decoder_free(w->dec);
	memset(w, 0, sizeof(*w));
}
