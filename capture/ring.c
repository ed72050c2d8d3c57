// SPDX-License-Identifier: MIT
/*
 * The ring consumer (see ring.h): data ring records and AUX area bytes, by
 * the rules of include/linux/perf_event.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"

/* The largest record: header.size is 16 bits. */
#define RECORD_MAX 65536

struct qpt_consumer {
	struct qpt_ring ring;
	struct qpt_sink sink;
	uint64_t snap_prev; /* aux_head at the previous snapshot */
	bool needs_enable;  /* the kernel may have disabled the event */
	bool wrapped;	    /* the AUX area has wrapped (sticky) */
	struct qpt_capture_stats stats;
	uint64_t bounce[RECORD_MAX / 8];
};

static uint64_t load_acquire(const struct qpt_consumer *c, const __u64 *w)
{
	const struct qpt_ring_ops *ops = c->ring.ops;

	if (ops && ops->load_acquire)
		return ops->load_acquire((const uint64_t *)w, c->ring.ops_ctx);
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static void store_release(const struct qpt_consumer *c, __u64 *w, uint64_t v)
{
	const struct qpt_ring_ops *ops = c->ring.ops;

	if (ops && ops->store_release)
		ops->store_release((uint64_t *)w, v, c->ring.ops_ctx);
	else
		__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

/* Tries of an enable or disable that fails with EINTR or EAGAIN. */
#define OPS_TRIES 8

static int ring_toggle(const struct qpt_consumer *c, int (*fn)(void *ctx))
{
	int err, i = 0;

	if (!fn)
		return 0;
	do
		err = fn(c->ring.ops_ctx);
	while ((err == -EINTR || err == -EAGAIN) && ++i < OPS_TRIES);
	return err;
}

static int ring_enable(const struct qpt_consumer *c)
{
	return ring_toggle(c, c->ring.ops ? c->ring.ops->enable : NULL);
}

static int ring_disable(const struct qpt_consumer *c)
{
	return ring_toggle(c, c->ring.ops ? c->ring.ops->disable : NULL);
}

static uint64_t ring_reference(const struct qpt_consumer *c)
{
	const struct qpt_ring_ops *ops = c->ring.ops;

	return ops && ops->reference ? ops->reference(c->ring.ops_ctx) : 0;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int qpt_consumer_new(const struct qpt_ring *ring, const struct qpt_sink *sink,
		     struct qpt_consumer **consumer)
{
	struct qpt_consumer *c;

	if (!consumer)
		return -QPT_E_INVAL;
	*consumer = NULL;
	if (!ring || !sink || !sink->record || !ring->page || !ring->data ||
	    ring->data_size < 8 || !is_pow2(ring->data_size))
		return -QPT_E_INVAL;
	if (ring->aux_size &&
	    (!ring->aux || !is_pow2(ring->aux_size) || !sink->auxtrace))
		return -QPT_E_INVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ring = *ring;
	c->sink = *sink;
	if (!c->ring.aux_size)
		c->ring.aux = NULL;
	*consumer = c;
	return 0;
}

void qpt_consumer_free(struct qpt_consumer *consumer)
{
	free(consumer);
}

static void count_record(struct qpt_consumer *c,
			 const struct perf_event_header *h)
{
	const uint64_t *w = (const uint64_t *)(h + 1);
	struct qpt_capture_stats *s = &c->stats;

	s->records++;
	s->data_bytes += h->size;
	switch (h->type) {
	case PERF_RECORD_AUX:
		if (h->size < sizeof(*h) + 24)
			break;
		s->aux_records++;
		s->aux_record_bytes += w[1];
		if (w[2] & PERF_AUX_FLAG_TRUNCATED) {
			s->aux_truncated++;
			c->needs_enable = true;
		}
		if (w[2] & PERF_AUX_FLAG_PARTIAL)
			s->aux_partial++;
		if (w[2] & PERF_AUX_FLAG_COLLISION)
			s->aux_collision++;
		if (w[2] & PERF_AUX_FLAG_OVERWRITE)
			s->aux_overwrite++;
		break;
	case PERF_RECORD_ITRACE_START:
		s->itrace_start++;
		break;
	case PERF_RECORD_LOST:
		if (h->size < sizeof(*h) + 16)
			break;
		s->lost_events++;
		s->lost_records += w[1];
		/* A lost PERF_RECORD_AUX may have said TRUNCATED. */
		c->needs_enable = true;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size < sizeof(*h) + 8)
			break;
		s->lost_samples += w[0];
		break;
	default:
		break;
	}
}

/* The record at ring offset @pos (masked), contiguous: in place, or
 * reassembled in the bounce buffer when it wraps the end. */
static const struct perf_event_header *record_at(struct qpt_consumer *c,
						 uint64_t pos, uint16_t size)
{
	uint64_t mask = c->ring.data_size - 1;
	uint64_t off = pos & mask;
	uint64_t first = c->ring.data_size - off;

	if (first >= size)
		return (const struct perf_event_header *)(c->ring.data + off);
	memcpy(c->bounce, c->ring.data + off, first);
	memcpy((uint8_t *)c->bounce + first, c->ring.data, size - first);
	return (const struct perf_event_header *)c->bounce;
}

/* The header at @pos, which may itself be split across the end (only if
 * the producer wrote misaligned records; handled anyway). */
static void header_at(const struct qpt_consumer *c, uint64_t pos,
		      struct perf_event_header *h)
{
	uint64_t mask = c->ring.data_size - 1;
	uint64_t off = pos & mask;
	uint64_t first = c->ring.data_size - off;

	if (first >= sizeof(*h)) {
		memcpy(h, c->ring.data + off, sizeof(*h));
		return;
	}
	memcpy(h, c->ring.data + off, first);
	memcpy((uint8_t *)h + first, c->ring.data, sizeof(*h) - first);
}

int qpt_consumer_read_data(struct qpt_consumer *c)
{
	struct perf_event_mmap_page *pg = c->ring.page;
	const struct perf_event_header *rec;
	struct perf_event_header h;
	uint64_t head, tail, pos;
	int n = 0, err = 0;

	head = load_acquire(c, &pg->data_head);
	tail = pg->data_tail; /* only we write it */
	if (head - tail > c->ring.data_size)
		return -QPT_E_LOST;
	/* The kernel keeps records 8-aligned: anything else is corrupt. */
	if ((head | tail) & 7)
		return -QPT_E_FORMAT;
	for (pos = tail; pos != head; pos += h.size) {
		if (head - pos < sizeof(h)) {
			err = -QPT_E_FORMAT;
			break;
		}
		header_at(c, pos, &h);
		if (h.size < sizeof(h) || (h.size & 7) || h.size > head - pos) {
			err = -QPT_E_FORMAT;
			break;
		}
		rec = record_at(c, pos, h.size);
		err = c->sink.record(c->sink.ctx, rec);
		if (err < 0)
			break;
		count_record(c, rec);
		n++;
	}
	/* Everything before @pos was handed on: give it back to the kernel.
	 * The release orders our reads of the records before the store. */
	if (pos != tail)
		store_release(c, &pg->data_tail, pos);
	return err < 0 ? err : n;
}

/* Hand [@from, @to) (free-running AUX positions, to - from <= aux_size) on
 * as one AUXTRACE record whose payload is one or two spans of the area. */
static int emit_auxtrace(struct qpt_consumer *c, uint64_t from, uint64_t to)
{
	struct qpt_record_auxtrace hdr;
	struct iovec iov[2];
	uint64_t mask = c->ring.aux_size - 1;
	uint64_t len = to - from, off = from & mask;
	uint64_t first = c->ring.aux_size - off;
	int cnt = 1, err;

	memset(&hdr, 0, sizeof(hdr));
	hdr.header.type = QPT_RECORD_AUXTRACE;
	hdr.header.size = sizeof(hdr);
	hdr.size = (len + 7) & ~(uint64_t)7;
	hdr.offset = from;
	hdr.reference = ring_reference(c);
	hdr.idx = c->ring.idx;
	hdr.tid = c->ring.tid;
	hdr.cpu = c->ring.cpu;
	iov[0].iov_base = c->ring.aux + off;
	iov[0].iov_len = len;
	if (first < len) {
		iov[0].iov_len = first;
		iov[1].iov_base = c->ring.aux;
		iov[1].iov_len = len - first;
		cnt = 2;
	}
	err = c->sink.auxtrace(c->sink.ctx, &hdr, iov, cnt);
	if (err < 0)
		return err;
	c->stats.aux_bytes += len;
	c->stats.aux_buffers++;
	return 0;
}

int64_t qpt_consumer_read_aux(struct qpt_consumer *c)
{
	struct perf_event_mmap_page *pg = c->ring.page;
	uint64_t head, tail;
	bool full;
	int err;

	if (!c->ring.aux_size || c->ring.aux_overwrite)
		return -QPT_E_STATE;
	head = load_acquire(c, &pg->aux_head);
	tail = pg->aux_tail;
	if (head - tail > c->ring.aux_size)
		return -QPT_E_LOST;
	/* With no room left, the kernel disables the event without a
	 * record (perf_aux_output_begin): re-enable it after draining. */
	full = head - tail >= c->ring.aux_size - 1;
	if (head != tail) {
		err = emit_auxtrace(c, tail, head);
		if (err < 0)
			return err;
		/* Release: our copy of the bytes happens before the kernel
		 * may reuse them. */
		store_release(c, &pg->aux_tail, head);
	}
	if (full || c->needs_enable) {
		c->needs_enable = false;
		err = ring_enable(c);
		if (err < 0)
			return err;
	}
	return (int64_t)(head - tail);
}

/* Whether an area whose free-running head is @head has wrapped: a head past
 * the size says so; a driver that reports its head modulo the size is
 * caught by data after the head (the area starts zero-filled). */
static bool aux_wrapped(struct qpt_consumer *c, uint64_t head)
{
	const uint8_t *p, *end = c->ring.aux + c->ring.aux_size;

	if (c->wrapped || head >= c->ring.aux_size)
		return c->wrapped = true;
	for (p = c->ring.aux + head; p < end; p++)
		if (*p)
			return c->wrapped = true;
	return false;
}

int64_t qpt_consumer_snapshot(struct qpt_consumer *c, uint64_t size)
{
	uint64_t head, from, avail, skipped = 0;
	bool wrapped;
	int err, err2;

	if (!c->ring.aux_size)
		return -QPT_E_STATE;
	err = ring_disable(c);
	if (err < 0)
		return err;
	head = load_acquire(c, &c->ring.page->aux_head);
	wrapped = aux_wrapped(c, head);
	if (wrapped && head < c->ring.aux_size) {
		/* A head kept modulo the size: the whole area is valid and
		 * the oldest byte is at the head; what is new is unknown. */
		head += c->ring.aux_size;
		avail = c->ring.aux_size;
	} else {
		/* What the area holds: all of it once wrapped, else
		 * [0, head); of that, what the last snapshot did not take. */
		avail = wrapped ? c->ring.aux_size : head;
		if (head < c->snap_prev)
			c->snap_prev = head - avail;
		if (head - c->snap_prev > avail)
			c->stats.aux_overwritten += head - c->snap_prev - avail;
		else
			avail = head - c->snap_prev;
	}
	if (size && size < avail) {
		skipped = avail - size;
		avail = size;
	}
	from = head - avail;
	err = 0;
	if (avail)
		err = emit_auxtrace(c, from, head);
	if (err >= 0) {
		c->snap_prev = head;
		c->stats.aux_skipped += skipped;
		c->stats.snapshots++;
		if (wrapped)
			c->stats.snapshot_wrapped++;
	}
	err2 = ring_enable(c);
	if (err < 0)
		return err;
	if (err2 < 0)
		return err2;
	return (int64_t)avail;
}

int qpt_consumer_drain(struct qpt_consumer *c)
{
	int64_t r;
	int err;

	err = qpt_consumer_read_data(c);
	if (err < 0)
		return err;
	if (c->ring.aux_size && !c->ring.aux_overwrite) {
		r = qpt_consumer_read_aux(c);
		if (r < 0)
			return (int)r;
		err = qpt_consumer_read_data(c);
		if (err < 0)
			return err;
	}
	return 0;
}

void qpt_consumer_add_stats(const struct qpt_consumer *c,
			    struct qpt_capture_stats *s)
{
	const uint64_t *src = (const uint64_t *)&c->stats;
	uint64_t *dst = (uint64_t *)s;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += src[i];
}
