// SPDX-License-Identifier: MIT
/*
 * Decoding the queues of a perf.data run.  Each trace position is decoded
 * against the address space of its process in force at that position: by
 * the trace's own time where it has TSC and the sideband has sample times,
 * else by where its AUX bytes stood against the sideband (the
 * PERF_RECORD_AUX records of its ring, or its AUXTRACE records).  Per-cpu
 * queues follow the context switches of their cpu as the trace time
 * advances.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/session.h"

/* The tables of one queue's decode. */
struct qrun {
	struct qd_session *s;
	const struct qd_queue *q;
	struct qd_mark *marks; /* increasing ends */
	size_t nr_marks;
	/* with PERF_RECORD_AUX marks: the AUXTRACE records', for bytes past
	 * the last of those (the padding of a payload, or bytes no AUX
	 * record announced) */
	struct qd_mark *tail;
	size_t nr_tail;
	const struct qd_switch *sw; /* this cpu's, in time order */
	size_t nr_sw, sw_pos;
	int32_t pid;   /* the process decoded, -1: unknown */
	uint64_t base; /* aux offset of the current run's first byte */
	struct qd_cut *cuts; /* where its ring lost trace, by offset */
	size_t nr_cuts, next_cut;
};

/* A lost-data record of a cpu or thread (@key), by file order (@i). */
struct lost_key {
	int32_t key;
	size_t i;
};

static int cmp_key(int32_t a, int32_t b, uint64_t ta, uint64_t tb)
{
	if (a != b)
		return a < b ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static int aux_cmp(const void *a, const void *b)
{
	const struct qd_mark *x = a, *y = b;

	return cmp_key(x->ring, y->ring, x->w.seq, y->w.seq);
}

static int sw_cmp(const void *a, const void *b)
{
	const struct qd_switch *x = a, *y = b;

	return cmp_key(x->cpu, y->cpu, x->seq, y->seq);
}

static int lost_cmp(const void *a, const void *b)
{
	const struct lost_key *x = a, *y = b;

	return cmp_key(x->key, y->key, x->i, y->i);
}

static int32_t aux_key(const void *m)
{
	return ((const struct qd_mark *)m)->ring;
}

static int32_t sw_key(const void *e)
{
	return ((const struct qd_switch *)e)->cpu;
}

static int32_t lost_key(const void *e)
{
	return ((const struct lost_key *)e)->key;
}

struct key_probe {
	int32_t key;
	int32_t (*key_of)(const void *elem);
	bool upto; /* elements with keys up to @key come before it, not below */
};

static bool key_before(const void *elem, const void *probe)
{
	const struct key_probe *k = probe;
	int32_t v = k->key_of(elem);

	return k->upto ? v <= k->key : v < k->key;
}

/* [*first, return) of the @n elements of @base (@size bytes each, sorted
 * by @key_of) whose key is @key. */
static size_t key_range(const void *base, size_t n, size_t size, int32_t key,
			int32_t (*key_of)(const void *), size_t *first)
{
	struct key_probe k = {key, key_of, false};
	const uint8_t *b = base;

	*first = 0;
	if (!n) /* @base may be NULL: no arithmetic on it */
		return 0;
	*first = qd_partition(base, n, size, key_before, &k);
	k.upto = true;
	return *first + qd_partition(b + *first * size, n - *first, size,
				     key_before, &k);
}

/* @src[first, end) with their ends increasing, into a new array. */
static struct qd_mark *increasing(const struct qd_mark *src, size_t first,
				  size_t end, size_t *n)
{
	struct qd_mark *m = malloc((end - first + 1) * sizeof(*m));
	size_t i;

	*n = 0;
	if (!m)
		return NULL;
	for (i = first; i < end; i++)
		if (!*n || src[i].end > m[*n - 1].end)
			m[(*n)++] = src[i];
	return m;
}

static int cut_cmp(const void *a, const void *b)
{
	const struct qd_cut *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->lost < y->lost ? -1 : x->lost > y->lost;
}

/* The AUX records of @q's ring: [*first, return) of the session's. */
static size_t ring_aux(const struct qd_session *s, const struct qd_queue *q,
		       size_t *first)
{
	int32_t key = s->per_cpu ? q->cpu : q->tid;

	*first = 0;
	if (key < 0)
		return 0;
	return key_range(s->aux, s->nr_aux, sizeof(*s->aux), key, aux_key,
			 first);
}

int qd_queue_cuts(const struct qd_session *s, const struct qd_queue *q,
		  struct qd_cut **cuts, size_t *n)
{
	size_t i, first, end = ring_aux(s, q, &first);

	*cuts = NULL;
	*n = 0;
	for (i = first; i < end; i++)
		*n += s->aux[i].cut;
	if (!*n)
		return 0;
	*cuts = malloc(*n * sizeof(**cuts));
	if (!*cuts)
		return -ENOMEM;
	*n = 0;
	for (i = first; i < end; i++)
		if (s->aux[i].cut)
			(*cuts)[(*n)++] =
			    (struct qd_cut){s->aux[i].end, s->aux[i].lost};
	qsort(*cuts, *n, sizeof(**cuts), cut_cmp);
	return 0;
}

/*
 * The marks of @qr's ring: its PERF_RECORD_AUX records, or else its
 * AUXTRACE records; kept while their ends increase (lookups bisect).
 */
static int queue_marks(struct qrun *qr)
{
	const struct qd_session *s = qr->s;
	size_t first, end = ring_aux(s, qr->q, &first);

	if (end == first) {
		qr->marks = increasing(qr->q->marks, 0, qr->q->nr_marks,
				       &qr->nr_marks);
		return qr->marks ? 0 : -ENOMEM;
	}
	qr->marks = increasing(s->aux, first, end, &qr->nr_marks);
	if (!qr->marks ||
	    qd_queue_cuts(s, qr->q, &qr->cuts, &qr->nr_cuts))
		return -ENOMEM;
	qr->tail = increasing(qr->q->marks, 0, qr->q->nr_marks, &qr->nr_tail);
	return qr->tail ? 0 : -ENOMEM;
}

static bool mark_ends_by(const void *m, const void *pos)
{
	return ((const struct qd_mark *)m)->end <= *(const uint64_t *)pos;
}

/* The sideband position of aux offset @pos: the first mark past it. */
static struct qd_when mark_when(const struct qrun *qr, uint64_t pos)
{
	static const struct qd_when end = {UINT64_MAX, UINT64_MAX};
	size_t i = qd_partition(qr->marks, qr->nr_marks, sizeof(*qr->marks),
				mark_ends_by, &pos);

	if (i < qr->nr_marks)
		return qr->marks[i].w;
	i = qd_partition(qr->tail, qr->nr_tail, sizeof(*qr->tail),
			 mark_ends_by, &pos);
	return i < qr->nr_tail ? qr->tail[i].w : end;
}

/* Follow the context switches of the queue's cpu up to time @t. */
static void follow_switches(struct qrun *qr, struct qd_flow_ctx *fc, uint64_t t)
{
	while (qr->sw_pos < qr->nr_sw && qr->sw[qr->sw_pos].time <= t) {
		const struct qd_switch *e = &qr->sw[qr->sw_pos++];

		fc->pid = e->pid;
		fc->tid = e->tid;
		if (qr->s->per_cpu)
			qr->pid = e->pid;
	}
}

static struct qd_space *locate(struct qd_flow_ctx *fc, uint64_t off,
			       bool has_tsc, uint64_t tsc, void *arg)
{
	struct qrun *qr = arg;
	struct qd_session *s = qr->s;
	struct qd_space *sp = NULL;
	struct qd_when at;

	if (has_tsc)
		follow_switches(qr, fc, qd_tsc_to_time(&s->tc, tsc));
	if (has_tsc && s->sb_timed && s->tc.valid) {
		at.time = qd_tsc_to_time(&s->tc, tsc);
		at.seq = UINT64_MAX;
	} else {
		at = mark_when(qr, qr->base + off);
	}
	if (qr->pid >= 0)
		sp = qd_hist_space(&s->hist, qr->pid, &at);
	return sp ? sp : s->hist.all;
}

/* @offset: the aux offset of a cut its ring's flow tells, else the
 * record's input offset. */
static int emit_one_lost(const struct qd_lost *l, const struct qd_queue *q,
			 uint64_t offset, qpt_item_fn fn, void *ctx)
{
	struct qpt_item it;

	memset(&it, 0, sizeof(it));
	it.struct_size = sizeof(it);
	it.type = QPT_ITEM_EVENT;
	it.kind = QPT_EV_LOST;
	it.via = QPT_BR_NR;
	it.queue = q->idx;
	it.cpu = l->cpu;
	it.tid = l->tid;
	it.pid = -1;
	it.offset = offset;
	it.msg = l->msg;
	if (l->cpu >= 0)
		it.flags |= QPT_ITEM_HAS_CPU;
	if (l->tid >= 0)
		it.flags |= QPT_ITEM_HAS_TID;
	if (l->has_time) {
		it.flags |= QPT_ITEM_HAS_TIME;
		it.time = l->time;
	}
	return fn(&it, ctx);
}

/* The recorded losses by cpu and by thread. */
struct lost_index {
	struct lost_key *by_cpu, *by_tid;
};

static int lost_index(const struct qd_session *s, struct lost_index *li)
{
	size_t i, n = s->nr_lost ? s->nr_lost : 1;

	li->by_cpu = malloc(n * sizeof(*li->by_cpu));
	li->by_tid = malloc(n * sizeof(*li->by_tid));
	if (!li->by_cpu || !li->by_tid)
		return -ENOMEM;
	for (i = 0; i < s->nr_lost; i++) {
		li->by_cpu[i] = (struct lost_key){s->lost[i].cpu, i};
		li->by_tid[i] = (struct lost_key){s->lost[i].tid, i};
	}
	qsort(li->by_cpu, s->nr_lost, sizeof(*li->by_cpu), lost_cmp);
	qsort(li->by_tid, s->nr_lost, sizeof(*li->by_tid), lost_cmp);
	return 0;
}

/* The recorded losses of @q's cpu (or thread) as items, in file order. */
static int emit_lost(struct qd_session *s, const struct lost_index *li,
		     const struct qd_queue *q, qpt_item_fn fn, void *ctx)
{
	const struct lost_key *keys = q->cpu >= 0 ? li->by_cpu : li->by_tid;
	size_t i, first = 0, end = s->nr_lost;
	int err;

	if (q->cpu >= 0 || q->tid >= 0)
		end =
		    key_range(keys, s->nr_lost, sizeof(*keys),
			      q->cpu >= 0 ? q->cpu : q->tid, lost_key, &first);
	for (i = first; i < end; i++) {
		const struct qd_lost *l =
		    &s->lost[q->cpu >= 0 || q->tid >= 0 ? keys[i].i : i];

		if (l->at_cut) /* told in the flow, where it was cut */
			continue;
		err = emit_one_lost(l, q, l->pos, fn, ctx);
		if (err)
			return err;
	}
	return 0;
}

/* The losses of @qr's ring cut at or before aux offset @at, told. */
static int tell_cuts(struct qrun *qr, struct qd_flow_ctx *fc, uint64_t at)
{
	struct qd_lost *l;
	int err;

	for (; qr->next_cut < qr->nr_cuts && qr->cuts[qr->next_cut].at <= at;
	     qr->next_cut++) {
		l = &qr->s->lost[qr->cuts[qr->next_cut].lost];
		if (l->told)
			continue;
		l->told = true;
		err = emit_one_lost(l, qr->q, qr->cuts[qr->next_cut].at,
				    fc->fn, fc->fn_ctx);
		if (err)
			return err;
	}
	return 0;
}

/* The losses no queue's flow told (a ring without trace). */
static int tell_untold(struct qd_session *s, qpt_item_fn fn, void *ctx)
{
	struct qd_queue none = {.cpu = -1, .tid = -1};
	size_t i;
	int err;

	for (i = 0; i < s->nr_lost; i++) {
		if (!s->lost[i].at_cut || s->lost[i].told)
			continue;
		s->lost[i].told = true;
		err = emit_one_lost(&s->lost[i], &none, s->lost[i].pos, fn,
				    ctx);
		if (err)
			return err;
	}
	return 0;
}

/* The process a queue decodes first: its thread's, or the only one. */
static int32_t first_pid(struct qd_session *s, const struct qd_queue *q,
			 struct qd_flow_ctx *fc)
{
	static const struct qd_when start;
	uint32_t pid;
	int32_t sole;

	if (q->tid >= 0 && qd_idmap_get(&s->tid_pid, (uint32_t)q->tid, &pid)) {
		fc->pid = (int32_t)pid;
		if (!s->per_cpu && qd_hist_space(&s->hist, fc->pid, &start))
			return fc->pid;
	}
	return qd_hist_sole_pid(&s->hist, &sole) ? sole : -1;
}

/*
 * Run @r of @qr's queue, in pieces where its ring lost trace: the bytes
 * after a loss do not continue the flow before it (the source stopped
 * mid-stream), so each piece is decoded from its first PSB, as perf does
 * after a loss; a piece with none holds nothing to decode and is no
 * error.  Each loss is told in the flow where it cut the trace.
 */
static int decode_run(struct qrun *qr, struct qd_flow_ctx *fc,
		      const struct qd_run *r)
{
	uint64_t end = r->start + r->len, from = r->start, to;
	size_t i;
	int err;

	fc->after_loss = false;
	for (;;) {
		i = qr->next_cut;
		if (i < qr->nr_cuts && qr->cuts[i].at <= from)
			fc->after_loss = true;
		err = tell_cuts(qr, fc, from);
		if (err)
			return err;
		i = qr->next_cut;
		to = i < qr->nr_cuts && qr->cuts[i].at < end ? qr->cuts[i].at
							     : end;
		qr->base = from;
		fc->offset_base = from;
		fc->space = locate(fc, 0, false, 0, qr);
		/* an empty run's data may be NULL: no arithmetic on it */
		err = to == from ? 0
				 : qd_flow_run(fc, &qr->s->cfg,
					       r->data + (from - r->start),
					       (size_t)(to - from));
		if (err || to == end)
			return err;
		from = to;
	}
}

static int decode_queue(struct qd_session *s, const struct qd_queue *q,
			const struct lost_index *li,
			struct qx86_cache *cache, qpt_item_fn fn, void *ctx)
{
	struct qrun qr = {.s = s, .q = q};
	struct qd_flow_ctx fc;
	size_t k, first;
	int err;

	memset(&fc, 0, sizeof(fc));
	fc.want = s->dec->opts.want;
	fc.fn = fn;
	fc.fn_ctx = ctx;
	fc.tc = s->tc;
	fc.queue = q->idx;
	fc.cpu = q->cpu;
	fc.tid = q->tid;
	fc.pid = -1;
	fc.stats = &s->dec->stats;
	fc.runs = s->dec->runs;
	fc.prof = s->dec->prof;
	fc.cov = s->dec->cov;
	fc.paths = s->dec->paths;
	fc.progress = s->progress;
	fc.libipt_only = s->dec->opts.libipt_only;
	fc.cache = cache;
	fc.locate = locate;
	fc.locate_arg = &qr;
	qr.pid = first_pid(s, q, &fc);
	if (q->cpu >= 0) {
		k = key_range(s->sw, s->nr_sw, sizeof(*s->sw), q->cpu, sw_key,
			      &first);
		qr.sw = k > first ? s->sw + first : NULL;
		qr.nr_sw = k - first;
	}
	err = queue_marks(&qr);
	if (!err)
		err = emit_lost(s, li, q, fn, ctx);
	for (k = 0; !err && k < q->nr_runs; k++)
		err = decode_run(&qr, &fc, &q->runs[k]);
	if (!err) /* the losses past its last byte */
		err = tell_cuts(&qr, &fc, UINT64_MAX);
	free(qr.marks);
	free(qr.tail);
	free(qr.cuts);
	return err;
}

/* The trace bytes of the session's queues. */
static uint64_t trace_total(const struct qd_session *s)
{
	uint64_t n = 0;
	size_t i, k;

	for (i = 0; i < s->nr_queues; i++)
		for (k = 0; k < s->queues[i].nr_runs; k++)
			n += s->queues[i].runs[k].len;
	return n;
}

void qd_session_prepare(struct qd_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_aux; i++)
		s->aux[i].ring = s->per_cpu ? s->aux[i].cpu : s->aux[i].tid;
	if (s->aux)
		qsort(s->aux, s->nr_aux, sizeof(*s->aux), aux_cmp);
	if (s->sw)
		qsort(s->sw, s->nr_sw, sizeof(*s->sw), sw_cmp);
}

int qd_session_decode(struct qd_session *s, qpt_item_fn fn, void *ctx)
{
	struct qx86_cache *cache = qd_decoder_caches(s->dec);
	struct lost_index li;
	size_t i;
	int err;

	qd_session_prepare(s);
	err = lost_index(s, &li);
	s->progress = qd_decoder_progress(s->dec, trace_total(s));
	for (i = 0; !err && i < s->nr_queues; i++)
		err = decode_queue(s, &s->queues[i], &li, cache, fn, ctx);
	if (!err)
		err = tell_untold(s, fn, ctx);
	free(li.by_cpu);
	free(li.by_tid);
	return err;
}
