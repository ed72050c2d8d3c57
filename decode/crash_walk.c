// SPDX-License-Identifier: MIT
/*
 * The crash walk (qpt/crash_walk.h): per thread, a ring of the last
 * instructions, the stack rebuilt from its control transfers
 * (crash_stack.c), the last throw, and the last taken branches from the
 * LBR tracker (decode/lbr_*.c), which hands out each thread's last N at
 * the end of its trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/crash_stack.h"
#include "decode/decoder.h"
#include "decode/lbr_priv.h"
#include "qpt/crash_walk.h"

struct cw_thread {
	int32_t pid, tid;
	uint64_t insns;		     /* instructions in the window */
	struct qpt_crash_insn *ring; /* the last k, ring[(n - 1) % k] newest */
	size_t ring_cap;	     /* grows with the instructions, up to k */
	struct cs_thread cs;	     /* the stack */
	struct qpt_crash_insn first; /* the window's first instruction */
	bool began;		     /* the window begins with the trace */
	bool ended;		     /* a trace end came, no begin yet */
	bool ended_async;	     /* the trace ends at an async stop */
	unsigned end_via;	     /* why it ended */
	uint64_t end_ip, end_symoff; /* where the trace ends */
	const char *end_sym;
	bool sigreturn, exec; /* the system call that ended it was one */
	struct qpt_lbr_entry *branches; /* newest first */
	size_t nr_branches;
	bool threw;
	struct qpt_crash_throw thr; /* the last throw */
};

struct qpt_crash_walk {
	struct qpt_lbr *lbr; /* NULL when no branches are kept */
	unsigned k;	     /* instructions kept per thread */
	struct cw_thread *threads;
	size_t nr, cap;
	bool finished;
};

void qpt_crash_walk_opts_init_sized(struct qpt_crash_walk_opts *out,
				    size_t size)
{
	struct qpt_crash_walk_opts o;

	memset(&o, 0, sizeof(o));
	o.last = 16;
	o.insns = 16;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

static int on_lbr(const struct qpt_lbr_record *r, void *ctx);

int qpt_crash_walk_new(const struct qpt_crash_walk_opts *opts,
		       struct qpt_crash_walk **out)
{
	struct qpt_crash_walk_opts o;
	struct qpt_crash_walk *w;
	struct qpt_lbr_opts lopts;
	int err;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	qpt_crash_walk_opts_init(&o);
	if ((opts && qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(o))) ||
	    o.last > QPT_LBR_MAX_DEPTH || o.insns > QPT_CRASH_WALK_MAX_INSNS)
		return -QPT_E_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->k = o.insns > QPT_CRASH_WALK_KEEP ? o.insns : QPT_CRASH_WALK_KEEP;
	if (o.last) {
		qpt_lbr_opts_init(&lopts);
		lopts.depth = o.last;
		err = qpt_lbr_new(&lopts, on_lbr, w, &w->lbr);
		if (err) {
			free(w);
			return err;
		}
	}
	*out = w;
	return 0;
}

void qpt_crash_walk_free(struct qpt_crash_walk *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr; i++) {
		free(w->threads[i].ring);
		cs_release(&w->threads[i].cs);
		free(w->threads[i].branches);
	}
	free(w->threads);
	qpt_lbr_free(w->lbr);
	free(w);
}

static struct cw_thread *find(const struct qpt_crash_walk *w, int32_t tid)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (w->threads[i].tid == tid)
			return &w->threads[i];
	return NULL;
}

static struct cw_thread *get_thread(struct qpt_crash_walk *w,
				    const struct qpt_item *it)
{
	struct cw_thread *t = find(w, it->tid);

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
	t->pid = it->pid;
	t->tid = it->tid;
	t->cs.cur.base_next = true; /* the first instruction */
	w->nr++;
	return t;
}

static void fill_insn(struct qpt_crash_insn *d, const struct qpt_item *it)
{
	d->ip = it->ip;
	d->sym = it->sym;
	d->symoff = it->symoff;
	d->size = it->size;
	memcpy(d->raw, it->raw, sizeof(d->raw));
}

/* Instruction @i kept of @t (0: the newest), or NULL. */
static const struct qpt_crash_insn *
insn_at(const struct qpt_crash_walk *w, const struct cw_thread *t, size_t i);

/* The length of the call at @ip: the newest instruction's. */
static uint8_t call_size(const struct qpt_crash_walk *w,
			 const struct cw_thread *t, uint64_t ip)
{
	const struct qpt_crash_insn *in = insn_at(w, t, 0);

	return in && in->ip == ip ? in->size : 0;
}

/* Whether the instruction before the newest (a system call) loads @nr
 * into eax or rax: mov eax, imm32 or mov rax, imm32. */
static bool syscall_nr(const struct qpt_crash_walk *w,
		       const struct cw_thread *t, uint32_t nr)
{
	const struct qpt_crash_insn *sc = insn_at(w, t, 0);
	const struct qpt_crash_insn *in = insn_at(w, t, 1);
	uint32_t v;

	if (!sc || !in || in->ip + in->size != sc->ip)
		return false;
	if (in->size == 5 && in->raw[0] == 0xb8)
		memcpy(&v, in->raw + 1, 4);
	else if (in->size == 7 && in->raw[0] == 0x48 && in->raw[1] == 0xc7 &&
		 in->raw[2] == 0xc0)
		memcpy(&v, in->raw + 3, 4);
	else
		return false;
	return v == nr;
}

/* A call of __cxa_throw or __cxa_rethrow at @it: the last throw, with
 * the instructions of its function that led to it. */
static void note_throw(const struct qpt_crash_walk *w, struct cw_thread *t,
		       const struct qpt_item *it, bool rethrow)
{
	struct qpt_crash_throw *r = &t->thr;
	const struct qpt_crash_insn *in;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->site = it->ip;
	r->sym = it->sym;
	r->symoff = it->symoff;
	r->rethrow = rethrow;
	r->at = t->insns;
	while (n < QPT_CRASH_THROW_INSNS && (in = insn_at(w, t, n)) &&
	       in->sym == it->sym)
		n++;
	r->nr_insns = n;
	for (; n > 0; n--)
		r->insns[r->nr_insns - n] = *insn_at(w, t, n - 1);
	t->threw = true;
}

static int on_branch(const struct qpt_crash_walk *w, struct cw_thread *t,
		     const struct qpt_item *it)
{
	bool rethrow;

	switch (it->kind) {
	case QPT_BR_CALL:
	case QPT_BR_IND_CALL:
		if (cs_is_throw(it->to_sym, &rethrow))
			note_throw(w, t, it, rethrow);
		return cs_call(&t->cs, it->ip, call_size(w, t, it->ip), it->sym,
			       it->symoff, it->to_sym);
	case QPT_BR_RET:
		return cs_ret(&t->cs, it->ip, it->sym, it->symoff, it->to);
	case QPT_BR_JCC:
	case QPT_BR_JMP:
	case QPT_BR_IND_JMP:
		cs_jump(&t->cs, it->ip, it->sym, it->symoff, it->to);
		return 0;
	case QPT_BR_TRACE_END:
		if (t->cs.pend != CS_PEND_NONE) /* stopped where it went */
			cs_settle(&t->cs, it->ip, it->sym, it->symoff);
		t->end_ip = it->ip;
		t->end_sym = it->sym;
		t->end_symoff = it->symoff;
		t->ended_async = it->via == QPT_BR_ASYNC;
		t->end_via = it->via;
		t->ended = true;
		/* rt_sigreturn (15), execve (59), execveat (322) */
		t->sigreturn = syscall_nr(w, t, 15);
		t->exec = syscall_nr(w, t, 59) || syscall_nr(w, t, 322);
		return 0;
	case QPT_BR_TRACE_BEGIN:
		if (!t->insns)
			t->began = true;
		t->ended_async = false;
		if (!t->ended)
			return 0;
		t->ended = false;
		return cs_resume(&t->cs, it->to, t->end_via, t->end_ip,
				 t->end_sym, t->end_symoff, t->sigreturn,
				 t->exec);
	default:
		return 0;
	}
}

static int on_insn(const struct qpt_crash_walk *w, struct cw_thread *t,
		   const struct qpt_item *it)
{
	size_t i = t->insns % w->k; /* i == insns until the ring is full */

	if (i >= t->ring_cap &&
	    qd_grow(&t->ring, &t->ring_cap, i + 1, sizeof(*t->ring)))
		return -ENOMEM;
	if (!t->insns)
		fill_insn(&t->first, it);
	t->cs.insns = t->insns;
	cs_insn(&t->cs, it->ip, it->sym, it->symoff);
	fill_insn(&t->ring[i], it);
	t->insns++;
	t->end_ip = it->ip;
	t->end_sym = it->sym;
	t->end_symoff = it->symoff;
	return 0;
}

/* The first version's struct qpt_item ends with cycles. */
#define ITEM_SIZE_V1 (offsetof(struct qpt_item, cycles) + 8)

int qpt_crash_walk_item(const struct qpt_item *it, void *ctx)
{
	struct qpt_crash_walk *w = ctx;
	struct cw_thread *t;
	int err;

	if (!w || !it || it->struct_size < ITEM_SIZE_V1)
		return -QPT_E_INVAL;
	if (w->finished)
		return -QPT_E_STATE;
	if (w->lbr) {
		err = qpt_lbr_item(it, w->lbr);
		if (err)
			return err;
	}
	if (!(it->flags & QPT_ITEM_HAS_TID))
		return 0;
	t = get_thread(w, it);
	if (!t)
		return -ENOMEM;
	if (it->type == QPT_ITEM_BRANCH)
		return on_branch(w, t, it);
	if (it->type == QPT_ITEM_INSN)
		return on_insn(w, t, it);
	return 0;
}

/* The LBR tracker's record at the end of each thread's trace. */
static int on_lbr(const struct qpt_lbr_record *r, void *ctx)
{
	struct qpt_crash_walk *w = ctx;
	struct cw_thread *t = find(w, r->tid);
	size_t i;

	if (!t || (r->point != QPT_LBR_AT_END && r->point != QPT_LBR_AT_CRASH))
		return 0;
	free(t->branches);
	t->nr_branches = 0;
	t->branches = r->nr ? malloc(r->nr * sizeof(*t->branches)) : NULL;
	if (r->nr && !t->branches)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++)
		t->branches[i] = *qpt_lbr_record_entry(r, i);
	t->nr_branches = r->nr;
	return 0;
}

int qpt_crash_walk_finish(struct qpt_crash_walk *w)
{
	if (!w)
		return -QPT_E_INVAL;
	if (w->finished)
		return -QPT_E_STATE;
	w->finished = true;
	return w->lbr ? qpt_lbr_finish(w->lbr) : 0;
}

int qpt_crash_walk_run_file(struct qpt_crash_walk *w, struct qpt_decoder *dec,
			    const char *path)
{
	const unsigned need = QPT_WANT_INSN | QPT_WANT_BRANCH;
	int err;

	if (!w || !dec || (dec->opts.want & need) != need)
		return -QPT_E_INVAL;
	err = qpt_decoder_run_file(dec, path, qpt_crash_walk_item, w);
	return err ? err : qpt_crash_walk_finish(w);
}

size_t qpt_crash_walk_nr_threads(const struct qpt_crash_walk *w)
{
	return w ? w->nr : 0;
}

int qpt_crash_walk_find(const struct qpt_crash_walk *w, int32_t tid)
{
	const struct cw_thread *t = w ? find(w, tid) : NULL;

	return t ? (int)(t - w->threads) : -QPT_E_INVAL;
}

static const struct cw_thread *thread_at(const struct qpt_crash_walk *w,
					 size_t i)
{
	return w && i < w->nr ? &w->threads[i] : NULL;
}

static size_t nr_kept(const struct qpt_crash_walk *w, const struct cw_thread *t)
{
	return t->insns < w->k ? (size_t)t->insns : w->k;
}

/* Whether the window's outermost function is in more than one of the
 * frames (the stack's and the end's): a recursion that goes on beyond the
 * window's start. */
static bool deeper(const struct cw_thread *t)
{
	const struct cs_stack *s = &t->cs.cur;
	size_t i, n = 0;

	if (t->began || s->switched || !s->base_sym)
		return false;
	for (i = 0; i < s->depth; i++)
		if (s->f[i].sym && !strcmp(s->f[i].sym, s->base_sym))
			n++;
	if (t->end_sym && !strcmp(t->end_sym, s->base_sym))
		n++;
	return n >= 2;
}

/* The first version's sizes: up to the fields added since. */
#define THREAD_SIZE_V1 offsetof(struct qpt_crash_thread, tail_call)
#define FRAME_SIZE_V1 offsetof(struct qpt_crash_frame, tail_call)
#define INSN_SIZE_V1 sizeof(struct qpt_crash_insn)
#define BRANCH_SIZE_V1 sizeof(struct qpt_lbr_entry)
#define EXIT_SIZE_V1 sizeof(struct qpt_crash_exit)
#define THROW_SIZE_V1 sizeof(struct qpt_crash_throw)

int qpt_crash_walk_thread_sized(const struct qpt_crash_walk *w, size_t thread,
				struct qpt_crash_thread *out, size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);
	const struct cs_stack *cs;
	struct qpt_crash_thread s;

	if (!t || !out || size < THREAD_SIZE_V1)
		return -QPT_E_INVAL;
	cs = &t->cs.cur;
	memset(&s, 0, sizeof(s));
	s.pid = t->pid;
	s.tid = t->tid;
	s.insns = t->insns;
	s.nr_frames = cs->depth;
	s.nr_insns = nr_kept(w, t);
	s.nr_branches = t->nr_branches;
	s.below = cs->below;
	s.began = t->began;
	s.ended_async = t->ended_async;
	s.deeper = deeper(t);
	s.first_ip = t->first.ip;
	s.first_sym = t->first.sym;
	s.first_symoff = t->first.symoff;
	s.base_ip = cs->base_ip;
	s.base_sym = cs->base_sym;
	s.base_symoff = cs->base_symoff;
	s.end_ip = t->end_ip;
	s.end_sym = t->end_sym;
	s.end_symoff = t->end_symoff;
	s.tail_call = cs->tail.on;
	s.tail_from = cs->tail.from;
	s.tail_sym = cs->tail.sym;
	s.tail_symoff = cs->tail.symoff;
	s.switched = cs->switched;
	s.switch_from = cs->sw_from;
	s.switch_sym = cs->sw_sym;
	s.switch_symoff = cs->sw_symoff;
	s.nr_exits = t->cs.nr_exits;
	qpt_sized_copy(out, size, &s, sizeof(s));
	return 0;
}

int qpt_crash_walk_frame_sized(const struct qpt_crash_walk *w, size_t thread,
			       size_t i, struct qpt_crash_frame *f, size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);
	const struct cs_frame *c;
	struct qpt_crash_frame s;

	if (!t || i >= t->cs.cur.depth || !f || size < FRAME_SIZE_V1)
		return -QPT_E_INVAL;
	c = &t->cs.cur.f[t->cs.cur.depth - 1 - i];
	memset(&s, 0, sizeof(s));
	s.site = c->site;
	s.sym = c->sym;
	s.symoff = c->symoff;
	s.signal = c->signal;
	s.tail_call = c->tail.on;
	s.tail_from = c->tail.from;
	s.tail_sym = c->tail.sym;
	s.tail_symoff = c->tail.symoff;
	qpt_sized_copy(f, size, &s, sizeof(s));
	return 0;
}

int qpt_crash_walk_exit_sized(const struct qpt_crash_walk *w, size_t thread,
			      unsigned kind, struct qpt_crash_exit *e,
			      size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);

	if (!t || kind >= QPT_CRASH_EXIT_NR || !e || size < EXIT_SIZE_V1)
		return -QPT_E_INVAL;
	if (!t->cs.exits[kind].kind)
		return 0;
	qpt_sized_copy(e, size, &t->cs.exits[kind], sizeof(*e));
	return 1;
}

int qpt_crash_walk_throw_sized(const struct qpt_crash_walk *w, size_t thread,
			       struct qpt_crash_throw *r, size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);

	if (!t || !r || size < THROW_SIZE_V1)
		return -QPT_E_INVAL;
	if (!t->threw)
		return 0;
	qpt_sized_copy(r, size, &t->thr, sizeof(*r));
	return 1;
}

static const struct qpt_crash_insn *insn_at(const struct qpt_crash_walk *w,
					    const struct cw_thread *t, size_t i)
{
	if (i >= nr_kept(w, t))
		return NULL;
	return &t->ring[(t->insns - 1 - i) % w->k];
}

int qpt_crash_walk_insn_sized(const struct qpt_crash_walk *w, size_t thread,
			      size_t i, struct qpt_crash_insn *in, size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);
	const struct qpt_crash_insn *src = t ? insn_at(w, t, i) : NULL;

	if (!src || !in || size < INSN_SIZE_V1)
		return -QPT_E_INVAL;
	qpt_sized_copy(in, size, src, sizeof(*src));
	return 0;
}

int qpt_crash_walk_branch_sized(const struct qpt_crash_walk *w, size_t thread,
				size_t i, struct qpt_lbr_entry *e, size_t size)
{
	const struct cw_thread *t = thread_at(w, thread);

	if (!t || i >= t->nr_branches || !e || size < BRANCH_SIZE_V1)
		return -QPT_E_INVAL;
	qpt_sized_copy(e, size, &t->branches[i], sizeof(*e));
	return 0;
}

int qpt_crash_walk_sym(const struct qpt_crash_walk *w, size_t thread,
		       uint64_t ip, const char **sym, uint64_t *symoff)
{
	const struct cw_thread *t = thread_at(w, thread);
	const struct qpt_crash_insn *in;
	size_t i;

	if (!t || !sym || !symoff)
		return -QPT_E_INVAL;
	if (ip == t->end_ip && t->end_sym) {
		*sym = t->end_sym;
		*symoff = t->end_symoff;
		return 1;
	}
	for (i = 0; (in = insn_at(w, t, i)); i++)
		if (in->ip == ip) {
			if (!in->sym)
				return 0;
			*sym = in->sym;
			*symoff = in->symoff;
			return 1;
		}
	return 0;
}
