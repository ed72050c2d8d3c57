// SPDX-License-Identifier: MIT
/*
 * perf.data input: one pass over the records (through the auxfmt reader)
 * builds the address spaces, the timing parameters, the thread switches
 * and the AUXTRACE queues (buffers rejoined by offset, overlap between
 * snapshots dropped); then each queue's contiguous runs are decoded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decoder.h"
#include "qpt/reader.h"

struct run {		/* contiguous trace bytes of one queue */
	const uint8_t *data; /* borrowed from the mapped input while cap == 0 */
	uint8_t *own;
	size_t len, cap;
	uint64_t start;	/* aux offset of data[0] */
};

struct queue {
	uint32_t idx;
	int32_t cpu, tid, pid;
	struct run *runs;
	size_t nr_runs;
};

struct switch_ev {
	uint64_t time;
	int32_t cpu, pid, tid;
};

struct lost_ev {
	uint64_t time;
	bool has_time;
	int32_t cpu, tid;
	uint64_t pos; /* input offset of the record */
	char msg[96];
};

struct session {
	const struct qpt_reader *reader;
	struct lost_ev *lost;
	size_t nr_lost;
	struct qpt_decoder *dec;
	struct qd_space **spaces;
	size_t nr_spaces;
	struct qd_space *all;	/* every mapping: when the process is unknown */
	struct qd_space *kernel; /* pid -1 mappings: in every space */
	struct queue *queues;
	size_t nr_queues;
	struct switch_ev *sw;
	size_t nr_sw, cap_sw;
	struct pt_config cfg;
	struct qd_time_conv tc;
	bool have_info, per_cpu;
	bool stable; /* AUXTRACE payloads stay valid until the reader is freed */
	const struct qpt_features *feat;
	/* per-cpu thread following while decoding */
	const struct queue *cur_q;
	size_t sw_pos;
};

static int copy_maps(struct session *s, struct qd_space *to,
		     const struct qd_space *from)
{
	size_t i;
	int err;

	for (i = 0; from && i < from->nr_maps; i++) {
		const struct qd_map *m = &from->maps[i];

		err = qd_space_map(to, s->dec->iscache, m->start,
				   m->end - m->start, m->pgoff, m->file);
		if (err)
			return err;
	}
	return 0;
}

static struct qd_space *space_get(struct session *s, int32_t pid, bool make)
{
	struct qd_space **ns, *sp;
	size_t i;

	for (i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i]->pid == pid)
			return s->spaces[i];
	if (!make)
		return NULL;
	sp = qd_space_new(pid);
	if (!sp)
		return NULL;
	if (qd_decoder_add_manual(s->dec, sp) || copy_maps(s, sp, s->kernel)) {
		qd_space_free(sp);
		return NULL;
	}
	ns = realloc(s->spaces, (s->nr_spaces + 1) * sizeof(*ns));
	if (!ns) {
		qd_space_free(sp);
		return NULL;
	}
	s->spaces = ns;
	s->spaces[s->nr_spaces++] = sp;
	return sp;
}

static struct queue *queue_get(struct session *s, uint32_t idx)
{
	struct queue *nq;
	size_t i;

	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].idx == idx)
			return &s->queues[i];
	nq = realloc(s->queues, (s->nr_queues + 1) * sizeof(*nq));
	if (!nq)
		return NULL;
	s->queues = nq;
	nq = &s->queues[s->nr_queues++];
	memset(nq, 0, sizeof(*nq));
	nq->idx = idx;
	nq->cpu = nq->tid = nq->pid = -1;
	return nq;
}

/*
 * Append @n bytes to @r.  A run of one buffer of a mapped file borrows it
 * (@stable): no copy; joining buffers copies them into one.
 */
static int run_append(struct run *r, const uint8_t *p, size_t n, bool stable)
{
	if (!r->len && stable) {
		r->data = p;
		r->len = n;
		return 0;
	}
	if (r->len + n > r->cap) {
		size_t nc = r->cap ? r->cap : 65536;
		uint8_t *nd;

		while (nc < r->len + n)
			nc *= 2;
		nd = realloc(r->own, nc);
		if (!nd)
			return -ENOMEM;
		if (!r->own && r->len)
			memcpy(nd, r->data, r->len); /* was borrowed */
		r->own = nd;
		r->cap = nc;
		r->data = nd;
	}
	memcpy(r->own + r->len, p, n);
	r->len += n;
	return 0;
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
 * Add one AUXTRACE payload to its queue: contiguous with the last run, it
 * extends it; overlapping it (snapshots), the overlap is dropped by
 * comparing the tail of the run with the head of the new buffer; else
 * it starts a new run.
 */
static int on_auxtrace(struct session *s, const struct qpt_record *rec)
{
	const struct qpt_record_auxtrace *a = rec->data;
	const uint8_t *p = rec->aux;
	uint64_t n = rec->aux_size;
	struct queue *q;
	struct run *r;

	if (rec->size < sizeof(*a) || !p)
		return 0;
	q = queue_get(s, a->idx);
	if (!q)
		return -ENOMEM;
	if (a->cpu != (uint32_t)-1)
		q->cpu = (int32_t)a->cpu;
	if (a->tid != (uint32_t)-1 && q->tid < 0)
		q->tid = (int32_t)a->tid;
	r = q->nr_runs ? &q->runs[q->nr_runs - 1] : NULL;
	if (r && a->offset == r->start + r->len)
		return run_append(r, p, (size_t)n, s->stable && !rec->depth);
	if (r && r->len && n >= 64) {
		/*
		 * The longest tail of the run that is a head of the buffer,
		 * allowing for the run's padding to 8 bytes (zeros: PT PADs).
		 */
		size_t pad;

		for (pad = 0; pad < 8 && pad < r->len; pad++) {
			size_t k;

			if (pad && r->data[r->len - pad])
				break;
			k = overlap(r->data, r->len - pad, p, (size_t)n);
			if (!k)
				continue;
			if (k == n)
				return 0;
			r->len -= pad;
			return run_append(r, p + k, (size_t)(n - k), false);
		}
	}
	r = realloc(q->runs, (q->nr_runs + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	q->runs = r;
	r = &q->runs[q->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->start = a->offset;
	return run_append(r, p, (size_t)n, s->stable && !rec->depth);
}

/* perf's intel_pt_mtc_period: the mtc_period field of the Intel PT
 * event's config (0 without its mtc bit); AUXTRACE_INFO has the masks. */
static uint8_t mtc_period(const struct session *s, const uint64_t *priv)
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

static void on_info(struct session *s, const struct qpt_record *rec)
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

static const uint8_t *feature_bid(struct session *s, const char *path,
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

static int on_mmap(struct session *s, const struct qpt_record *rec)
{
	const uint8_t *d = rec->data;
	uint32_t pid;
	uint64_t addr, len, pgoff;
	const uint8_t *bid = NULL;
	size_t bid_size = 0, fn_off, fn_max;
	char path[4096];
	struct qd_file *file;
	struct qd_space *sp;
	int err;

	fn_off = rec->type == PERF_RECORD_MMAP2 ? 8 + 32 + 24 + 8 : 8 + 32;
	if (rec->size <= fn_off)
		return 0;
	memcpy(&pid, d + 8, 4);
	memcpy(&addr, d + 16, 8);
	memcpy(&len, d + 24, 8);
	memcpy(&pgoff, d + 32, 8);
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
	file = qd_files_get(&s->dec->files, path, bid, bid_size, false);
	if (!file)
		return -ENOMEM;
	if (pid == (uint32_t)-1) {
		/* the kernel and its modules: part of every address space */
		size_t i;

		err = qd_space_map(s->kernel, s->dec->iscache, addr, len,
				   pgoff, file);
		for (i = 0; !err && i < s->nr_spaces; i++)
			err = qd_space_map(s->spaces[i], s->dec->iscache, addr,
					   len, pgoff, file);
		if (!err)
			err = qd_space_map(s->all, s->dec->iscache, addr, len,
					   pgoff, file);
		return err;
	}
	sp = space_get(s, (int32_t)pid, true);
	if (!sp)
		return -ENOMEM;
	err = qd_space_map(sp, s->dec->iscache, addr, len, pgoff, file);
	if (!err)
		err = qd_space_map(s->all, s->dec->iscache, addr, len, pgoff,
				   file);
	return err;
}

static int on_fork(struct session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	struct qd_space *parent, *child, **ns;

	if (rec->size < 8 + 16 || w[0] == w[1])
		return 0; /* a thread shares its process's space */
	parent = space_get(s, (int32_t)w[1], false);
	if (!parent || space_get(s, (int32_t)w[0], false))
		return 0;
	child = qd_space_clone(parent, (int32_t)w[0]);
	if (!child)
		return -ENOMEM;
	ns = realloc(s->spaces, (s->nr_spaces + 1) * sizeof(*ns));
	if (!ns) {
		qd_space_free(child);
		return -ENOMEM;
	}
	s->spaces = ns;
	s->spaces[s->nr_spaces++] = child;
	return 0;
}

static int on_comm(struct session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	struct qd_space *sp;

	if (rec->size < 8 + 8 || !(rec->misc & PERF_RECORD_MISC_COMM_EXEC))
		return 0;
	sp = space_get(s, (int32_t)w[0], false);
	if (!sp)
		return 0;
	/* exec: a new address space (hand-given images stay) */
	if (qd_space_reset(sp))
		return -ENOMEM;
	if (qd_decoder_add_manual(s->dec, sp))
		return -ENOMEM;
	return copy_maps(s, sp, s->kernel);
}

static int add_switch(struct session *s, const struct qpt_record *rec,
		      int32_t pid, int32_t tid)
{
	if (!(rec->sid.present & PERF_SAMPLE_TIME) ||
	    !(rec->sid.present & PERF_SAMPLE_CPU))
		return 0;
	if (s->nr_sw == s->cap_sw) {
		size_t nc = s->cap_sw * 2 + 64;
		struct switch_ev *n = realloc(s->sw, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->sw = n;
		s->cap_sw = nc;
	}
	s->sw[s->nr_sw].time = rec->sid.time;
	s->sw[s->nr_sw].cpu = (int32_t)rec->sid.cpu;
	s->sw[s->nr_sw].pid = pid;
	s->sw[s->nr_sw].tid = tid;
	s->nr_sw++;
	return 0;
}

static int add_lost(struct session *s, const struct qpt_record *rec,
		    int32_t cpu, int32_t tid, const char *msg)
{
	struct lost_ev *n = realloc(s->lost, (s->nr_lost + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->lost = n;
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

/* AUX records saying the kernel lost trace, and AUXTRACE_ERROR records. */
static int on_lost(struct session *s, const struct qpt_record *rec)
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
		if (flags & PERF_AUX_FLAG_TRUNCATED)
			return add_lost(s, rec, cpu, tid,
					"AUX buffer full: trace data was lost");
		if (flags & PERF_AUX_FLAG_COLLISION)
			return add_lost(s, rec, cpu, tid,
					"AUX sample collision: trace data lost");
		return 0;
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

static int on_record(struct session *s, const struct qpt_record *rec)
{
	const uint32_t *w = (const uint32_t *)((const uint8_t *)rec->data + 8);
	bool out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;

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

/* Follow context switches on the queue's cpu as the trace time advances. */
static void on_time(struct qd_flow_ctx *fc, uint64_t tsc, void *arg)
{
	struct session *s = arg;
	uint64_t t = qd_tsc_to_time(&s->tc, tsc);

	while (s->sw_pos < s->nr_sw && s->sw[s->sw_pos].time <= t) {
		const struct switch_ev *e = &s->sw[s->sw_pos++];

		struct qd_space *sp;

		if (e->cpu != fc->cpu)
			continue;
		fc->pid = e->pid;
		fc->tid = e->tid;
		if (!s->per_cpu)
			continue;
		sp = space_get(s, e->pid, false);
		if (!sp)
			sp = s->all;
		if (sp != fc->space) {
			fc->space = sp;
			fc->space_changed = true;
		}
	}
}

/* The recorded losses of @q's cpu (or thread) as items. */
static int emit_lost(struct session *s, const struct queue *q,
		     qpt_item_fn fn, void *ctx)
{
	size_t i;
	int err;

	for (i = 0; i < s->nr_lost; i++) {
		const struct lost_ev *l = &s->lost[i];
		struct qpt_item it;

		if (q->cpu >= 0 ? l->cpu != q->cpu :
		    (q->tid >= 0 && l->tid != q->tid))
			continue;
		memset(&it, 0, sizeof(it));
		it.type = QPT_ITEM_EVENT;
		it.kind = QPT_EV_LOST;
		it.via = QPT_BR_NR;
		it.queue = q->idx;
		it.cpu = l->cpu;
		it.tid = l->tid;
		it.pid = -1;
		it.offset = l->pos;
		it.msg = l->msg;
		if (l->cpu >= 0)
			it.flags |= QPT_ITEM_HAS_CPU;
		if (l->tid >= 0)
			it.flags |= QPT_ITEM_HAS_TID;
		if (l->has_time) {
			it.flags |= QPT_ITEM_HAS_TIME;
			it.time = l->time;
		}
		err = fn(&it, ctx);
		if (err)
			return err;
	}
	return 0;
}

static int decode_queues(struct session *s, qpt_item_fn fn, void *ctx)
{
	size_t i, k;
	int err;

	for (i = 0; i < s->nr_queues; i++) {
		const struct queue *q = &s->queues[i];
		struct qd_flow_ctx fc;
		struct qd_space *sp = NULL;

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
		for (k = 0; k < s->nr_sw && q->tid >= 0; k++)
			if (s->sw[k].tid == q->tid)
				fc.pid = s->sw[k].pid;
		if (fc.pid >= 0 && !s->per_cpu)
			sp = space_get(s, fc.pid, false);
		if (!sp && s->nr_spaces == 1)
			sp = s->spaces[0];
		if (!sp)
			sp = s->all;
		fc.space = sp;
		if (q->cpu >= 0 && s->nr_sw) {
			fc.on_time = on_time;
			fc.on_time_arg = s;
			s->sw_pos = 0;
		}
		err = emit_lost(s, q, fn, ctx);
		if (err)
			return err;
		for (k = 0; k < q->nr_runs; k++) {
			err = qd_flow_run(&fc, &s->cfg, q->runs[k].data,
					  q->runs[k].len, fc.space->image);
			if (err)
				return err;
		}
	}
	return 0;
}

static void session_free(struct session *s)
{
	size_t i, k;

	for (i = 0; i < s->nr_spaces; i++)
		qd_space_free(s->spaces[i]);
	free(s->spaces);
	qd_space_free(s->all);
	qd_space_free(s->kernel);
	for (i = 0; i < s->nr_queues; i++) {
		for (k = 0; k < s->queues[i].nr_runs; k++)
			free(s->queues[i].runs[k].own);
		free(s->queues[i].runs);
	}
	free(s->queues);
	free(s->sw);
	free(s->lost);
}

/* "GenuineIntel,6,78,3" (the CPUID feature): libipt's errata for it. */
static void set_cpu(struct session *s, const char *cpuid)
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

int qpt_decoder_run_file(struct qpt_decoder *dec, const char *path,
			 qpt_item_fn fn, void *ctx)
{
	struct qpt_reader_opts ropts;
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	struct session s;
	int err;

	if (!dec || !path || !fn)
		return -QPT_E_INVAL;
	qd_decoder_reset_results(dec);
	memset(&s, 0, sizeof(s));
	s.dec = dec;
	pt_config_init(&s.cfg);
	s.all = qd_space_new(-1);
	s.kernel = qd_space_new(-1);
	if (!s.all || !s.kernel || qd_decoder_add_manual(dec, s.all)) {
		err = -ENOMEM;
		goto out;
	}
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
	dec->files.data_path = strcmp(path, "-") ? path : NULL;
	set_cpu(&s, qpt_reader_feature_string(r, QPT_FEAT_CPUID));
	while ((err = qpt_reader_next(r, &rec)) > 0) {
		s.feat = qpt_reader_features(r);
		err = on_record(&s, &rec);
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
	err = decode_queues(&s, fn, ctx);
	if (!err)
		err = qd_decoder_collect_missing(dec);
out:
	dec->files.data_path = NULL;
	qpt_reader_free(r);
	session_free(&s);
	return err;
}
