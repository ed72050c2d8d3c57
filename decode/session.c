// SPDX-License-Identifier: MIT
/*
 * perf.data input: one pass over the records (through the auxfmt reader)
 * gathers the sideband (address space changes, thread switches, where the
 * AUX data stood against the sideband), the timing parameters and the
 * AUXTRACE queues (buffers rejoined by offset, overlap between snapshots
 * dropped); then the address space history is built in sideband order
 * and replay.c decodes the queues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "auxfmt/tmpfile.h"
#include "decode/session.h"

int qd_reserve(void *p, size_t *cap, size_t n, size_t size)
{
	void **arr = p;
	size_t nc;
	void *na;

	if (n < *cap)
		return 0;
	nc = *cap ? 2 * *cap : 1;
	if (nc <= n || nc > SIZE_MAX / size)
		return -ENOMEM;
	na = realloc(*arr, nc * size);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = nc;
	return 0;
}

/* The sideband position of @rec: its sample time (or the latest before
 * it in the file), then its index. */
static struct qd_when when_of(const struct qd_session *s,
			      const struct qpt_record *rec)
{
	struct qd_when w = { s->clock, s->seq };

	if ((rec->sid.present & PERF_SAMPLE_TIME) &&
	    rec->sid.time != UINT64_MAX)
		w.time = rec->sid.time;
	return w;
}

static int add_op(struct qd_session *s, const struct qpt_record *rec,
		  const struct qd_op *op)
{
	if (qd_reserve(&s->ops, &s->cap_ops, s->nr_ops, sizeof(*op)))
		return -ENOMEM;
	s->ops[s->nr_ops] = *op;
	s->ops[s->nr_ops++].w = when_of(s, rec);
	return 0;
}

/* The process of thread @tid, as the latest record says. */
static int note_thread(struct qd_session *s, int32_t pid, int32_t tid)
{
	if (pid < 0 || tid < 0)
		return 0;
	return qd_idmap_put(&s->tid_pid, (uint32_t)tid, (uint32_t)pid);
}

static struct qd_queue *queue_get(struct qd_session *s, uint32_t idx)
{
	struct qd_queue *q;
	uint32_t i;

	if (qd_idmap_get(&s->qidx, idx, &i))
		return &s->queues[i];
	if (qd_reserve(&s->queues, &s->cap_queues, s->nr_queues,
		       sizeof(*q)) ||
	    qd_idmap_put(&s->qidx, idx, (uint32_t)s->nr_queues))
		return NULL;
	q = &s->queues[s->nr_queues++];
	memset(q, 0, sizeof(*q));
	q->idx = idx;
	q->cpu = q->tid = -1;
	return q;
}

/*
 * Append @n bytes of the payload of @rec from its byte @skip to @r: where
 * the payload stays (a mapped file, outside COMPRESSED records) a piece
 * names its place, joined to the piece before when they touch; else the
 * bytes go to the spill file (spill.c), or where none can be made, are
 * copied.
 */
static int run_append(struct qd_session *s, struct qd_run *r,
		      const struct qpt_record *rec, uint64_t skip, uint64_t n)
{
	bool stays = s->stable && !rec->depth;
	uint64_t pos = rec->aux_pos + skip;
	struct qd_piece *p = r->nr_pieces ? &r->pieces[r->nr_pieces - 1]
					  : NULL;
	const uint8_t *data = (const uint8_t *)rec->aux + skip;
	int spill = 1;

	if (!n)
		return 0;
	if (!stays) { /* into the spill file, else memory */
		spill = qd_spill_put(&s->spill, data, n, &pos);
		if (spill < 0) {
			s->dec->errpos = rec->pos;
			snprintf(s->dec->errmsg, sizeof(s->dec->errmsg),
				 "the trace into a temporary file in %s: %s",
				 qpt_tmpdir(), strerror(-spill));
			return spill;
		}
	}
	if (p && !p->own && p->pos + p->len == pos &&
	    (spill ? stays && !p->spilled && p->data + p->len == data
		   : p->spilled)) {
		p->len += n;
		r->len += n;
		return 0;
	}
	if (qd_reserve(&r->pieces, &r->cap_pieces, r->nr_pieces, sizeof(*p)))
		return -ENOMEM;
	p = &r->pieces[r->nr_pieces];
	memset(p, 0, sizeof(*p));
	p->at = r->len;
	p->pos = pos;
	p->len = n;
	p->data = data;
	p->spilled = !spill;
	if (spill && !stays) {
		if (n > SIZE_MAX || !(p->own = malloc((size_t)n)))
			return -ENOMEM;
		memcpy(p->own, p->data, (size_t)n);
		p->data = p->own;
	}
	r->nr_pieces++;
	r->len += n;
	return 0;
}

/* Cut @r to its first @len bytes. */
static void run_cut(struct qd_run *r, uint64_t len)
{
	while (r->nr_pieces && r->pieces[r->nr_pieces - 1].at >= len) {
		free(r->pieces[r->nr_pieces - 1].own);
		r->nr_pieces--;
	}
	if (r->nr_pieces) {
		struct qd_piece *p = &r->pieces[r->nr_pieces - 1];

		if (p->at + p->len > len)
			p->len = len - p->at;
	}
	r->len = len;
}

/*
 * The length of the longest tail of [run, run + len) that is a head of
 * [p, p + n), at least 64 bytes; 0 when none.  Candidates are where the
 * first 64 bytes of @p occur.
 */
static size_t overlap(const uint8_t *run, size_t len, const uint8_t *p,
		      size_t n)
{
	size_t max = len < n ? len : n, left = max;
	const uint8_t *base = run + len - max, *hit;

	while (left >= 64 && (hit = memmem(base, left, p, 64))) {
		size_t k = (size_t)(run + len - hit);

		if (!memcmp(hit, p, k))
			return k;
		left -= (size_t)(hit + 1 - base);
		base = hit + 1;
	}
	return 0;
}

/*
 * How many zeros (at most 7, PT PADs: perf pads each AUXTRACE payload to
 * 8 bytes) end @r after aux offset @offset, when all bytes from there are
 * zeros: the next payload may start before them.  -1 when not so; a read
 * error as -errno - 8.
 */
static int padding_from(const struct qd_session *s, const struct qd_run *r,
			uint64_t offset)
{
	uint64_t end = r->start + r->len;
	uint8_t tail[8];
	size_t n, i;
	int err;

	if (offset < r->start || offset >= end || end - offset >= 8)
		return -1;
	n = (size_t)(end - offset);
	err = qd_run_read(s, r, offset - r->start, tail, n);
	if (err)
		return err - 8;
	for (i = 0; i < n; i++)
		if (tail[i])
			return -1;
	return (int)n;
}

/*
 * The payload [p, p + n) overlaps the end of @r (snapshots: the same
 * bytes again): the longest tail of the run that is a head of the
 * payload, allowing for the run's padding to 8 bytes (zeros: PT PADs),
 * is dropped from the payload and, when some of it is new, the padding
 * from the run; *@from is where the payload took up.  Returns how many
 * payload bytes were there already (0: no overlap), or -errno.
 */
static int64_t drop_overlap(const struct qd_session *s, struct qd_run *r,
			    const uint8_t *p, uint64_t n, uint64_t *from)
{
	size_t want = r->len < n ? (size_t)r->len : (size_t)n, pad, k = 0;
	uint8_t *tail;
	int err;

	if (!want)
		return 0;
	tail = malloc(want);
	if (!tail)
		return -ENOMEM;
	err = qd_run_read(s, r, r->len - want, tail, want);
	for (pad = 0; !err && pad < 8 && pad < want; pad++) {
		if (pad && tail[want - pad])
			break;
		k = overlap(tail, want - pad, p, (size_t)n);
		if (k) {
			*from = r->start + r->len - pad;
			if (k < n)
				run_cut(r, r->len - pad);
			break;
		}
	}
	free(tail);
	return err ? err : (int64_t)k;
}

/*
 * Add one AUXTRACE payload to its queue: contiguous with the last run, it
 * extends it; overlapping it (snapshots), the overlap is dropped by
 * comparing the tail of the run with the head of the new buffer; else
 * it starts a new run.
 */
static int add_run(struct qd_session *s, struct qd_queue *q,
		   const struct qpt_record *rec, uint64_t offset,
		   const uint8_t *p, uint64_t n, uint64_t *from)
{
	struct qd_run *r = q->nr_runs ? &q->runs[q->nr_runs - 1] : NULL;
	int pad;

	*from = offset;
	if (r && offset == r->start + r->len)
		return run_append(s, r, rec, 0, n);
	pad = r ? padding_from(s, r, offset) : -1;
	if (pad < -1)
		return pad + 8;
	if (pad >= 0) {
		/* the buffer takes up where the run's data ended, before
		 * the zeros (PT PADs) that rounded the run up to 8 bytes */
		run_cut(r, offset - r->start);
		return run_append(s, r, rec, 0, n);
	}
	if (r && r->len && n >= 64) {
		int64_t k = drop_overlap(s, r, p, n, from);

		if (k < 0)
			return (int)k;
		if ((uint64_t)k == n)
			return 0;
		if (k)
			return run_append(s, r, rec, (uint64_t)k, n - (uint64_t)k);
	}
	if (qd_reserve(&q->runs, &q->cap_runs, q->nr_runs, sizeof(*r)))
		return -ENOMEM;
	r = &q->runs[q->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->start = offset;
	return run_append(s, r, rec, 0, n);
}

/*
 * Add one AUXTRACE payload to its queue (add_run); its place in the file
 * is a mark of the queue.
 */
static int on_auxtrace(struct qd_session *s, const struct qpt_record *rec)
{
	const struct qpt_record_auxtrace *a = rec->data;
	const uint8_t *p = rec->aux;
	uint64_t n = rec->aux_size, from;
	struct qd_queue *q;
	struct qd_mark *m;
	struct qd_run *r;
	int err;

	if (s->put)
		s->put->valid = false;
	if (rec->size < sizeof(*a) || !p)
		return 0;
	q = queue_get(s, a->idx);
	if (!q || qd_reserve(&q->marks, &q->cap_marks, q->nr_marks,
			     sizeof(*m)))
		return -ENOMEM;
	if (a->cpu != (uint32_t)-1)
		q->cpu = (int32_t)a->cpu;
	if (a->tid != (uint32_t)-1 && q->tid < 0)
		q->tid = (int32_t)a->tid;
	m = &q->marks[q->nr_marks++];
	m->end = a->offset + n < a->offset ? UINT64_MAX : a->offset + n;
	m->w = when_of(s, rec);
	m->cpu = q->cpu;
	m->tid = q->tid;
	err = add_run(s, q, rec, a->offset, p, n, &from);
	if (err || !s->put)
		return err;
	/* what it added: the last run's bytes from where they took up */
	r = &q->runs[q->nr_runs - 1];
	s->put->queue = (size_t)(q - s->queues);
	s->put->run = q->nr_runs - 1;
	s->put->to = r->start + r->len;
	s->put->from = from < r->start ? r->start : from;
	if (s->put->from > s->put->to)
		s->put->from = s->put->to;
	s->put->valid = true;
	return 0;
}

/* perf's intel_pt_mtc_period: the mtc_period field of the Intel PT
 * event's config (0 without its mtc bit); AUXTRACE_INFO has the masks. */
static uint8_t mtc_period(const struct qd_session *s, const uint64_t *priv)
{
	uint64_t bits = priv[QPT_INTEL_PT_MTC_FREQ_BITS], config;
	const struct qpt_attr *a;
	size_t i, n = qpt_reader_nr_attrs(s->reader);

	for (i = 0; i < n && bits; i++) {
		a = qpt_reader_attr(s->reader, i);
		if (!a || a->attr.type != priv[QPT_INTEL_PT_PMU_TYPE])
			continue;
		config = a->attr.config;
		if (!(config & priv[QPT_INTEL_PT_MTC_BIT]))
			return 0;
		return (uint8_t)((config & bits) >> __builtin_ctzll(bits));
	}
	return 0;
}

static void on_info(struct qd_session *s, const struct qpt_record *rec)
{
	const struct qpt_record_auxtrace_info *ai = rec->data;
	size_t nr;

	if (rec->size < sizeof(*ai) || ai->type != QPT_AUXTRACE_INTEL_PT)
		return;
	nr = (rec->size - sizeof(*ai)) / 8;
	if (nr < QPT_INTEL_PT_PER_CPU_MMAPS + 1)
		return;
	s->have_info = true;
	s->per_cpu = ai->priv[QPT_INTEL_PT_PER_CPU_MMAPS] != 0;
	if (ai->priv[QPT_INTEL_PT_TIME_MULT] && !s->tc.valid) {
		s->tc.valid = true;
		s->tc.shift = (uint16_t)ai->priv[QPT_INTEL_PT_TIME_SHIFT];
		s->tc.mult = (uint32_t)ai->priv[QPT_INTEL_PT_TIME_MULT];
		s->tc.zero = ai->priv[QPT_INTEL_PT_TIME_ZERO];
	}
	if (nr > QPT_INTEL_PT_MAX_NONTURBO_RATIO) {
		s->cfg.mtc_freq = mtc_period(s, ai->priv);
		s->cfg.cpuid_0x15_ebx =
			(uint32_t)ai->priv[QPT_INTEL_PT_TSC_CTC_N];
		s->cfg.cpuid_0x15_eax =
			(uint32_t)ai->priv[QPT_INTEL_PT_TSC_CTC_D];
		s->cfg.nom_freq =
			(uint8_t)ai->priv[QPT_INTEL_PT_MAX_NONTURBO_RATIO];
	}
}

static const uint8_t *feature_bid(struct qd_session *s, const char *path,
				  size_t *size)
{
	size_t i;

	if (!s->feat)
		return NULL;
	for (i = 0; i < s->feat->nr_build_ids; i++) {
		const struct qpt_build_id *b = &s->feat->build_ids[i];

		if (b->filename && !strcmp(b->filename, path)) {
			*size = b->size ? b->size : 20;
			return b->id;
		}
	}
	return NULL;
}

static int on_mmap(struct qd_session *s, const struct qpt_record *rec)
{
	const uint8_t *d = rec->data;
	uint32_t pid, tid;
	const uint8_t *bid = NULL;
	size_t bid_size = 0, fn_off, fn_max;
	char path[4096];
	struct qd_op op = { .kind = QD_OP_MAP };

	fn_off = rec->type == PERF_RECORD_MMAP2 ? 8 + 32 + 24 + 8 : 8 + 32;
	if (rec->size <= fn_off)
		return 0;
	memcpy(&pid, d + 8, 4);
	memcpy(&tid, d + 12, 4);
	memcpy(&op.start, d + 16, 8);
	memcpy(&op.len, d + 24, 8);
	memcpy(&op.pgoff, d + 32, 8);
	if (pid != (uint32_t)-1 && note_thread(s, (int32_t)pid, (int32_t)tid))
		return -ENOMEM;
	if (rec->type == PERF_RECORD_MMAP2) {
		uint32_t prot;

		memcpy(&prot, d + 64, 4);
		if (!(prot & 4)) /* PROT_EXEC */
			return 0;
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid = d + 44;
			bid_size = d[40] <= 20 ? d[40] : 20;
		}
	} else if (rec->misc & PERF_RECORD_MISC_MMAP_DATA) {
		return 0;
	}
	fn_max = rec->size - fn_off;
	if (fn_max >= sizeof(path))
		fn_max = sizeof(path) - 1;
	memcpy(path, d + fn_off, fn_max);
	path[fn_max] = '\0';
	if (!bid)
		bid = feature_bid(s, path, &bid_size);
	op.file = qd_files_get(&s->dec->files, path, bid, bid_size, false);
	if (!op.file)
		return -ENOMEM;
	op.kind = QD_OP_MAP;
	op.pid = (int32_t)pid;
	return add_op(s, rec, &op);
}

static int on_fork(struct qd_session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	struct qd_op op = { .kind = QD_OP_FORK };

	if (rec->size < 8 + 16)
		return 0;
	if (note_thread(s, (int32_t)w[0], (int32_t)w[2]))
		return -ENOMEM;
	if (w[0] == w[1])
		return 0; /* a thread shares its process's space */
	op.pid = (int32_t)w[0];
	op.ppid = (int32_t)w[1];
	return add_op(s, rec, &op);
}

static int on_comm(struct qd_session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	struct qd_op op = { .kind = QD_OP_EXEC };

	if (rec->size < 8 + 8)
		return 0;
	if (note_thread(s, (int32_t)w[0], (int32_t)w[1]))
		return -ENOMEM;
	if (!(rec->misc & PERF_RECORD_MISC_COMM_EXEC))
		return 0;
	/* exec: a new address space from here on */
	op.pid = (int32_t)w[0];
	return add_op(s, rec, &op);
}

static int add_switch(struct qd_session *s, const struct qpt_record *rec,
		      int32_t pid, int32_t tid)
{
	struct qd_switch *e;

	if (note_thread(s, pid, tid))
		return -ENOMEM;
	if (!(rec->sid.present & PERF_SAMPLE_TIME) ||
	    !(rec->sid.present & PERF_SAMPLE_CPU))
		return 0;
	if (qd_reserve(&s->sw, &s->cap_sw, s->nr_sw, sizeof(*e)))
		return -ENOMEM;
	e = &s->sw[s->nr_sw++];
	e->time = rec->sid.time;
	e->seq = s->seq;
	e->cpu = (int32_t)rec->sid.cpu;
	e->pid = pid;
	e->tid = tid;
	return 0;
}

static int add_lost(struct qd_session *s, const struct qpt_record *rec,
		    int32_t cpu, int32_t tid, const char *msg)
{
	struct qd_lost *n;

	if (qd_reserve(&s->lost, &s->cap_lost, s->nr_lost, sizeof(*n)))
		return -ENOMEM;
	n = &s->lost[s->nr_lost++];
	memset(n, 0, sizeof(*n));
	n->has_time = rec->sid.present & PERF_SAMPLE_TIME;
	n->time = rec->sid.time;
	n->cpu = cpu;
	n->tid = tid;
	n->pos = rec->pos;
	snprintf(n->msg, sizeof(n->msg), "%s", msg);
	return 0;
}

/* Where a ring's AUX data stood against its sideband. */
static int add_aux_mark(struct qd_session *s, const struct qpt_record *rec,
			int32_t cpu, int32_t tid, uint64_t flags)
{
	const uint8_t *d = rec->data;
	uint64_t off, size;
	struct qd_mark *m;

	if (qd_reserve(&s->aux, &s->cap_aux, s->nr_aux, sizeof(*m)))
		return -ENOMEM;
	memcpy(&off, d + 8, 8);
	memcpy(&size, d + 16, 8);
	m = &s->aux[s->nr_aux++];
	m->end = off + size < off ? UINT64_MAX : off + size;
	m->w = when_of(s, rec);
	m->cpu = cpu;
	m->tid = tid;
	m->cut = flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION);
	if (m->cut) { /* the loss add_lost noted last */
		m->lost = s->nr_lost - 1;
		s->lost[m->lost].at_cut = true;
	}
	return 0;
}

/* AUX records (where the data stood; and when the kernel lost trace),
 * AUXTRACE_ERROR records. */
static int on_lost(struct qd_session *s, const struct qpt_record *rec)
{
	int32_t cpu = rec->sid.present & PERF_SAMPLE_CPU ?
		      (int32_t)rec->sid.cpu : -1;
	int32_t tid = rec->sid.present & PERF_SAMPLE_TID ?
		      (int32_t)rec->sid.tid : -1;

	if (rec->type == PERF_RECORD_AUX) {
		uint64_t flags;

		if (rec->size < 8 + 24)
			return 0;
		memcpy(&flags, (const uint8_t *)rec->data + 24, 8);
		if (((flags & PERF_AUX_FLAG_TRUNCATED) &&
		     add_lost(s, rec, cpu, tid,
			      "AUX buffer full: trace data was lost")) ||
		    (!(flags & PERF_AUX_FLAG_TRUNCATED) &&
		     (flags & PERF_AUX_FLAG_COLLISION) &&
		     add_lost(s, rec, cpu, tid,
			      "AUX sample collision: trace data lost")))
			return -ENOMEM;
		return add_aux_mark(s, rec, cpu, tid, flags) ? -ENOMEM : 0;
	} else {
		const struct qpt_record_auxtrace_error *e = rec->data;
		char msg[96];

		if (rec->size < offsetof(struct qpt_record_auxtrace_error,
					 machine_pid))
			return 0;
		snprintf(msg, sizeof(msg), "recorded error: %.*s",
			 (int)sizeof(e->msg), e->msg);
		return add_lost(s, rec, (int32_t)e->cpu, (int32_t)e->tid, msg);
	}
}

int qd_session_record(struct qd_session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	bool out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;

	if ((rec->sid.present & PERF_SAMPLE_TIME) &&
	    rec->sid.time != UINT64_MAX) {
		s->sb_timed = true;
		if (rec->sid.time > s->clock)
			s->clock = rec->sid.time;
	}
	switch (rec->type) {
	case QPT_RECORD_AUXTRACE_INFO:
		on_info(s, rec);
		return 0;
	case QPT_RECORD_TIME_CONV: {
		const struct qpt_record_time_conv *tc = rec->data;

		if (rec->size >= offsetof(struct qpt_record_time_conv,
					  time_cycles) && tc->time_mult) {
			s->tc.valid = true;
			s->tc.shift = (uint16_t)tc->time_shift;
			s->tc.mult = (uint32_t)tc->time_mult;
			s->tc.zero = tc->time_zero;
		}
		return 0;
	}
	case QPT_RECORD_AUXTRACE:
		return on_auxtrace(s, rec);
	case PERF_RECORD_AUX:
	case QPT_RECORD_AUXTRACE_ERROR:
		return on_lost(s, rec);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(s, rec);
	case PERF_RECORD_FORK:
		return on_fork(s, rec);
	case PERF_RECORD_COMM:
		return on_comm(s, rec);
	case PERF_RECORD_ITRACE_START:
		if (rec->size >= 16)
			return add_switch(s, rec, (int32_t)w[0], (int32_t)w[1]);
		return 0;
	case PERF_RECORD_SWITCH:
		if (!out && (rec->sid.present & PERF_SAMPLE_TID))
			return add_switch(s, rec, (int32_t)rec->sid.pid,
					  (int32_t)rec->sid.tid);
		return 0;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (rec->size < 16)
			return 0;
		/* switch-in: the sample's own thread; out: the next one */
		if (out)
			return add_switch(s, rec, (int32_t)w[0], (int32_t)w[1]);
		if (rec->sid.present & PERF_SAMPLE_TID)
			return add_switch(s, rec, (int32_t)rec->sid.pid,
					  (int32_t)rec->sid.tid);
		return 0;
	default:
		return 0;
	}
}

void qd_session_fini(struct qd_session *s)
{
	size_t i, k;

	qd_hist_fini(&s->hist);
	free(s->ops);
	for (i = 0; i < s->nr_queues; i++) {
		for (k = 0; k < s->queues[i].nr_runs; k++) {
			struct qd_run *r = &s->queues[i].runs[k];
			size_t j;

			for (j = 0; j < r->nr_pieces; j++)
				free(r->pieces[j].own);
			free(r->pieces);
		}
		free(s->queues[i].runs);
		free(s->queues[i].marks);
	}
	free(s->queues);
	qd_spill_fini(&s->spill);
	qd_idmap_free(&s->qidx);
	qd_idmap_free(&s->tid_pid);
	free(s->aux);
	free(s->sw);
	free(s->lost);
}

static int op_cmp(const void *a, const void *b)
{
	const struct qd_when *x = &((const struct qd_op *)a)->w;
	const struct qd_when *y = &((const struct qd_op *)b)->w;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The address space history, from the sideband in sideband order: by
 * sample time (the rings of several cpus or threads reach the file in
 * any order), else in file order.
 */
int qd_session_history(const struct qd_session *s, struct qd_hist *h)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < s->nr_ops; i++) {
		const struct qd_op *op = &s->ops[i];

		if (op->kind == QD_OP_MAP)
			err = qd_hist_map(h, op->pid, &op->w, op->start,
					  op->len, op->pgoff, op->file);
		else if (op->kind == QD_OP_EXEC)
			err = qd_hist_exec(h, op->pid, &op->w);
		else
			err = qd_hist_fork(h, op->pid, op->ppid, &op->w);
	}
	return err;
}

static int build_history(struct qd_session *s)
{
	if (s->ops)
		qsort(s->ops, s->nr_ops, sizeof(*s->ops), op_cmp);
	return qd_session_history(s, &s->hist);
}

/* "GenuineIntel,6,78,3" (the CPUID feature): libipt's errata for it. */
static void set_cpu(struct qd_session *s, const char *cpuid)
{
	unsigned fam, model, step;

	if (!cpuid || sscanf(cpuid, "GenuineIntel,%u,%u,%u", &fam, &model,
			     &step) != 3)
		return;
	s->cfg.cpu.vendor = pcv_intel;
	s->cfg.cpu.family = (uint16_t)fam;
	s->cfg.cpu.model = (uint8_t)model;
	s->cfg.cpu.stepping = (uint8_t)step;
	if (pt_cpu_errata(&s->cfg.errata, &s->cfg.cpu) < 0)
		memset(&s->cfg.errata, 0, sizeof(s->cfg.errata));
}

static int fail(struct qpt_decoder *dec, struct qpt_reader *r, int err)
{
	if (r && qpt_reader_errmsg(r)[0]) {
		dec->errpos = qpt_reader_errpos(r);
		snprintf(dec->errmsg, sizeof(dec->errmsg), "%s",
			 qpt_reader_errmsg(r));
	}
	return err;
}

/* qpt_decoder_run_file, or with @sink qpt_decoder_run_file_jobs. */
static int run_file(struct qpt_decoder *dec, const char *path,
		    qpt_item_fn fn, void *ctx, const struct qpt_job_sink *sink)
{
	struct qpt_reader_opts ropts;
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	struct qd_session s;
	int err;

	qd_decoder_reset_results(dec);
	memset(&s, 0, sizeof(s));
	s.fd = -1;
	s.dec = dec;
	pt_config_init(&s.cfg);
	err = qd_hist_init(&s.hist, dec->iscache, dec->manual);
	if (err)
		goto out;
	qpt_reader_opts_init(&ropts);
	ropts.log = dec->opts.log; /* the reader's warnings */
	ropts.log_ctx = dec->opts.log_ctx;
	err = qpt_reader_open(path, &ropts, &r);
	if (err) {
		err = fail(dec, r, err);
		goto out;
	}
	s.stable = !qpt_reader_is_pipe(r) && !qpt_reader_is_stream(r);
	s.reader = r;
	if (s.stable) /* the file's, or standard input's (the reader's) */
		s.fd = qpt_reader_data_fd(r);
	dec->files.data_path = strcmp(path, "-") ? path : NULL;
	set_cpu(&s, qpt_reader_feature_string(r, QPT_FEAT_CPUID));
	while ((err = qpt_reader_next(r, &rec)) > 0) {
		s.feat = qpt_reader_features(r);
		err = qd_session_record(&s, &rec);
		s.seq++;
		if (err)
			break;
	}
	if (err < 0) {
		err = fail(dec, r, err);
		goto out;
	}
	if (!s.have_info && !s.nr_queues) {
		snprintf(dec->errmsg, sizeof(dec->errmsg),
			 "no Intel PT trace in this file");
		err = -QPT_E_UNSUPPORTED;
		goto out;
	}
	err = build_history(&s);
	if (!err)
		err = sink ? qd_session_decode_jobs(&s, sink)
			   : qd_session_decode(&s, fn, ctx);
	if (!err)
		err = qd_decoder_collect_missing(dec);
out:
	dec->files.data_path = NULL;
	qpt_reader_free(r);
	qd_session_fini(&s);
	return err;
}

int qpt_decoder_run_file(struct qpt_decoder *dec, const char *path,
			 qpt_item_fn fn, void *ctx)
{
	if (!dec || !path || !fn)
		return -QPT_E_INVAL;
	return run_file(dec, path, fn, ctx, NULL);
}

int qpt_decoder_run_file_jobs(struct qpt_decoder *dec, const char *path,
			      const struct qpt_job_sink *sink)
{
	if (!dec || !path || !sink || sink->size < sizeof(*sink) ||
	    !sink->open || !sink->item || !sink->tell || !sink->finish ||
	    !sink->write || !sink->close || !sink->serial ||
	    (dec->opts.want & (QPT_WANT_PROFILE | QPT_WANT_COVERAGE)))
		return -QPT_E_INVAL;
	return run_file(dec, path, NULL, NULL, sink);
}
