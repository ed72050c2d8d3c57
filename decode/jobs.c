// SPDX-License-Identifier: MIT
/*
 * The parallel decode: the parts of the queues (part.c) are decoded on
 * worker threads, each worker with address spaces of its own (libipt's
 * images are not shared between threads) and each part's items into a
 * context of the caller's sink, which keeps their output; the calling
 * thread cuts the parts, hands them out, and writes the outputs back in
 * the order a serial run gives the items, a step of a flow at a time
 * (order.c merges the queues by the steps' times, as for a serial run).
 *
 * A part other than the first of its run starts where the part before
 * left an instruction pending, unknown to the worker: the worker leaves
 * out the items up to the first place where that instruction matters
 * (the head: QD_HEAD_DROP), and once the part before is written, the
 * calling thread makes the head again with the carried state
 * (QD_HEAD_ONLY), a few items, and writes it before the rest.  Every
 * step of the part is the same as in a serial run, so the output is.
 *
 * A part's lines wait in memory for their turn, and a part of a few KiB
 * of trace can say hundreds of MiB of them (a loop's TNT bits): a worker
 * whose part holds its share of OUT_BUDGET (bytes not yet written: the
 * budget split between the parts in flight) waits (paused) until
 * the calling thread has written them and the sink dropped them
 * (qpt_job_sink.drop), so that the memory the run takes is bounded by
 * the parts in flight, whatever the trace says.  Where every worker
 * waits so and the part the calling thread needs is still to be taken,
 * the calling thread decodes it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/cursor.h"
#include "decode/blks.h"
#include "decode/paths.h"

/* Workers side by side share no cache line (nor a pair of them, which
 * some cores fetch together). */
#define WORKER_ALIGN 128
/* Output consumed and not yet written is written by steps of this many
 * bytes (or at the end of its part, or before another queue's). */
#define FLUSH_MIN (64u << 10)
/* A stretch's first part of at most this many bytes is decoded by the
 * calling thread, which would otherwise wait for it (a queue's first
 * items place it in time order): a hand-over to a worker and back costs
 * more than its decode, and a file with thousands of short queues made
 * one for each. */
#define INLINE_MAX (4u << 10)
/* The output not yet written that the parts in flight (one for each
 * worker and one more) hold at most, in equal shares: a worker's part
 * holding its share waits for its turn (a sink that can drop them;
 * qpt_job_sink.hold 0).  8 MiB each with 2 workers, where 2 MiB each made
 * -j2 a third slower on parts that print 7 MiB each (the worker runs
 * ahead of the writes by its share only); with many workers the shares
 * are smaller, and the lines held stay bounded. */
#define OUT_BUDGET (24u << 20)
#define OUT_SHARE_MIN (1u << 20)

struct mark {	      /* the end of a step */
	uint64_t pos; /* of the output */
	uint64_t time;
	int ret; /* qd_flow_step's */
	bool has_time;
};

struct out { /* a sink context and its steps */
	void *ctx;
	struct mark *m;
	size_t n, cap;
	size_t sealed;	 /* steps the calling thread may have consumed */
	uint64_t resumed; /* the output's size when it last went on */
	bool nomem;
};

struct job {
	struct job *next; /* in its queue, in order */
	struct job *todo; /* waiting for a worker */
	struct pq *pq;
	struct qd_part part;
	bool first; /* of its stretch: decoded whole (no head) */
	bool done;  /* by its worker */
	bool taken; /* by a worker (under the lock) */
	bool paused; /* its worker waits for its output to be written */
	int err;
	struct out o;
	struct qd_carry carry;
	bool head_done;
	bool redone; /* the head made again: r */
	struct out r;
	struct qd_carry rcarry;
	size_t step;	     /* the next step to write */
	uint64_t opos, rpos; /* the output consumed, */
	uint64_t ow, rw;     /* ... and written */
};

struct pq { /* a queue */
	struct qd_cursor c;
	struct job *head, *tail;
	size_t nr_jobs; /* not yet fully consumed */
	bool cut_all, started, holding;
	struct qd_carry carry; /* at the end of the last part consumed */
};

struct worker {
	struct pool *p;
	pthread_t th;
	unsigned idx;
	bool running;
	/* images of its own: libipt's sections (their block caches) are not
	 * for two threads at once */
	struct pt_image_section_cache *isc;
	struct qd_hist hist;
	struct qd_tables tab; /* its history, caches and paths */
	struct qpt_decode_stats stats; /* counted at each instruction */
} __attribute__((aligned(WORKER_ALIGN)));

struct pool {
	struct qd_session *s;
	const struct qpt_job_sink *sink;
	pthread_mutex_t mu;
	pthread_cond_t todo_cv, done_cv, resume_cv;
	struct job *todo, *todo_tail;
	bool stop;
	struct worker *w;
	unsigned nw;
	unsigned nr_paused; /* workers waiting in wait_turn() */
	uint64_t hold;	    /* output a part holds before it waits */
	bool untimed; /* no order by time between queues: one queue, or
		       * --no-sort (a step's time orders nothing) */
	size_t inflight; /* jobs handed out and not yet closed */
	struct pq *q;
	size_t nq;
	struct pq *unwritten; /* the queue whose consumed steps wait: written
			       * together, when another queue goes on */
	struct qd_tables here; /* the calling thread's: the decoder's */
};

/*
 * Note a step's end in @o (its position set by the caller).  A step that
 * gave no time is one with the next (the calling thread would step on
 * anyway: order.c), and so is every step where times order nothing
 * (@untimed), past a part's first QD_PRIME_STEPS (where a queue's first
 * steps may be held and counted): a trace without timestamps, or with
 * one queue, makes a few marks a part, not one for each block (a loop's
 * part with MTCs made millions).
 */
static void mark(struct out *o, int ret, bool has_time, uint64_t time,
		 bool untimed)
{
	struct mark *m = o->n ? &o->m[o->n - 1] : NULL;

	if (o->n > QD_PRIME_STEPS && o->n > o->sealed &&
	    (untimed || !m->has_time) && m->ret > 0) {
		m->ret = ret;
		m->has_time = has_time;
		m->time = time;
		return;
	}
	if (o->n == o->cap) {
		size_t nc = o->cap ? 2 * o->cap : 4; /* most parts: a few */

		m = realloc(o->m, nc * sizeof(*m));
		if (!m) {
			o->nomem = true;
			return;
		}
		o->m = m;
		o->cap = nc;
	}
	m = &o->m[o->n++];
	m->ret = ret;
	m->has_time = has_time;
	m->time = time;
	m->pos = 0;
}

struct out_env { /* an output, the sink that tells its size, and the
		 * job whose worker may pause (NULL: the calling thread's) */
	struct out *o;
	const struct qpt_job_sink *sink;
	struct pool *p;
	struct job *j;
};

/*
 * @j's worker waits until the calling thread has consumed the steps so
 * far, written them and had the sink drop them (or the run stops:
 * -ECANCELED).  The steps so far are sealed: no later one joins them.
 */
static int wait_turn(struct pool *p, struct job *j)
{
	bool stop;

	pthread_mutex_lock(&p->mu);
	j->o.sealed = j->o.n;
	j->paused = true;
	p->nr_paused++;
	pthread_cond_broadcast(&p->done_cv);
	while (j->paused && !p->stop)
		pthread_cond_wait(&p->resume_cv, &p->mu);
	p->nr_paused--;
	stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return stop ? -ECANCELED : 0;
}

static int mark_env(void *arg, int ret, bool has_time, uint64_t time)
{
	struct out_env *e = arg;
	struct out *o = e->o;
	uint64_t pos;

	mark(o, ret, has_time, time, e->p->untimed);
	if (o->nomem)
		return 0;
	pos = e->sink->tell(o->ctx);
	o->m[o->n - 1].pos = pos;
	if (e->j && ret > 0 && pos - o->resumed >= e->p->hold)
		return wait_turn(e->p, e->j);
	return 0;
}

/* Whether @j's worker is done with it (then what it wrote is seen):
 * read without the lock by the calling thread. */
static bool is_done(const struct job *j)
{
	return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
}

/* Decode @j's part into a context of its own (a worker, or with
 * QD_HEAD_ONLY the calling thread's redo of its head): on a worker
 * (@may_wait), waiting for its turn where its output is held. */
static int decode_part(struct pool *p, struct job *j, struct out *o,
		       unsigned worker, const struct qd_tables *tab,
		       struct qpt_decode_stats *st, enum qd_head head,
		       struct qd_carry *carry, bool *head_done, bool may_wait)
{
	struct out_env e = {o, p->sink, p,
			    may_wait && p->sink->drop ? j : NULL};
	struct qd_part_env env;
	int err;

	o->ctx = p->sink->open(p->sink->ctx, worker);
	if (!o->ctx)
		return -ENOMEM;
	memset(&env, 0, sizeof(env));
	env.tab = *tab;
	env.stats = st;
	env.head = head;
	env.carry = *carry;
	env.fn = p->sink->item;
	env.fn_ctx = o->ctx;
	env.mark = mark_env;
	env.mark_arg = &e;
	err = qd_cursor_part(&j->pq->c, &j->part, &env);
	if (head == QD_HEAD_EMIT ||
	    (head == QD_HEAD_ONLY && is_done(j))) { /* no head left to make
						    * and no worker on it:
						    * its bytes are done (a
						    * part of sparse trace
						    * can be MiBs) */
		free(j->part.buf);
		j->part.buf = NULL;
	}
	p->sink->finish(o->ctx);
	*carry = env.carry;
	*head_done = env.head_done;
	return err ? err : o->nomem ? -ENOMEM : 0;
}

/* Decode @j's part as a worker does, with a worker's (@worker's) or the
 * calling thread's context: its head left out unless it is a stretch's
 * first part. */
static void decode_job(struct pool *p, struct job *j, unsigned worker,
		       const struct qd_tables *tab, struct qpt_decode_stats *st)
{
	struct qd_carry none;

	memset(&none, 0, sizeof(none));
	j->err = decode_part(p, j, &j->o, worker, tab, st,
			     j->first ? QD_HEAD_EMIT : QD_HEAD_DROP, &none,
			     &j->head_done, worker < p->nw);
	j->carry = none;
}

static int worker_init(struct worker *w);

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	struct job *j;
	int err = worker_init(w);

	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->todo && !p->stop)
			pthread_cond_wait(&p->todo_cv, &p->mu);
		j = p->todo;
		if (j) {
			j->taken = true;
			p->todo = j->todo;
			if (!p->todo)
				p->todo_tail = NULL;
		}
		pthread_mutex_unlock(&p->mu);
		if (!j)
			return NULL;
		if (err)
			j->err = err;
		else
			decode_job(p, j, w->idx, &w->tab, &w->stats);
		pthread_mutex_lock(&p->mu);
		__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&p->done_cv);
		pthread_mutex_unlock(&p->mu);
	}
}

/* Decode @j on the calling thread, as a worker would (its error in
 * j->err). */
static void decode_here(struct pool *p, struct job *j)
{
	decode_job(p, j, p->nw, &p->here, &p->s->dec->stats);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
}

/* Cut the next part of queue @q and hand it out (or decode it here): 1,
 * 0 when none is left, or -errno. */
static int submit(struct pool *p, struct pq *q)
{
	struct job *j;
	int ret;

	if (q->cut_all)
		return 0;
	ret = qd_cursor_cut(&q->c);
	if (ret <= 0) {
		q->cut_all = true;
		return ret;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		free(q->c.part.buf);
		return -ENOMEM;
	}
	j->pq = q;
	j->part = q->c.part;
	q->c.part.buf = NULL;
	j->first = q->c.part_first;
	q->c.part_first = false;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	q->nr_jobs++;
	if (j->first && j->part.len <= INLINE_MAX) {
		p->inflight++;
		decode_here(p, j);
		return 1;
	}
	pthread_mutex_lock(&p->mu);
	p->inflight++;
	if (p->todo_tail)
		p->todo_tail->todo = j;
	else
		p->todo = j;
	p->todo_tail = j;
	pthread_cond_signal(&p->todo_cv);
	pthread_mutex_unlock(&p->mu);
	return 1;
}

/* Parts of queue @q handed out: the one it needs, and one ahead for each
 * worker (their outputs wait in memory until written: a part's lines can
 * take some MiB). */
static int fill(struct pool *p, struct pq *q)
{
	int ret = 0;

	if (!q->nr_jobs)
		ret = submit(p, q);
	while (ret >= 0 && !q->cut_all && q->nr_jobs <= p->nw &&
	       p->inflight <= p->nw)
		ret = submit(p, q);
	return ret < 0 ? ret : 0;
}

static void close_out(struct pool *p, struct out *o)
{
	if (o->ctx)
		p->sink->close(o->ctx, p->sink->ctx);
	free(o->m);
	memset(o, 0, sizeof(*o));
}

/* Write what was consumed of @j: its head made again, then its own. */
static int flush_job(struct pool *p, struct job *j)
{
	int err = 0;

	if (j->rpos > j->rw)
		err = p->sink->write(j->r.ctx, j->rw, j->rpos, p->sink->ctx);
	j->rw = j->rpos;
	if (!err && j->opos > j->ow)
		err = p->sink->write(j->o.ctx, j->ow, j->opos, p->sink->ctx);
	j->ow = j->opos;
	return err;
}

/* Write what @q holds, closing the parts consumed whole. */
static int flush(struct pool *p, struct pq *q)
{
	struct job *j;
	int err = 0;

	while (!err && (j = q->head)) {
		err = flush_job(p, j);
		if (err || !is_done(j) || j->step < j->o.n)
			break;
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		close_out(p, &j->o);
		close_out(p, &j->r);
		free(j->part.buf);
		free(j);
		p->inflight--;
	}
	return err;
}

/* Whether @q's consumed output is to be written now: a part consumed
 * whole, or FLUSH_MIN bytes (a write for each step, a block's lines,
 * cost more than the decode's bookkeeping). */
static bool due(const struct pq *q)
{
	const struct job *j = q->head;

	return j && is_done(j) &&
	       (j->step == j->o.n ||
		j->rpos - j->rw + j->opos - j->ow >= FLUSH_MIN);
}

/* The first part of @q not consumed whole. */
static struct job *current(struct pq *q)
{
	struct job *j = q->head;

	while (j && is_done(j) && j->step == j->o.n && j->o.n)
		j = j->next;
	return j;
}

/* The queue's recorded losses: a part of one step, made here. */
static int lost_job(struct pool *p, struct pq *q)
{
	struct job *j = calloc(1, sizeof(*j));
	int err;

	if (!j)
		return -ENOMEM;
	j->pq = q;
	j->first = j->done = true;
	j->next = q->head;
	q->head = j;
	if (!q->tail)
		q->tail = j;
	p->inflight++;
	j->o.ctx = p->sink->open(p->sink->ctx, p->nw);
	if (!j->o.ctx)
		return -ENOMEM;
	err = qd_cursor_lost(&q->c, p->sink->item, j->o.ctx);
	p->sink->finish(j->o.ctx);
	mark(&j->o, 1, false, 0, false);
	if (!j->o.nomem)
		j->o.m[0].pos = p->sink->tell(j->o.ctx);
	if (!j->o.nomem && !j->o.m[0].pos) { /* most queues lost nothing */
		p->sink->close(j->o.ctx, p->sink->ctx);
		j->o.ctx = NULL;
	}
	return err ? err : j->o.nomem ? -ENOMEM : 0;
}

/* The losses no queue's flow told, made and written here, last. */
static int untold(struct pool *p)
{
	struct out o;
	uint64_t end;
	int err;

	memset(&o, 0, sizeof(o));
	o.ctx = p->sink->open(p->sink->ctx, p->nw);
	if (!o.ctx)
		return -ENOMEM;
	err = qd_session_untold(p->s, p->sink->item, o.ctx);
	p->sink->finish(o.ctx);
	end = p->sink->tell(o.ctx);
	if (!err && end) /* nothing to write is no range */
		err = p->sink->write(o.ctx, 0, end, p->sink->ctx);
	close_out(p, &o);
	return err;
}

/* Make @j's head again with the state the part before left. */
static int redo(struct pool *p, struct job *j)
{
	struct qpt_decode_stats scratch;
	struct qd_carry c = j->pq->carry;
	bool cut;
	int err;

	memset(&scratch, 0, sizeof(scratch));
	j->redone = true;
	err = decode_part(p, j, &j->r, p->nw, &p->here, &scratch,
			  QD_HEAD_ONLY, &c, &cut, false);
	j->rcarry = c;
	if (c.branched)
		p->s->dec->stats.branches++;
	return err;
}

/* Take @j, not yet taken by a worker, out of the list of those waiting
 * for one (under the lock). */
static void untodo(struct pool *p, struct job *j)
{
	struct job **pp = &p->todo, *prev = NULL;

	while (*pp != j) {
		prev = *pp;
		pp = &(*pp)->todo;
	}
	*pp = j->todo;
	if (p->todo_tail == j)
		p->todo_tail = prev;
	j->taken = true;
}

/*
 * @j's steps so far are consumed and its worker waits: write them (those
 * of the parts before too), have the sink drop them and let the worker
 * go on.  A held queue's output is not written yet: it stays, and the
 * worker goes on (the queue's first steps only are held).
 */
static int resume(struct pool *p, struct pq *q, struct job *j)
{
	int err = 0;

	if (!q->holding) {
		err = flush(p, q);
		if (!err && j->o.n)
			p->sink->drop(j->o.ctx, j->o.m[j->o.n - 1].pos);
	}
	if (j->o.n)
		j->o.resumed = j->o.m[j->o.n - 1].pos;
	pthread_mutex_lock(&p->mu);
	j->paused = false;
	pthread_cond_broadcast(&p->resume_cv);
	pthread_mutex_unlock(&p->mu);
	return err;
}

/*
 * Wait until @j (of queue @q) has steps to consume: its worker is done
 * with it, or waits (paused) with steps not yet consumed.  A worker
 * waiting with every step consumed goes on (resume); a part no worker has
 * taken while every worker waits is decoded here.
 */
static int wait_ready(struct pool *p, struct pq *q, struct job *j)
{
	int err;

	if (is_done(j)) /* each step of a part asks: no lock once done */
		return j->err;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!j->done && !j->paused &&
		       (j->taken || p->nr_paused < p->nw))
			pthread_cond_wait(&p->done_cv, &p->mu);
		if (j->done || j->step < j->o.n)
			break;
		if (!j->taken) { /* every worker waits for its turn */
			untodo(p, j);
			pthread_mutex_unlock(&p->mu);
			decode_here(p, j);
			return j->err;
		}
		pthread_mutex_unlock(&p->mu);
		err = resume(p, q, j);
		if (err)
			return err;
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return j->done ? j->err : 0;
}

/* @j was consumed: its bytes are decoded (the workers tell nothing). */
static void tell_progress(struct pool *p, const struct job *j)
{
	struct qd_progress *pr = p->s->progress;

	if (!pr)
		return;
	pr->done += j->part.own;
	pr->fn(pr->done, pr->total, pr->ctx);
}

/* Steps of queue @i, as replay.c's cursor_step makes them (qd_step_fn):
 * with @limit, the steps of a part while the time is at most *@limit. */
static int step(void *arg, size_t i, uint64_t *time, const uint64_t *limit)
{
	struct pool *p = arg;
	struct pq *q = &p->q[i];
	struct job *j;
	struct mark *m;
	int err, ret;

	if (p->unwritten && p->unwritten != q && (err = flush(p, p->unwritten)))
		return err;
	p->unwritten = NULL;
	if (!q->holding && due(q) && (err = flush(p, q)))
		return err;
	if (!q->started) {
		q->started = true;
		err = lost_job(p, q);
		if (!err && !q->holding)
			err = flush(p, q);
		return err ? err : 1;
	}
	j = current(q);
	if (!j) {
		err = fill(p, q);
		if (err)
			return err;
		j = current(q);
		if (!j)
			return 0;
	} else if ((err = fill(p, q))) {
		return err;
	}
	err = wait_ready(p, q, j);
	if (!err && !j->first && !j->redone)
		err = redo(p, j);
	if (err)
		return err;
	if (!j->o.n)
		return -QPT_E_INVAL;
	do {
		if (j->step < j->r.n)
			j->rpos = j->r.m[j->step].pos;
		m = &j->o.m[j->step++];
		j->opos = m->pos;
		ret = m->ret;
		if (m->has_time)
			*time = m->time;
	} while (limit && ret >= 0 && j->step < j->o.n && *time <= *limit);
	if (j->step == j->o.n && is_done(j)) {
		q->carry = j->first || j->head_done ? j->carry : j->rcarry;
		q->nr_jobs--;
		tell_progress(p, j);
	}
	if (!q->holding && j->step == j->o.n && (err = flush(p, q)))
		return err; /* @j may be freed */
	if (!q->holding)
		p->unwritten = q;
	return ret < 0 ? ret : 1;
}

static void hold(void *arg, size_t i, bool on)
{
	struct pool *p = arg;

	p->q[i].holding = on;
}

static void pool_stop(struct pool *p)
{
	unsigned k;

	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->todo_cv);
	pthread_cond_broadcast(&p->resume_cv);
	pthread_mutex_unlock(&p->mu);
	for (k = 0; k < p->nw; k++)
		if (p->w[k].running)
			pthread_join(p->w[k].th, NULL);
}

/*
 * A worker's images and caches, made on its own thread: from its own
 * allocator's memory, which no other thread writes (two workers' address
 * spaces side by side in a line, each lookup writing its own's cache,
 * made every step slower on both).  0 or -errno: its jobs fail with it.
 */
static int worker_init(struct worker *w)
{
	const struct qd_session *s = w->p->s;
	int err;

	w->tab.hist = &w->hist;
	w->tab.cache = qx86_cache_new(QD_ICACHE_ORDER);
	w->tab.runs = qd_runs_new();
	w->tab.paths = qd_paths_new();
	w->tab.blks = qd_blks_new();
	w->isc = pt_iscache_alloc(NULL);
	err = w->isc ? qd_hist_init(&w->hist, w->isc, s->dec->manual)
		     : -ENOMEM;
	if (!err)
		err = qd_session_history(s, &w->hist);
	if (!err && (!w->tab.cache || !w->tab.runs || !w->tab.paths ||
		     !w->tab.blks))
		err = -ENOMEM;
	return err;
}

static int pool_start(struct pool *p)
{
	unsigned k;
	int err = 0;

	for (k = 0; !err && k < p->nw; k++) {
		struct worker *w = &p->w[k];

		w->p = p;
		w->idx = k;
		err = -pthread_create(&w->th, NULL, work, w);
		w->running = !err;
	}
	return err;
}

static void pool_free(struct pool *p)
{
	size_t i;
	unsigned k;

	for (i = 0; i < p->nq; i++) {
		struct pq *q = &p->q[i];

		while (q->head) {
			struct job *j = q->head;

			q->head = j->next;
			close_out(p, &j->o);
			close_out(p, &j->r);
			free(j->part.buf);
			free(j);
		}
		qd_cursor_fini(&q->c);
	}
	for (k = 0; p->w && k < p->nw; k++) {
		struct qpt_decode_stats *st = &p->w[k].stats, *d;

		d = &p->s->dec->stats;
		d->insns += st->insns;
		d->branches += st->branches;
		d->errors += st->errors;
		d->trace_bytes += st->trace_bytes;
		d->skipped_bytes += st->skipped_bytes;
		d->fast_insns += st->fast_insns;
		qd_hist_fini(&p->w[k].hist); /* zeroed: nothing */
		pt_iscache_free(p->w[k].isc);
		qx86_cache_free(p->w[k].tab.cache);
		qd_runs_free(p->w[k].tab.runs);
		qd_paths_free(p->w[k].tab.paths);
		qd_blks_free(p->w[k].tab.blks);
	}
	free(p->w);
	free(p->q);
	pthread_cond_destroy(&p->todo_cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->resume_cv);
	pthread_mutex_destroy(&p->mu);
}

static unsigned nr_workers(const struct qd_session *s)
{
	long n = s->dec->opts.jobs ? (long)s->dec->opts.jobs
				   : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > QPT_DECODE_MAX_JOBS ? QPT_DECODE_MAX_JOBS
						  : (unsigned)n;
}

/*
 * A file with more queues than this (and than two for each worker) is
 * decoded on the calling thread: each queue holds a part's output (its
 * first, for its place in time order) until its turn, and a part of a few
 * KiB of trace can say some MiB of lines.
 */
#define PAR_QUEUES_MAX 16
/*
 * With opts.jobs 0 (the default), a trace of fewer bytes than these is
 * decoded on the calling thread too: the workers' set-up (images of their
 * own, cold caches and paths, a part's head made twice) costs more than
 * they save.  Without instruction items (branches: paths tell most of
 * them, and each byte of trace takes far less work) the break-even is
 * later.  Measured on copies of arcus-hello with 2 workers (medians of 7
 * alternating pairs), -j2 against -j1: --insn 0.94x on 4 copies (30
 * KiB), 1.11x on 8, 1.53x on 40; --branches 1.00x on 40 (280 KiB), 1.22x
 * on 100 (700 KiB), 1.65x on 400 (perf stat: 43 against 38 ms on 40).
 */
#define PAR_MIN_BYTES (32u << 10)
#define PAR_MIN_BYTES_NO_INSN (512u << 10)

int qd_session_decode_jobs(struct qd_session *s,
			   const struct qpt_job_sink *sink)
{
	struct lost_index li = {0};
	struct pool p;
	size_t n = 0;
	int err;

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.sink = sink;
	p.nw = nr_workers(s);
	p.hold = sink->hold ? sink->hold : OUT_BUDGET / (p.nw + 1);
	if (!sink->hold && p.hold < OUT_SHARE_MIN)
		p.hold = OUT_SHARE_MIN;
	/* a part's cycles (QPT_WANT_CYCLES) are carried over from the part
	 * before up to the next taken branch, past the head: serial */
	if (p.nw == 1 || (s->dec->opts.want & QPT_WANT_CYCLES) ||
	    (s->nr_queues > PAR_QUEUES_MAX &&
	     s->nr_queues > 2 * (size_t)p.nw) ||
	    (!s->dec->opts.jobs &&
	     qd_session_trace_bytes(s) < (s->dec->opts.want & QPT_WANT_INSN
					       ? PAR_MIN_BYTES
					       : PAR_MIN_BYTES_NO_INSN)))
		return qd_session_decode(s, sink->serial, sink->serial_ctx);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.todo_cv, NULL);
	pthread_cond_init(&p.done_cv, NULL);
	pthread_cond_init(&p.resume_cv, NULL);
	p.here.hist = &s->hist;
	p.here.cache = qd_decoder_caches(s->dec);
	p.here.runs = s->dec->runs;
	p.here.paths = s->dec->paths; /* no counts: jobs make items */
	p.here.blks = s->dec->blks;
	p.q = calloc(s->nr_queues + 1, sizeof(*p.q));
	p.w = aligned_alloc(WORKER_ALIGN, p.nw * sizeof(*p.w));
	if (p.w)
		memset(p.w, 0, p.nw * sizeof(*p.w));
	err = p.here.cache && p.q && p.w ? qd_session_sort(s, &li) : -ENOMEM;
	for (; !err && n < s->nr_queues; n++)
		err = qd_cursor_init(&p.q[n].c, s, &s->queues[n], &li,
				     p.here.cache, sink->item, NULL);
	p.nq = n;
	p.untimed = n == 1 || (s->dec->opts.flags & QPT_DECODE_NO_SORT);
	if (!err)
		err = pool_start(&p);
	if (!err)
		err = qd_order_run(n, step, hold, &p,
				   !(s->dec->opts.flags & QPT_DECODE_NO_SORT));
	if (!err && p.unwritten)
		err = flush(&p, p.unwritten);
	if (!err)
		err = untold(&p);
	pool_stop(&p);
	pool_free(&p);
	free(li.by_cpu);
	free(li.by_tid);
	return err;
}
