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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cursor.h"



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
			(*cuts)[(*n)++] = (struct qd_cut){s->aux[i].end,
							  s->aux[i].lost, false};
	qsort(*cuts, *n, sizeof(**cuts), cut_cmp);
	return 0;
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
static bool max_upto(const void *m, const void *t)
{
	return *(const uint64_t *)m <= *(const uint64_t *)t;
}

/* Follow the context switches of the queue's cpu up to time @t: those
 * before the first one after @t, in file order (the latest decides). */
static void follow_switches(struct qrun *qr, struct qd_flow_ctx *fc, uint64_t t)
{
	size_t end = qr->sw_pos;
	const struct qd_switch *e;

	if (end < qr->nr_sw && qr->sw[end].time <= t)
		end += qd_partition(qr->sw_max + end, qr->nr_sw - end,
				    sizeof(*qr->sw_max), max_upto, &t);
	if (end == qr->sw_pos)
		return;
	qr->sw_pos = end;
	e = &qr->sw[end - 1];
	fc->pid = e->pid;
	fc->tid = e->tid;
	if (qr->s->per_cpu)
		qr->pid = e->pid;
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
		at = mark_when(qr, off);
	}
	if (qr->pid >= 0)
		sp = qd_hist_space(qr->hist, qr->pid, &at);
	return sp ? sp : qr->hist->all;
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


int qd_lost_index(const struct qd_session *s, struct lost_index *li)
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

/* The losses of @qr's ring cut at or before aux offset @at: to be told
 * (each once), where the flow is now. */
static void pass_cuts(struct qd_cursor *c, uint64_t at)
{
	struct qrun *qr = &c->qr;
	struct qd_lost *l;

	for (; c->next_cut < qr->nr_cuts && qr->cuts[c->next_cut].at <= at;
	     c->next_cut++) {
		l = &qr->s->lost[qr->cuts[c->next_cut].lost];
		qr->cuts[c->next_cut].tell = !l->told;
		l->told = true;
	}
}

/* The losses to tell before @part (pass_cuts marked them). */
static int tell_cuts(const struct qrun *qr, const struct qd_part *part,
		     qpt_item_fn fn, void *ctx)
{
	size_t k;
	int err;

	for (k = part->cut_lo; k < part->cut_hi; k++) {
		if (!qr->cuts[k].tell)
			continue;
		err = emit_one_lost(&qr->s->lost[qr->cuts[k].lost], qr->q,
				    qr->cuts[k].at, fn, ctx);
		if (err)
			return err;
	}
	return 0;
}

int qd_session_untold(struct qd_session *s, qpt_item_fn fn, void *ctx)
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


int qd_cursor_lost(const struct qd_cursor *c, qpt_item_fn fn, void *ctx)
{
	return emit_lost(c->qr.s, c->li, c->qr.q, fn, ctx);
}

int qd_cursor_init(struct qd_cursor *c, struct qd_session *s,
		   const struct qd_queue *q, const struct lost_index *li,
		   struct qx86_cache *cache, qpt_item_fn fn, void *ctx)
{
	struct qd_flow_ctx *fc = &c->fc;
	size_t k, first;

	memset(c, 0, sizeof(*c));
	c->qr.s = s;
	c->qr.hist = &s->hist;
	c->qr.q = q;
	c->li = li;
	fc->want = s->dec->opts.want;
	fc->fn = c->fn = fn;
	fc->fn_ctx = c->fn_ctx = ctx;
	fc->tc = s->tc;
	fc->queue = q->idx;
	fc->cpu = q->cpu;
	fc->tid = q->tid;
	fc->pid = -1;
	fc->stats = &s->dec->stats;
	fc->runs = s->dec->runs;
	fc->prof = s->dec->prof;
	fc->cov = s->dec->cov;
	fc->paths = s->dec->paths;
	fc->blks = s->dec->blks;
	fc->progress = s->progress;
	fc->libipt_only = s->dec->opts.libipt_only;
	fc->cache = cache;
	fc->locate = locate;
	fc->locate_arg = &c->qr;
	c->pid0 = c->qr.pid = first_pid(s, q, fc);
	c->fpid0 = fc->pid;
	if (q->cpu >= 0) {
		k = key_range(s->sw, s->nr_sw, sizeof(*s->sw), q->cpu, sw_key,
			      &first);
		c->qr.sw = k > first ? s->sw + first : NULL;
		c->qr.nr_sw = k - first;
		c->qr.sw_max = malloc((k - first + 1) * sizeof(uint64_t));
		if (!c->qr.sw_max)
			return -ENOMEM;
		for (k = 0; k < c->qr.nr_sw; k++)
			c->qr.sw_max[k] = k && c->qr.sw_max[k - 1] >
						    c->qr.sw[k].time ?
					      c->qr.sw_max[k - 1] :
					      c->qr.sw[k].time;
	}
	return queue_marks(&c->qr);
}

/* The trace bytes of the session's queues. */
uint64_t qd_session_trace_bytes(const struct qd_session *s)
{
	uint64_t n = 0;
	size_t i, k;

	for (i = 0; i < s->nr_queues; i++)
		for (k = 0; k < s->queues[i].nr_runs; k++)
			n += s->queues[i].runs[k].len;
	return n;
}

void qd_cursor_fini(struct qd_cursor *c)
{
	qd_flow_close(c->flow);
	free(c->part.buf);
	qd_cutter_fini(&c->cut);
	free(c->qr.marks);
	free(c->qr.tail);
	free(c->qr.sw_max);
	free(c->qr.cuts);
	free(c->held);
}

/*
 * The next stretch of run c->run from c->from on, up to its ring's next
 * loss: the bytes after a loss do not continue the flow before it (the
 * source stopped mid-stream), so each stretch is decoded from its first
 * PSB, as perf does after a loss (a stretch with none holds nothing to
 * decode and is no error), and the losses are told where they cut.
 */
static void stretch_begin(struct qd_cursor *c)
{
	const struct qd_run *r = &c->qr.q->runs[c->run];
	struct qrun *qr = &c->qr;
	uint64_t from = r->start + c->from;

	c->after_loss = c->next_cut < qr->nr_cuts &&
			qr->cuts[c->next_cut].at <= from;
	c->cut_lo = c->next_cut;
	pass_cuts(c, from);
	c->cut_hi = c->next_cut;
	c->to = r->len;
	if (c->next_cut < qr->nr_cuts &&
	    qr->cuts[c->next_cut].at < r->start + r->len)
		c->to = qr->cuts[c->next_cut].at - r->start;
	qd_cutter_init(&c->cut, qr->s, r, c->from, c->to);
	c->cutting = c->part_first = true;
}

/* The part cut (@has: else an empty one, for the losses to tell). */
static int part_made(struct qd_cursor *c, bool has)
{
	struct qd_part *part = &c->part;

	if (!has) {
		memset(part, 0, sizeof(*part));
		part->off = c->from;
	}
	part->run_start = c->run < c->qr.q->nr_runs
				  ? c->qr.q->runs[c->run].start
				  : 0;
	part->after_loss = c->after_loss;
	if (c->part_first) {
		part->cut_lo = c->cut_lo;
		part->cut_hi = c->cut_hi;
	}
	return 1;
}

int qd_cursor_cut(struct qd_cursor *c)
{
	const struct qd_queue *q = c->qr.q;
	bool untold;
	int ret;

	while (c->run < q->nr_runs) {
		if (!c->cutting)
			stretch_begin(c);
		untold = c->part_first && c->cut_lo < c->cut_hi;
		ret = qd_cutter_next(&c->cut, &c->part);
		if (ret < 0)
			return ret;
		if (ret || untold) {
			ret = part_made(c, ret);
			c->cut_lo = c->cut_hi; /* told with this part */
			return ret;
		}
		qd_cutter_fini(&c->cut);
		c->cutting = false;
		c->from = c->to;
		if (c->to == q->runs[c->run].len) {
			c->run++;
			c->from = 0;
		}
	}
	/* the losses past the queue's last byte */
	c->cut_lo = c->next_cut;
	pass_cuts(c, UINT64_MAX);
	c->cut_hi = c->next_cut;
	if (c->cut_lo == c->cut_hi)
		return 0;
	c->part_first = true;
	return part_made(c, false);
}

/* A part's flow starts from the queue's state at its start (@qr, @fc:
 * the cursor's or copies), its spaces from qr->hist. */
static int part_open(const struct qd_cursor *c, struct qrun *qr,
		     struct qd_flow_ctx *fc, const struct qd_part *part,
		     uint64_t run_start, struct qd_flow **flow)
{
	int err;

	qr->sw_pos = 0;
	qr->pid = c->pid0;
	fc->pid = c->fpid0;
	fc->tid = qr->q->tid;
	fc->offset_base = run_start + part->off;
	fc->after_loss = part->after_loss;
	fc->locate_arg = qr;
	err = tell_cuts(qr, part, fc->fn, fc->fn_ctx);
	if (err)
		return err;
	fc->space = locate(fc, fc->offset_base, false, 0, qr);
	return qd_flow_open(fc, &qr->s->cfg, part->buf, part->len, part->own,
			    flow);
}

/* The next part of the queue, its flow open; 0 at the end of the queue. */
static int cursor_open(struct qd_cursor *c)
{
	int ret = qd_cursor_cut(c);

	if (ret <= 0)
		return ret;
	if (c->part_first)
		memset(&c->fc.carry, 0, sizeof(c->fc.carry));
	c->part_first = false;
	ret = part_open(c, &c->qr, &c->fc, &c->part, c->part.run_start,
			&c->flow);
	return ret ? ret : 1;
}

int qd_cursor_part(const struct qd_cursor *c, const struct qd_part *part,
		   struct qd_part_env *env)
{
	struct qrun qr = c->qr;
	struct qd_flow_ctx fc = c->fc;
	struct qd_flow *flow;
	uint64_t t;
	int ret;

	qr.hist = env->tab.hist;
	fc.fn = env->fn;
	fc.fn_ctx = env->fn_ctx;
	fc.stats = env->stats;
	fc.cache = env->tab.cache;
	fc.runs = env->tab.runs;
	fc.paths = env->tab.paths;
	fc.blks = env->tab.blks;
	/* the decoder's tables and the progress are the calling thread's */
	fc.prof = NULL;
	fc.cov = NULL;
	fc.progress = NULL;
	fc.head = env->head;
	fc.carry = env->carry;
	ret = part_open(c, &qr, &fc, part, part->run_start, &flow);
	if (ret)
		return ret;
	do {
		bool has;
		int stop;

		ret = qd_flow_step(flow);
		has = qd_flow_time(flow, &t);
		stop = env->mark(env->mark_arg, ret, has, t);
		if (stop) {
			qd_flow_close(flow);
			return stop;
		}
	} while (ret > 0);
	qd_flow_close(flow);
	env->carry = fc.carry;
	env->head_done = fc.head_done;
	return 0;
}

static int hold(const struct qpt_item *it, void *arg);

/* One step of the queue (order.c's qd_step_fn: one, whatever @limit): 1
 * while there is more, 0 at its end, or a negative error; *@time: the
 * time of its latest items. */
static int cursor_step(void *arg, size_t i, uint64_t *time,
		       const uint64_t *limit)
{
	struct qd_cursor *c = (struct qd_cursor *)arg + i;
	uint64_t t;
	size_t k;
	int ret;

	(void)limit;
	if (c->nr_held && c->fc.fn != hold) {
		for (k = 0, ret = 0; !ret && k < c->nr_held; k++) {
			/* the message's copy is where the item is now */
			if (c->held[k].it.msg)
				c->held[k].it.msg = c->held[k].msg;
			ret = c->fn(&c->held[k].it, c->fn_ctx);
		}
		c->nr_held = 0;
		return ret ? ret : 1;
	}
	if (!c->started) {
		c->started = true;
		ret = qd_cursor_lost(c, c->fc.fn, c->fc.fn_ctx);
		return ret ? ret : 1;
	}
	if (!c->flow) {
		ret = cursor_open(c);
		if (ret <= 0)
			return ret;
	}
	ret = qd_flow_step(c->flow);
	if (qd_flow_time(c->flow, &t))
		*time = t;
	if (ret)
		return ret;
	qd_flow_close(c->flow);
	c->flow = NULL;
	free(c->part.buf);
	c->part.buf = NULL;
	return 1;
}

static int hold(const struct qpt_item *it, void *arg)
{
	struct qd_cursor *c = arg;
	struct held *h;

	if (qd_reserve(&c->held, &c->cap_held, c->nr_held, sizeof(*h)))
		return -ENOMEM;
	h = &c->held[c->nr_held++];
	h->it = *it;
	h->it.run = 0; /* told later, one by one (the rest of a run too) */
	h->it.run_len = 0;
	if (it->msg) {
		snprintf(h->msg, sizeof(h->msg), "%s", it->msg);
		h->it.msg = h->msg;
	}
	return 0;
}

/* order.c places the queue by its first items with a time: held. */
static void cursor_hold(void *arg, size_t i, bool on)
{
	struct qd_cursor *c = (struct qd_cursor *)arg + i;

	c->fc.fn = on ? hold : c->fn;
	c->fc.fn_ctx = on ? (void *)c : c->fn_ctx;
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

int qd_session_sort(struct qd_session *s, struct lost_index *li)
{
	qd_session_prepare(s);
	s->progress = qd_decoder_progress(s->dec, qd_session_trace_bytes(s));
	return qd_lost_index(s, li);
}

int qd_session_decode(struct qd_session *s, qpt_item_fn fn, void *ctx)
{
	struct qx86_cache *cache = qd_decoder_caches(s->dec);
	struct qd_cursor *cur = calloc(s->nr_queues + 1, sizeof(*cur));
	struct lost_index li = { 0 };
	size_t i, n = 0;
	int err = !cache || !cur ? -ENOMEM : 0;

	if (!err)
		err = qd_session_sort(s, &li);
	for (; !err && n < s->nr_queues; n++)
		err = qd_cursor_init(&cur[n], s, &s->queues[n], &li, cache, fn,
				  ctx);
	if (!err)
		err = qd_order_run(n, cursor_step, cursor_hold, cur,
				   !(s->dec->opts.flags & QPT_DECODE_NO_SORT));
	if (!err)
		err = qd_session_untold(s, fn, ctx);
	for (i = 0; i < n; i++)
		qd_cursor_fini(&cur[i]);
	free(cur);
	free(li.by_cpu);
	free(li.by_tid);
	return err;
}
