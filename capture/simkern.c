// SPDX-License-Identifier: MIT
/*
 * The simulated kernel producer (see simkern.h), after
 * kernel/events/ring_buffer.c: perf_output_begin/end for the data ring,
 * perf_aux_output_begin/end for the AUX area.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/simkern.h"

#define PAGE 4096

struct qpt_simkern {
	struct qpt_simkern_opts o;
	struct perf_event_mmap_page *page;
	uint8_t *data;
	uint8_t *aux;
	uint64_t head;	   /* data ring: producer's head */
	uint64_t aux_head; /* AUX: producer's head */
	uint64_t lost;	   /* records lost, not yet reported */
	uint64_t time;
	uint64_t reference;
	int enabled; /* shared with the consumer: atomics */
	bool own;    /* page and rings are ours to free */
	struct qpt_simkern_stats st;
	struct qpt_ring_ops ops;
};

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

void qpt_simkern_opts_init(struct qpt_simkern_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->data_size = 64 * 1024;
	opts->aux_size = 64 * 1024;
	opts->enabled = true;
	opts->ring_tid = (uint32_t)-1;
	opts->ring_cpu = (uint32_t)-1;
}

static int sim_enable(void *ctx)
{
	qpt_simkern_enable(ctx, true);
	return 0;
}

static int sim_disable(void *ctx)
{
	qpt_simkern_enable(ctx, false);
	return 0;
}

static uint64_t sim_reference(void *ctx)
{
	struct qpt_simkern *sk = ctx;

	return ++sk->reference;
}

static bool opts_ok(const struct qpt_simkern_opts *opts)
{
	return opts && opts->size >= sizeof(*opts) && opts->data_size >= 64 &&
	       is_pow2(opts->data_size) &&
	       (!opts->aux_size || is_pow2(opts->aux_size));
}

/* The simulator over @sk->page, data and aux (set by the caller). */
static void start(struct qpt_simkern *sk, bool resume)
{
	const struct qpt_simkern_opts *opts = &sk->o;

	if (resume) {
		/* another producer wrote here: go on from its heads */
		sk->head = __atomic_load_n(&sk->page->data_head,
					   __ATOMIC_ACQUIRE);
		sk->aux_head = __atomic_load_n(&sk->page->aux_head,
					       __ATOMIC_ACQUIRE);
	} else {
		/* A fresh mapping reads as zeroes. */
		memset(sk->page, 0, PAGE);
		sk->page->data_offset = PAGE;
		sk->page->data_size = opts->data_size;
		sk->page->aux_offset = PAGE + opts->data_size;
		sk->page->aux_size = opts->aux_size;
	}
	sk->enabled = opts->enabled;
	sk->ops.enable = sim_enable;
	sk->ops.disable = sim_disable;
	sk->ops.reference = sim_reference;
}

int qpt_simkern_new(const struct qpt_simkern_opts *opts,
		    struct qpt_simkern **out)
{
	struct qpt_simkern *sk;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	if (!opts_ok(opts))
		return -QPT_E_INVAL;
	sk = calloc(1, sizeof(*sk));
	if (!sk)
		return -ENOMEM;
	sk->o = *opts;
	sk->own = true;
	sk->page = aligned_alloc(PAGE, PAGE);
	sk->data = aligned_alloc(
	    PAGE, opts->data_size < PAGE ? PAGE : opts->data_size);
	if (opts->aux_size)
		sk->aux = aligned_alloc(
		    PAGE, opts->aux_size < PAGE ? PAGE : opts->aux_size);
	if (!sk->page || !sk->data || (opts->aux_size && !sk->aux)) {
		qpt_simkern_free(sk);
		return -ENOMEM;
	}
	memset(sk->data, 0, opts->data_size);
	if (sk->aux)
		memset(sk->aux, 0, opts->aux_size);
	start(sk, false);
	*out = sk;
	return 0;
}

size_t qpt_simkern_mem_size(const struct qpt_simkern_opts *opts)
{
	if (!opts_ok(opts) || opts->data_size < PAGE ||
	    (opts->aux_size && opts->aux_size < PAGE))
		return 0;
	return PAGE + opts->data_size + opts->aux_size;
}

int qpt_simkern_new_at(const struct qpt_simkern_opts *opts, void *mem,
		       bool resume, struct qpt_simkern **out)
{
	struct qpt_simkern *sk;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	if (!mem || ((uintptr_t)mem & (PAGE - 1)) ||
	    !qpt_simkern_mem_size(opts))
		return -QPT_E_INVAL;
	sk = calloc(1, sizeof(*sk));
	if (!sk)
		return -ENOMEM;
	sk->o = *opts;
	sk->page = mem;
	sk->data = (uint8_t *)mem + PAGE;
	if (opts->aux_size)
		sk->aux = sk->data + opts->data_size;
	start(sk, resume);
	*out = sk;
	return 0;
}

void qpt_simkern_free(struct qpt_simkern *sk)
{
	if (!sk)
		return;
	if (sk->own) {
		free(sk->page);
		free(sk->data);
		free(sk->aux);
	}
	free(sk);
}

void qpt_simkern_ring(struct qpt_simkern *sk, struct qpt_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	ring->page = sk->page;
	ring->data = sk->data;
	ring->data_size = sk->o.data_size;
	ring->aux = sk->aux;
	ring->aux_size = sk->o.aux_size;
	ring->aux_overwrite = sk->o.aux_overwrite;
	ring->idx = sk->o.idx;
	ring->tid = sk->o.ring_tid;
	ring->cpu = sk->o.ring_cpu;
	ring->ops = &sk->ops;
	ring->ops_ctx = sk;
}

struct perf_event_mmap_page *qpt_simkern_page(struct qpt_simkern *sk)
{
	return sk->page;
}

void qpt_simkern_set_time(struct qpt_simkern *sk, uint64_t time)
{
	sk->time = time;
}

void qpt_simkern_enable(struct qpt_simkern *sk, bool on)
{
	__atomic_store_n(&sk->enabled, on, __ATOMIC_SEQ_CST);
}

bool qpt_simkern_enabled(const struct qpt_simkern *sk)
{
	return __atomic_load_n(&sk->enabled, __ATOMIC_SEQ_CST);
}

size_t qpt_simkern_sample_id_size(const struct qpt_simkern *sk)
{
	uint64_t t = sk->o.sample_type;
	size_t n = 0;

	if (!sk->o.sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		n += 8;
	if (t & PERF_SAMPLE_TIME)
		n += 8;
	if (t & PERF_SAMPLE_ID)
		n += 8;
	if (t & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (t & PERF_SAMPLE_CPU)
		n += 8;
	if (t & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

/* The sample_id trailer, in the kernel's order (__perf_event_header__
 * init_id / perf_event__output_id_sample). */
static size_t put_sample_id(const struct qpt_simkern *sk, uint64_t *w)
{
	uint64_t t = sk->o.sample_type;
	size_t n = 0;

	if (!sk->o.sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		w[n++] = (uint64_t)sk->o.pid | (uint64_t)sk->o.tid << 32;
	if (t & PERF_SAMPLE_TIME)
		w[n++] = sk->time;
	if (t & PERF_SAMPLE_ID)
		w[n++] = sk->o.id;
	if (t & PERF_SAMPLE_STREAM_ID)
		w[n++] = sk->o.id;
	if (t & PERF_SAMPLE_CPU)
		w[n++] = sk->o.cpu;
	if (t & PERF_SAMPLE_IDENTIFIER)
		w[n++] = sk->o.id;
	return n * 8;
}

static void ring_copy(struct qpt_simkern *sk, uint64_t pos, const void *src,
		      size_t len)
{
	uint64_t mask = sk->o.data_size - 1, off = pos & mask;
	uint64_t first = sk->o.data_size - off;

	if (first >= len) {
		memcpy(sk->data + off, src, len);
		return;
	}
	memcpy(sk->data + off, src, first);
	memcpy(sk->data, (const uint8_t *)src + first, len - first);
}

static uint64_t circ_space(uint64_t head, uint64_t tail, uint64_t size)
{
	return (tail - head - 1) & (size - 1);
}

uint64_t qpt_simkern_data_room(const struct qpt_simkern *sk)
{
	uint64_t tail = __atomic_load_n(&sk->page->data_tail, __ATOMIC_ACQUIRE);

	return circ_space(sk->head, tail, sk->o.data_size);
}

uint64_t qpt_simkern_aux_room(const struct qpt_simkern *sk)
{
	uint64_t tail;

	if (!sk->aux)
		return 0;
	if (sk->o.aux_overwrite)
		return UINT64_MAX;
	tail = __atomic_load_n(&sk->page->aux_tail, __ATOMIC_ACQUIRE);
	if (sk->aux_head - tail >= sk->o.aux_size)
		return 0;
	return circ_space(sk->aux_head, tail, sk->o.aux_size);
}

int qpt_simkern_output(struct qpt_simkern *sk,
		       const struct perf_event_header *rec)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		uint64_t sid[6];
	} lost;
	uint64_t tail, need = rec->size;
	size_t lost_size = 0;

	if (rec->size < sizeof(*rec) || (rec->size & 7))
		return -QPT_E_INVAL;
	if (sk->lost) {
		lost_size = 24 + put_sample_id(sk, lost.sid);
		need += lost_size;
	}
	/* The control dependency on data_tail orders it before our
	 * writes (kernel: "A, matches D"); acquire here. */
	tail = __atomic_load_n(&sk->page->data_tail, __ATOMIC_ACQUIRE);
	if (circ_space(sk->head, tail, sk->o.data_size) < need) {
		sk->lost++;
		sk->st.records_lost++;
		return 0;
	}
	if (lost_size) {
		lost.h.type = PERF_RECORD_LOST;
		lost.h.misc = 0;
		lost.h.size = lost_size;
		lost.id = sk->o.id;
		lost.lost = sk->lost;
		ring_copy(sk, sk->head, &lost, lost_size);
		sk->head += lost_size;
		sk->lost = 0;
		sk->st.records_written++;
	}
	ring_copy(sk, sk->head, rec, rec->size);
	sk->head += rec->size;
	sk->st.records_written++;
	/* perf_output_put_handle: smp_wmb(), then data_head. */
	__atomic_store_n(&sk->page->data_head, sk->head, __ATOMIC_RELEASE);
	return 1;
}

int qpt_simkern_output_body(struct qpt_simkern *sk, uint32_t type,
			    uint16_t misc, const void *body, size_t len)
{
	uint64_t buf[8192];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t padded = (len + 7) & ~(size_t)7, size;

	if (padded + 8 + 48 > sizeof(buf))
		return -QPT_E_INVAL;
	memset(buf, 0, 8 + padded);
	if (len)
		memcpy(h + 1, body, len);
	size = 8 + padded;
	size += put_sample_id(sk, buf + size / 8);
	h->type = type;
	h->misc = misc;
	h->size = size;
	return qpt_simkern_output(sk, h);
}

int qpt_simkern_itrace_start(struct qpt_simkern *sk, uint32_t pid, uint32_t tid)
{
	uint32_t body[2] = {pid, tid};

	return qpt_simkern_output_body(sk, PERF_RECORD_ITRACE_START, 0, body,
				       sizeof(body));
}

int qpt_simkern_lost_samples(struct qpt_simkern *sk, uint64_t lost)
{
	return qpt_simkern_output_body(sk, PERF_RECORD_LOST_SAMPLES, 0, &lost,
				       sizeof(lost));
}

static void aux_copy(struct qpt_simkern *sk, uint64_t pos, const void *src,
		     size_t len)
{
	uint64_t mask = sk->o.aux_size - 1, off = pos & mask;
	uint64_t first = sk->o.aux_size - off;

	while (len) {
		size_t n = len < first ? len : first;

		memcpy(sk->aux + off, src, n);
		src = (const uint8_t *)src + n;
		len -= n;
		off = 0;
		first = sk->o.aux_size;
	}
}

/* perf_event_aux_event: PERF_RECORD_AUX {aux_offset, aux_size, flags}. */
static void aux_event(struct qpt_simkern *sk, uint64_t offset, uint64_t size,
		      uint64_t flags)
{
	uint64_t body[3] = {offset, size, flags};

	sk->st.aux_records++;
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		sk->st.aux_truncated++;
	qpt_simkern_output_body(sk, PERF_RECORD_AUX, 0, body, sizeof(body));
}

static void aux_lose(struct qpt_simkern *sk, size_t len)
{
	sk->st.aux_lost += len;
}

int64_t qpt_simkern_aux_write(struct qpt_simkern *sk, const void *buf,
			      size_t len, uint64_t flags)
{
	uint64_t tail, space, n, old, head;

	if (!sk->aux)
		return -QPT_E_STATE;
	flags &= PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION;
	sk->st.aux_offered += len;
	if (!qpt_simkern_enabled(sk)) {
		aux_lose(sk, len);
		return 0;
	}
	old = sk->aux_head;
	if (sk->o.aux_overwrite) {
		/* Overwrite mode: the tail means nothing; wrap over. */
		if (len > sk->o.aux_size) {
			/* Only the newest aux_size bytes survive. */
			buf = (const uint8_t *)buf + (len - sk->o.aux_size);
			sk->aux_head += len - sk->o.aux_size;
			aux_copy(sk, sk->aux_head, buf, sk->o.aux_size);
		} else {
			aux_copy(sk, sk->aux_head, buf, len);
		}
		sk->aux_head = old + len;
		sk->st.aux_written += len;
		head = sk->aux_head;
		if (sk->o.aux_head_modulo)
			head &= sk->o.aux_size - 1;
		if (len || flags)
			aux_event(sk, head, len,
				  flags | PERF_AUX_FLAG_OVERWRITE);
		__atomic_store_n(&sk->page->aux_head, head, __ATOMIC_RELEASE);
		return (int64_t)len;
	}
	/* perf_aux_output_begin: the room the tail leaves. */
	tail = __atomic_load_n(&sk->page->aux_tail, __ATOMIC_ACQUIRE);
	space = 0;
	if (old - tail < sk->o.aux_size)
		space = circ_space(old, tail, sk->o.aux_size);
	if (!space) {
		/* No room: disabled, no record, the whole lot lost.  (The
		 * kernel's disable is deferred to irq_work; a consumer that
		 * drained meanwhile has already re-enabled, so look again.) */
		qpt_simkern_enable(sk, false);
		sk->st.disables++;
		aux_lose(sk, len);
		tail = __atomic_load_n(&sk->page->aux_tail, __ATOMIC_ACQUIRE);
		if (circ_space(old, tail, sk->o.aux_size))
			qpt_simkern_enable(sk, true);
		return 0;
	}
	n = len < space ? len : space;
	aux_copy(sk, old, buf, n);
	sk->st.aux_written += n;
	if (n < len) {
		flags |= PERF_AUX_FLAG_TRUNCATED;
		aux_lose(sk, len - n);
	}
	/* perf_aux_output_end.  A truncated event is disabled; we do it
	 * before the record is visible, so the consumer's re-enable comes
	 * after it. */
	if (flags & PERF_AUX_FLAG_TRUNCATED) {
		qpt_simkern_enable(sk, false);
		sk->st.disables++;
	}
	sk->aux_head = old + n;
	if (n || flags)
		aux_event(sk, old, n, flags);
	__atomic_store_n(&sk->page->aux_head, sk->aux_head, __ATOMIC_RELEASE);
	return (int64_t)n;
}

uint64_t qpt_simkern_aux_head(const struct qpt_simkern *sk)
{
	return sk->aux_head;
}

void qpt_simkern_stats(const struct qpt_simkern *sk,
		       struct qpt_simkern_stats *stats)
{
	*stats = sk->st;
	stats->records_lost_pending = sk->lost;
}
