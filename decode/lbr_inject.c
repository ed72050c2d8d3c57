// SPDX-License-Identifier: MIT
/*
 * Call-stack LBR samples synthesized from an Intel PT perf.data: the flow
 * is decoded once through a call-stack tracker of the asked depth (and,
 * for the truth, one of QPT_LBR_MAX_DEPTH), whose period records become
 * PERF_RECORD_SAMPLEs kept in memory; then the input's sideband is copied
 * (its sample_id rewritten for the new event) with the samples merged in
 * by time, so that readers going in file order see each mapping before
 * the samples in it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/decoder.h"
#include "decode/lbr_priv.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

#define SAMPLE_TYPE                                                          \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |               \
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)

struct pending {
	uint64_t time, off; /* of the record in the buffer */
};

struct inject {
	const struct qpt_lbr_inject_opts *o;
	struct qpt_lbr *lbr, *truth;
	uint8_t *buf;
	size_t len, cap;
	struct pending *idx;
	size_t nr, cap_idx;
	int err;
};

void qpt_lbr_inject_opts_init_sized(struct qpt_lbr_inject_opts *out, size_t size)
{
	struct qpt_lbr_inject_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	opts->depth = 32;
	opts->period = 1000;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

/* A period record of the tracker becomes a sample in the buffer. */
static int on_record(const struct qpt_lbr_record *r, void *ctx)
{
	struct inject *in = ctx;
	size_t size = 8 + 8 + 8 + 8 + 24 + 16 + 24 * r->nr, i;
	uint64_t *p;
	uint32_t ids[2];
	struct perf_event_header h;

	if (size > UINT16_MAX)
		return -QPT_E_INVAL;
	if (qd_grow(&in->buf, &in->cap, in->len + size, 1) ||
	    qd_grow(&in->idx, &in->cap_idx, in->nr + 1, sizeof(*in->idx)))
		return -ENOMEM;
	in->idx[in->nr].time = r->time;
	in->idx[in->nr++].off = in->len;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	h.size = (uint16_t)size;
	memcpy(in->buf + in->len, &h, sizeof(h));
	p = (uint64_t *)(void *)(in->buf + in->len + 8);
	*p++ = r->ip;
	ids[0] = (uint32_t)(r->pid >= 0 ? r->pid : r->tid);
	ids[1] = (uint32_t)r->tid;
	memcpy(p++, ids, 8);
	*p++ = r->time;
	*p++ = 2; /* callchain: the user context and the ip */
	*p++ = PERF_CONTEXT_USER;
	*p++ = r->ip;
	*p++ = r->nr;
	*p++ = r->hw_idx;
	for (i = 0; i < r->nr; i++) {
		*p++ = r->entries[i].from;
		*p++ = r->entries[i].to;
		*p++ = qpt_lbr_entry_perf_flags(&r->entries[i]);
	}
	in->len += size;
	return 0;
}

static int on_item(const struct qpt_item *it, void *ctx)
{
	struct inject *in = ctx;
	int err = qpt_lbr_item(it, in->lbr);

	return err || !in->truth ? err : qpt_lbr_item(it, in->truth);
}

static int time_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int trackers(struct inject *in)
{
	struct qpt_lbr_opts lo;
	int err;

	qpt_lbr_opts_init(&lo);
	lo.depth = in->o->depth;
	lo.mode = QPT_LBR_CALL_STACK;
	lo.period = in->o->period;
	lo.no_end = true;
	err = qpt_lbr_new(&lo, on_record, in, &in->lbr);
	if (err || !in->o->truth)
		return err;
	lo.depth = QPT_LBR_MAX_DEPTH;
	return qpt_lbr_new(&lo, in->o->truth, in->o->truth_ctx, &in->truth);
}

/* The event: instructions in user space, sampled every period with the
 * call-stack LBR (hw_idx) and the callchain --call-graph lbr gives. */
static void event_attr(const struct qpt_lbr_inject_opts *o,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->size = sizeof(*a);
	a->sample_period = o->period;
	a->sample_type = SAMPLE_TYPE;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_USER |
				PERF_SAMPLE_BRANCH_CALL_STACK |
				PERF_SAMPLE_BRANCH_HW_INDEX;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_user = 1;
	a->mmap = 1;
	a->comm = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->mmap2 = 1;
	a->comm_exec = 1;
}

/* Features carried over from the input. */
static const enum qpt_feature kept[] = {
	QPT_FEAT_HOSTNAME, QPT_FEAT_OSRELEASE, QPT_FEAT_VERSION,
	QPT_FEAT_ARCH,	   QPT_FEAT_NRCPUS,    QPT_FEAT_CPUDESC,
	QPT_FEAT_CPUID,	   QPT_FEAT_TOTAL_MEM, QPT_FEAT_CMDLINE,
	QPT_FEAT_BUILD_ID,
};

static int writer_setup(struct qpt_writer *w, const struct qpt_reader *rd,
			const struct qpt_lbr_inject_opts *o)
{
	struct perf_event_attr a;
	struct qpt_pmu_cap cap;
	uint64_t id = 1;
	char depth[16];
	size_t i;
	int err;

	event_attr(o, &a);
	err = qpt_writer_add_attr(w, &a, &id, 1, NULL);
	for (i = 0; !err && i < sizeof(kept) / sizeof(kept[0]); i++) {
		const void *data;
		size_t size;

		if (qpt_reader_feature_raw(rd, kept[i], &data, &size))
			continue;
		err = qpt_writer_set_feature_raw(w, kept[i], data, size);
	}
	snprintf(depth, sizeof(depth), "%u", o->depth);
	cap.name = "branches";
	cap.value = depth;
	/* perf record's marks of branch stacks and of the LBR's depth */
	if (!err)
		err = qpt_writer_set_feature_raw(w, QPT_FEAT_BRANCH_STACK, NULL,
						 0);
	return err ? err : qpt_writer_set_cpu_pmu_caps(w, &cap, 1);
}

/* The samples before @time (all: UINT64_MAX) into the output. */
static int flush_samples(struct inject *in, struct qpt_writer *w,
			 size_t *next, uint64_t time)
{
	int err;

	for (; *next < in->nr && in->idx[*next].time < time; (*next)++) {
		err = qpt_writer_write(w, in->buf + in->idx[*next].off);
		if (err)
			return err;
	}
	return 0;
}

/* The pid and tid of a sideband record's own fields. */
static void record_ids(const struct qpt_record *rec, uint32_t ids[2])
{
	const uint8_t *d = rec->data;

	memcpy(ids, d + 8, 8);
	if (rec->type == PERF_RECORD_FORK || rec->type == PERF_RECORD_EXIT)
		memcpy(&ids[1], d + 16, 4); /* pid, ppid, tid */
}

/* A sideband record with its sample_id trailer made the output's. */
static int copy_sideband(struct qpt_writer *w, const struct qpt_record *rec)
{
	static const uint64_t sid_bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	uint8_t out[UINT16_MAX + 1];
	struct perf_event_header h;
	size_t body = rec->size, i;
	uint32_t ids[2];

	for (i = 0; i < sizeof(sid_bits) / sizeof(sid_bits[0]); i++)
		if (rec->sid.present & sid_bits[i])
			body -= 8;
	if (body < 24 || body + 16 > UINT16_MAX)
		return 0;
	memcpy(out, rec->data, body);
	if (rec->sid.present & PERF_SAMPLE_TID) {
		ids[0] = rec->sid.pid;
		ids[1] = rec->sid.tid;
	} else {
		record_ids(rec, ids);
	}
	memcpy(out + body, ids, 8);
	memcpy(out + body + 8, &rec->sid.time, 8);
	memcpy(&h, out, sizeof(h));
	h.size = (uint16_t)(body + 16);
	memcpy(out, &h, sizeof(h));
	return qpt_writer_write(w, out);
}

static bool is_sideband(uint32_t type)
{
	return type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
	       type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
	       type == PERF_RECORD_EXIT;
}

static int reader_fail(struct qpt_decoder *dec, struct qpt_reader *rd,
		       int err)
{
	if (rd && qpt_reader_errmsg(rd)[0]) {
		dec->errpos = qpt_reader_errpos(rd);
		snprintf(dec->errmsg, sizeof(dec->errmsg), "%s",
			 qpt_reader_errmsg(rd));
	}
	return err;
}

/* The second pass: the sideband and the samples, by time. */
static int write_out(struct qpt_decoder *dec, struct inject *in,
		     const char *path, struct qpt_writer *w)
{
	struct qpt_reader *rd = NULL;
	struct qpt_record rec;
	size_t next = 0;
	int err;

	err = qpt_reader_open(path, NULL, &rd);
	if (err)
		return reader_fail(dec, rd, err);
	err = writer_setup(w, rd, in->o);
	while (!err && (err = qpt_reader_next(rd, &rec)) > 0) {
		err = 0;
		if (!is_sideband(rec.type))
			continue;
		if (rec.sid.present & PERF_SAMPLE_TIME)
			err = flush_samples(in, w, &next, rec.sid.time);
		if (!err)
			err = copy_sideband(w, &rec);
	}
	if (err < 0 && qpt_reader_errmsg(rd)[0])
		err = reader_fail(dec, rd, err);
	if (!err)
		err = flush_samples(in, w, &next, UINT64_MAX);
	qpt_reader_free(rd);
	return err;
}

int qpt_lbr_inject(struct qpt_decoder *dec, const char *path,
		   struct qpt_writer *out, const struct qpt_lbr_inject_opts *opts)
{
	struct qpt_lbr_inject_opts o;
	struct inject in;
	int err;

	qpt_lbr_inject_opts_init(&o);
	if (!dec || !path || !out ||
	    (opts && qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(size_t))) ||
	    !o.depth || o.depth > QPT_LBR_MAX_DEPTH || !o.period ||
	    (dec->opts.want & (QPT_WANT_INSN | QPT_WANT_BRANCH)) !=
		    (QPT_WANT_INSN | QPT_WANT_BRANCH))
		return -QPT_E_INVAL;
	memset(&in, 0, sizeof(in));
	in.o = &o;
	err = trackers(&in);
	if (!err)
		err = qpt_decoder_run_file(dec, path, on_item, &in);
	if (!err && in.truth)
		err = qpt_lbr_finish(in.truth);
	if (!err && in.nr)
		qsort(in.idx, in.nr, sizeof(*in.idx), time_cmp);
	if (!err)
		err = write_out(dec, &in, path, out);
	qpt_lbr_free(in.lbr);
	qpt_lbr_free(in.truth);
	free(in.buf);
	free(in.idx);
	return err ? err : (int)in.nr;
}
