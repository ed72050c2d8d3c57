// SPDX-License-Identifier: MIT
/*
 * PERF_RECORD_SAMPLE by its attr's sample_type, and the sample_id_all
 * trailer of other kernel records.  One walker serves parsing (host order)
 * and swapping a foreign-endian record in place.
 */
#include <string.h>

#include "auxfmt/sized.h"
#include "auxfmt/reader_internal.h"

struct walk {
	uint8_t *p;	/* writable when swapping, else only read */
	size_t off, len;
	bool swap;
	int err;
};

static bool need(struct walk *w, uint64_t n)
{
	if (w->err)
		return false;
	if (n > w->len - w->off) {
		w->err = -QPT_E_FORMAT;
		return false;
	}
	return true;
}

static uint64_t u64(struct walk *w)
{
	uint64_t v;

	if (!need(w, 8))
		return 0;
	memcpy(&v, w->p + w->off, 8);
	if (w->swap) {
		v = qpt_bswap64(v);
		memcpy(w->p + w->off, &v, 8);
	}
	w->off += 8;
	return v;
}

static uint32_t u32(struct walk *w)
{
	uint32_t v;

	if (!need(w, 4))
		return 0;
	memcpy(&v, w->p + w->off, 4);
	if (w->swap) {
		v = qpt_bswap32(v);
		memcpy(w->p + w->off, &v, 4);
	}
	w->off += 4;
	return v;
}

/* @n u64s; returns a pointer to them (8-aligned in the record) or NULL. */
static const uint64_t *u64s(struct walk *w, uint64_t n)
{
	const uint8_t *p;
	uint64_t i;

	if (n > (w->len - w->off) / 8) {
		w->err = w->err ? w->err : -QPT_E_FORMAT;
		return NULL;
	}
	p = w->p + w->off;
	for (i = 0; i < n; i++)
		u64(w);
	return (const uint64_t *)(const void *)p;
}

static const void *bytes(struct walk *w, uint64_t n)
{
	const void *p;

	if (!need(w, n))
		return NULL;
	p = w->p + w->off;
	w->off += (size_t)n;
	return p;
}

static void aligned(struct walk *w)
{
	if (!w->err && (w->off & 7))
		w->err = -QPT_E_FORMAT;
}

int qpt_sample_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
	       !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
}

size_t qpt_sample_id_size(uint64_t st)
{
	return 8 * (size_t)(!!(st & PERF_SAMPLE_TID) +
			    !!(st & PERF_SAMPLE_TIME) +
			    !!(st & PERF_SAMPLE_ID) +
			    !!(st & PERF_SAMPLE_STREAM_ID) +
			    !!(st & PERF_SAMPLE_CPU) +
			    !!(st & PERF_SAMPLE_IDENTIFIER));
}

static void walk_read(struct walk *w, uint64_t rf, struct qpt_sample *s)
{
	size_t start = w->off;
	uint64_t nr = 1, per;

	if (rf & PERF_FORMAT_GROUP)
		nr = u64(w);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		u64(w);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		u64(w);
	per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (!(rf & PERF_FORMAT_GROUP)) {
		/* value, then id and lost after the times */
		u64s(w, per);
	} else {
		if (nr > (w->len - w->off) / (8 * per)) {
			w->err = w->err ? w->err : -QPT_E_FORMAT;
			return;
		}
		u64s(w, nr * per);
	}
	s->read = w->p + start;
	s->read_size = w->off - start;
}

static void walk_branches(struct walk *w, const struct perf_event_attr *a,
			  struct qpt_sample *s)
{
	uint64_t nr = u64(w), i;
	uint8_t *e;

	s->branch_nr = nr;
	if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
		s->branch_hw_idx = u64(w);
		s->has_hw_idx = true;
	}
	if (w->err)
		return;
	if (nr > (w->len - w->off) / 24) {
		w->err = -QPT_E_FORMAT;
		return;
	}
	e = w->p + w->off;
	s->branches = (const struct qpt_branch_entry *)(const void *)e;
	for (i = 0; i < nr; i++) {
		u64(w);
		u64(w);
		if (w->swap) {
			uint64_t f;

			memcpy(&f, w->p + w->off, 8);
			f = qpt_branch_flags_swap(qpt_bswap64(f));
			memcpy(w->p + w->off, &f, 8);
		}
		w->off += 8;
	}
	/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): a u64 per entry */
	if (a->branch_sample_type & QPT_SAMPLE_BRANCH_COUNTERS)
		u64s(w, nr);
}

static const uint64_t *walk_regs(struct walk *w, uint64_t mask,
				 uint64_t *abi, uint32_t *nr)
{
	*abi = u64(w);
	*nr = 0;
	if (!*abi || w->err)
		return NULL;
	*nr = (uint32_t)__builtin_popcountll(mask);
	return u64s(w, *nr);
}

static void walk_sample(struct walk *w, const struct perf_event_attr *a,
			struct qpt_sample *s)
{
	uint64_t st = a->sample_type;

	memset(s, 0, sizeof(*s));
	s->sample_type = st;
	w->off = 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = u64(w);
	if (st & PERF_SAMPLE_IP)
		s->ip = u64(w);
	if (st & PERF_SAMPLE_TID) {
		s->pid = u32(w);
		s->tid = u32(w);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = u64(w);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = u64(w);
	if (st & PERF_SAMPLE_ID)
		s->id = u64(w);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64(w);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = u32(w);
		s->res = u32(w);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = u64(w);
	if (st & PERF_SAMPLE_READ)
		walk_read(w, a->read_format, s);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->callchain_nr = u64(w);
		s->callchain = u64s(w, s->callchain_nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		s->raw_size = u32(w);
		s->raw = bytes(w, s->raw_size);
		aligned(w);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK)
		walk_branches(w, a, s);
	if (st & PERF_SAMPLE_REGS_USER)
		s->user_regs = walk_regs(w, a->sample_regs_user,
					 &s->user_regs_abi, &s->nr_user_regs);
	if (st & PERF_SAMPLE_STACK_USER) {
		s->user_stack_size = u64(w);
		s->user_stack = bytes(w, s->user_stack_size);
		aligned(w);
		if (s->user_stack_size)
			s->user_stack_dyn_size = u64(w);
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		s->weight = u64(w);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64(w);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = u64(w);
	if (st & PERF_SAMPLE_REGS_INTR)
		s->intr_regs = walk_regs(w, a->sample_regs_intr,
					 &s->intr_regs_abi, &s->nr_intr_regs);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = u64(w);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = u64(w);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = u64(w);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = u64(w);
	if (st & PERF_SAMPLE_AUX) {
		uint64_t n = u64(w);

		if (n > UINT32_MAX) {
			w->err = w->err ? w->err : -QPT_E_FORMAT;
			return;
		}
		s->aux_size = (uint32_t)n;
		s->aux = bytes(w, n);
		aligned(w);
	}
}

/* The first version's struct qpt_sample ends with aux. */
#define SAMPLE_SIZE_V1 (offsetof(struct qpt_sample, aux) + sizeof(void *))

int qpt_sample_parse_sized(const struct qpt_attr *attr, const void *rec,
			   size_t size, struct qpt_sample *out,
			   size_t out_size)
{
	struct walk w = {(uint8_t *)rec, 0, size, false, 0};
	struct qpt_sample full;

	if (!attr || !rec || !out || out_size < SAMPLE_SIZE_V1)
		return -QPT_E_INVAL;
	if (size < 8 || ((uintptr_t)rec & 7))
		return size < 8 ? -QPT_E_TRUNCATED : -QPT_E_INVAL;
	if (out_size == sizeof(full)) {
		walk_sample(&w, &attr->attr, out);
		return w.err;
	}
	walk_sample(&w, &attr->attr, &full);
	qpt_sized_copy(out, out_size, &full, sizeof(full));
	return w.err;
}

int qpt_sample_swap(const struct perf_event_attr *attr, uint8_t *rec,
		    size_t size)
{
	struct walk w = {rec, 0, size, true, 0};
	struct qpt_sample s;

	walk_sample(&w, attr, &s);
	return w.err;
}

static void walk_id(struct walk *w, uint64_t st, struct qpt_sample_id *sid)
{
	memset(sid, 0, sizeof(*sid));
	if (st & PERF_SAMPLE_TID) {
		sid->pid = u32(w);
		sid->tid = u32(w);
	}
	if (st & PERF_SAMPLE_TIME)
		sid->time = u64(w);
	if (st & PERF_SAMPLE_ID)
		sid->id = u64(w);
	if (st & PERF_SAMPLE_STREAM_ID)
		sid->stream_id = u64(w);
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = u32(w);
		sid->res = u32(w);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		sid->identifier = u64(w);
	sid->present = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			     PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
}

void qpt_sample_id_swap(const struct perf_event_attr *attr, uint8_t *rec,
			size_t size)
{
	size_t n = qpt_sample_id_size(attr->sample_type);
	struct walk w = {rec, size - n, size, true, 0};
	struct qpt_sample_id sid;

	if (n + 8 > size)
		return;
	walk_id(&w, attr->sample_type, &sid);
}

int qpt_sample_id_parse(const struct perf_event_attr *attr, const void *rec,
			size_t size, struct qpt_sample_id *sid)
{
	size_t n = qpt_sample_id_size(attr->sample_type);
	struct walk w = {(uint8_t *)rec, size - n, size, false, 0};

	memset(sid, 0, sizeof(*sid));
	if (!attr->sample_id_all)
		return 0;
	if (n + 8 > size)
		return -QPT_E_FORMAT;
	walk_id(&w, attr->sample_type, sid);
	return w.err;
}
