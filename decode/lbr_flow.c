// SPDX-License-Identifier: MIT
/*
 * LBR records from a decoded flow: per thread a ring of the last N taken
 * branches (or, in call-stack mode, the stack of active calls a CALL_STACK
 * LBR holds: calls push, returns pop, and a ring of N slots keeps the
 * newest), handed out at the points asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/lbr_priv.h"

struct point {
	uint64_t time, ip;
};

struct lthread {
	int32_t pid, tid, cpu;
	struct qpt_lbr_entry *slots; /* depth slots, allocated at first use */
	uint8_t *valid;		     /* call-stack mode: slot holds a call */
	uint64_t tos;		     /* the slot of the newest entry */
	size_t n;		     /* any mode: entries held */
	/* a trace end waiting for the next trace begin */
	bool pend, crashed;
	unsigned pend_via;
	uint64_t pend_from, pend_cycles;
	uint64_t carry; /* cycles since the last entry, for the next one */
	uint64_t last_ip, time, insns;
	bool has_time, in_tx, sorted;
	struct point *pts;
	size_t nr_pts, cap_pts, next_pt;
};

struct qpt_lbr {
	struct qpt_lbr_opts o;
	qpt_lbr_fn fn;
	void *ctx;
	struct lthread *th;
	size_t nr_th, cap_th;
	struct qd_tidmap map;
	struct qpt_lbr_entry *scratch;
	uint64_t errpos;
	char errmsg[256];
};

void qd_lbr_set_error(struct qpt_lbr *l, uint64_t pos, const char *msg)
{
	l->errpos = pos;
	snprintf(l->errmsg, sizeof(l->errmsg), "%s", msg ? msg : "");
}

uint64_t qpt_lbr_errpos(const struct qpt_lbr *l)
{
	return l ? l->errpos : 0;
}

const char *qpt_lbr_errmsg(const struct qpt_lbr *l)
{
	return l ? l->errmsg : "";
}

void qpt_lbr_opts_init_sized(struct qpt_lbr_opts *out, size_t size)
{
	struct qpt_lbr_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	opts->depth = 32;
	opts->mode = QPT_LBR_ANY;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_lbr_new(const struct qpt_lbr_opts *opts, qpt_lbr_fn fn, void *ctx,
		struct qpt_lbr **out)
{
	struct qpt_lbr *l;
	struct qpt_lbr_opts o;

	if (!fn || !out)
		return -QPT_E_INVAL;
	qpt_lbr_opts_init(&o);
	if (opts && qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(size_t)))
		return -QPT_E_INVAL;
	if (!o.depth || o.depth > QPT_LBR_MAX_DEPTH ||
	    o.mode > QPT_LBR_CALL_STACK)
		return -QPT_E_INVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->o = o;
	l->fn = fn;
	l->ctx = ctx;
	l->scratch = calloc(o.depth, sizeof(*l->scratch));
	if (!l->scratch) {
		free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

void qpt_lbr_free(struct qpt_lbr *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr_th; i++) {
		free(l->th[i].slots);
		free(l->th[i].valid);
		free(l->th[i].pts);
	}
	free(l->th);
	qd_tidmap_free(&l->map);
	free(l->scratch);
	free(l);
}

static struct lthread *thread_get(struct qpt_lbr *l, int32_t tid)
{
	struct lthread *t;
	bool made;
	long i = qd_tid_slot(&l->map, &l->th, &l->nr_th, &l->cap_th,
			     sizeof(*t), tid, &made);

	if (i < 0)
		return NULL;
	t = &l->th[i];
	if (!made)
		return t;
	t->pid = -1;
	t->tid = tid;
	t->cpu = -1;
	t->tos = l->o.depth - 1; /* the first entry goes to slot 0 */
	return t;
}

int qpt_lbr_add_point(struct qpt_lbr *l, int32_t tid, uint64_t time,
		      uint64_t ip)
{
	struct lthread *t = thread_get(l, tid);

	if (!t)
		return -ENOMEM;
	if (qd_grow(&t->pts, &t->cap_pts, t->nr_pts + 1, sizeof(*t->pts)))
		return -ENOMEM;
	t->pts[t->nr_pts].time = time;
	t->pts[t->nr_pts].ip = ip;
	t->nr_pts++;
	t->sorted = false;
	return 0;
}

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The thread's entries, newest first, into the scratch array. */
static size_t snapshot(struct qpt_lbr *l, const struct lthread *t)
{
	uint64_t d = l->o.depth, i;
	size_t n = 0;

	if (!t->slots)
		return 0;
	for (i = 0; i < d; i++) {
		uint64_t k = (t->tos + d - i) % d;

		if (l->o.mode == QPT_LBR_CALL_STACK ? !t->valid[k] : i >= t->n)
			break;
		l->scratch[n++] = t->slots[k];
	}
	return n;
}

static int emit(struct qpt_lbr *l, const struct lthread *t, unsigned point,
		uint64_t ip, uint64_t time, bool has_time)
{
	struct qpt_lbr_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.struct_size = sizeof(rec);
	rec.entry_size = sizeof(*rec.entries);
	rec.point = point;
	rec.pid = t->pid;
	rec.tid = t->tid;
	rec.cpu = t->cpu;
	rec.ip = ip;
	rec.time = time;
	rec.has_time = has_time;
	rec.hw_idx = t->tos;
	rec.insns = t->insns;
	rec.nr = snapshot(l, t);
	rec.entries = l->scratch;
	return l->fn(&rec, l->ctx);
}

static int slots_alloc(struct qpt_lbr *l, struct lthread *t)
{
	if (t->slots)
		return 0;
	t->slots = calloc(l->o.depth, sizeof(*t->slots));
	t->valid = calloc(l->o.depth, 1);
	return t->slots && t->valid ? 0 : -ENOMEM;
}

/* A taken branch enters the thread's LBR. */
static int push(struct qpt_lbr *l, struct lthread *t,
		const struct qpt_lbr_entry *e)
{
	uint64_t d = l->o.depth;
	int err = slots_alloc(l, t);

	if (err)
		return err;
	if (l->o.mode == QPT_LBR_CALL_STACK) {
		if (e->kind == QPT_BR_RET) {
			/* a return pops, even a frame the LBR lost */
			t->valid[t->tos] = 0;
			t->tos = (t->tos + d - 1) % d;
			return 0;
		}
		if (e->kind != QPT_BR_CALL && e->kind != QPT_BR_IND_CALL)
			return 0;
	}
	t->tos = (t->tos + 1) % d;
	t->slots[t->tos] = *e;
	t->valid[t->tos] = 1;
	if (t->n < d)
		t->n++;
	return 0;
}

/* An entry of @t: its cycles are those since the thread's last entry
 * (trace gaps that made none included). */
static void entry_init(struct lthread *t, struct qpt_lbr_entry *e,
		       uint64_t from, uint64_t to, unsigned kind,
		       uint64_t cycles)
{
	cycles += t->carry;
	t->carry = 0;
	e->from = from;
	e->to = to;
	e->kind = (uint16_t)kind;
	e->cycles = cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles;
	e->flags = (uint16_t)((t->in_tx ? QPT_LBR_IN_TX : 0) |
			      (kind == QPT_BR_TX_ABORT ? QPT_LBR_ABORT : 0));
}

/*
 * The trace of @t resumes at @to after the trace end kept in @t: one
 * branch from where it stopped, unless it resumes where the flow would
 * have gone on anyway (after a syscall instruction, all two bytes long;
 * at the interrupted instruction).
 */
static int resume(struct qpt_lbr *l, struct lthread *t, uint64_t to,
		  uint64_t cycles)
{
	struct qpt_lbr_entry e;
	unsigned kind = t->pend_via;

	t->pend = false;
	t->carry += t->pend_cycles + cycles;
	if (!t->pend_from || !to)
		return 0;
	if ((kind == QPT_BR_SYSCALL && to == t->pend_from + 2) ||
	    (kind == QPT_BR_ASYNC && to == t->pend_from))
		return 0;
	if (kind == QPT_BR_NR)
		kind = QPT_BR_ASYNC;
	entry_init(t, &e, t->pend_from, to, kind, 0);
	return push(l, t, &e);
}

static int on_branch(struct qpt_lbr *l, struct lthread *t,
		     const struct qpt_item *it)
{
	struct qpt_lbr_entry e;

	switch (it->kind) {
	case QPT_BR_TRACE_END:
		t->pend = true;
		t->pend_from = it->ip;
		t->pend_via = it->via;
		t->pend_cycles = it->cycles;
		t->crashed = it->via == QPT_BR_ASYNC;
		if (it->ip)
			t->last_ip = it->ip;
		return 0;
	case QPT_BR_TRACE_BEGIN:
		t->crashed = false;
		if (!t->last_ip)
			t->last_ip = it->to;
		if (t->pend)
			return resume(l, t, it->to, it->cycles);
		t->carry += it->cycles;
		return 0;
	default:
		entry_init(t, &e, it->ip, it->to, it->kind, it->cycles);
		return push(l, t, &e);
	}
}

/* The sample points of @t before @time (all of them: UINT64_MAX). */
static int due_points(struct qpt_lbr *l, struct lthread *t, uint64_t time)
{
	int err;

	if (t->next_pt == t->nr_pts)
		return 0;
	if (!t->sorted) {
		qsort(t->pts + t->next_pt, t->nr_pts - t->next_pt,
		      sizeof(*t->pts), point_cmp);
		t->sorted = true;
	}
	while (t->next_pt < t->nr_pts && t->pts[t->next_pt].time < time) {
		const struct point *p = &t->pts[t->next_pt++];

		err = emit(l, t, QPT_LBR_AT_SAMPLE, p->ip, p->time, true);
		if (err)
			return err;
	}
	return 0;
}

/* The first version's item ends with cycles. */
#define ITEM_SIZE_V1 (offsetof(struct qpt_item, cycles) + 8)

int qpt_lbr_item(const struct qpt_item *it, void *arg)
{
	struct qpt_lbr *l = arg;
	struct lthread *t;
	int err;

	if (!it || !l || it->struct_size < ITEM_SIZE_V1)
		return -QPT_E_INVAL;
	t = thread_get(l, it->tid);
	if (!t)
		return -ENOMEM;
	if (it->pid >= 0)
		t->pid = it->pid;
	if (it->flags & QPT_ITEM_HAS_CPU)
		t->cpu = it->cpu;
	if (it->flags & QPT_ITEM_HAS_TIME) {
		err = t->next_pt < t->nr_pts ? due_points(l, t, it->time) : 0;
		if (err)
			return err;
		t->time = it->time;
		t->has_time = true;
	}
	switch (it->type) {
	case QPT_ITEM_INSN:
		if (l->o.period && t->insns && !(t->insns % l->o.period)) {
			err = emit(l, t, QPT_LBR_AT_PERIOD, it->ip, t->time,
				   t->has_time);
			if (err)
				return err;
		}
		t->insns++;
		t->last_ip = it->ip;
		return 0;
	case QPT_ITEM_BRANCH:
		return on_branch(l, t, it);
	default:
		if (it->kind == QPT_EV_TSX)
			t->in_tx = it->value & 1;
		/* trace lost on the way: where it resumes is no branch */
		if (it->kind == QPT_EV_OVERFLOW || it->kind == QPT_EV_ERROR ||
		    it->kind == QPT_EV_LOST)
			t->pend = false;
		return 0;
	}
}

int qpt_lbr_finish(struct qpt_lbr *l)
{
	size_t i;
	int err;

	for (i = 0; i < l->nr_th; i++) {
		struct lthread *t = &l->th[i];

		err = due_points(l, t, UINT64_MAX);
		if (!err && !l->o.no_end && (t->last_ip || t->n))
			err = emit(l, t, t->crashed ? QPT_LBR_AT_CRASH :
				   QPT_LBR_AT_END, t->last_ip, t->time,
				   t->has_time);
		if (err)
			return err;
	}
	return 0;
}
