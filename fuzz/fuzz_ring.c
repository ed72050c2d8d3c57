// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ring consumer (capture/ring.c) against a
 * hostile control page and rings: any head and tail words, ring sizes
 * from 8 bytes to 1 KiB, a "kernel" that moves each word it is asked for
 * by the input's steps (between the consumer's loads), enable/disable
 * calls and a sink that fail, and drains, reads and snapshots in any
 * order.  The consumer must stay inside its rings and hand on only whole
 * records of them.  Seeds: fuzz/seeds/fuzz_ring (see fuzz/seeds/README.md).
 *
 * Input (80 bytes, then the data ring's bytes and the AUX area's):
 *   [0] ring sizes: data 8 << (b & 7), AUX 8 << (b >> 3 & 7); bit 6: AUX
 *       overwrite (snapshot mode); bit 7: the sink fails at its 4th call
 *   [1] four rounds, 2 bits each: drain, read data, read AUX, snapshot
 *   [2] bit 0: enable fails, bit 1: disable fails
 *   [8] data_head, data_tail, aux_head, aux_tail, snapshot size (u64)
 *   [48] four steps (u64): each load moves the word by the next step
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"
#include "fuzz/common.h"

#define HEAD 80

struct hostile {
	uint64_t step[4];
	unsigned k, calls;
	uint8_t fail;
	const uint8_t *data, *aux;
	size_t data_size, aux_size;
};

static volatile uint8_t touched;

static uint64_t load(const uint64_t *word, void *ctx)
{
	struct hostile *h = ctx;
	uint64_t v = *word;

	*(uint64_t *)word += h->step[h->k++ % 4]; /* our page */
	return v;
}

static int enable(void *ctx)
{
	return ((struct hostile *)ctx)->fail & 1 ? -EIO : 0;
}

static int disable(void *ctx)
{
	return ((struct hostile *)ctx)->fail & 2 ? -EIO : 0;
}

static bool inside(const void *p, size_t n, const uint8_t *base, size_t size)
{
	const uint8_t *b = p;

	return (b >= base && n <= size && b - base <= (ptrdiff_t)(size - n));
}

static int rec_ok(void *ctx, const struct perf_event_header *rec)
{
	struct hostile *h = ctx;
	uint8_t sum = 0;
	size_t i;

	if (rec->size < sizeof(*rec) || rec->size % 8)
		fz_fail("a record handed on with an impossible size");
	for (i = 0; i < rec->size; i++) /* touch every byte */
		sum += ((const uint8_t *)rec)[i];
	touched = sum;
	return ++h->calls == 4 && h->fail & 0x80 ? -EIO : 0;
}

static int aux_ok(void *ctx, const struct qpt_record_auxtrace *hdr,
		  const struct iovec *iov, int iovcnt)
{
	struct hostile *h = ctx;
	uint8_t sum = 0;
	size_t j, total = 0;
	int i;

	for (i = 0; i < iovcnt; i++) {
		if (!inside(iov[i].iov_base, iov[i].iov_len, h->aux,
			    h->aux_size))
			fz_fail("AUX data handed on from outside the area");
		for (j = 0; j < iov[i].iov_len; j++)
			sum += ((const uint8_t *)iov[i].iov_base)[j];
		total += iov[i].iov_len;
	}
	if (total > h->aux_size || hdr->size < total || hdr->size % 8)
		fz_fail("an AUXTRACE record larger than the area");
	touched = sum;
	return ++h->calls == 4 && h->fail & 0x80 ? -EIO : 0;
}

static uint64_t word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void rounds(struct qpt_consumer *c, uint8_t ops, uint64_t snap)
{
	int r;

	for (r = 0; r < 4; r++) {
		switch ((ops >> (2 * r)) & 3) {
		case 0:
			qpt_consumer_drain(c);
			break;
		case 1:
			qpt_consumer_read_data(c);
			break;
		case 2:
			qpt_consumer_read_aux(c);
			break;
		default:
			qpt_consumer_snapshot(c, snap);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	const struct qpt_ring_ops ops = {load, NULL, enable, disable, NULL};
	struct hostile h;
	struct qpt_sink sink = {rec_ok, aux_ok, &h};
	struct perf_event_mmap_page *page;
	struct qpt_consumer *c;
	struct qpt_ring ring;
	uint8_t *data, *aux;
	size_t n, i;

	if (len < HEAD)
		return 0;
	memset(&h, 0, sizeof(h));
	h.data_size = (size_t)8 << (in[0] & 7);
	h.aux_size = (size_t)8 << ((in[0] >> 3) & 7);
	h.fail = (in[2] & 3) | (in[0] & 0x80);
	for (i = 0; i < 4; i++)
		h.step[i] = word(in + 48 + 8 * i);
	page = calloc(1, sizeof(*page));
	data = calloc(1, h.data_size);
	aux = calloc(1, h.aux_size);
	if (!page || !data || !aux)
		goto out;
	h.data = data;
	h.aux = aux;
	n = len - HEAD < h.data_size ? len - HEAD : h.data_size;
	memcpy(data, in + HEAD, n);
	if (len - HEAD - n)
		memcpy(aux, in + HEAD + n,
		       len - HEAD - n < h.aux_size ? len - HEAD - n
						   : h.aux_size);
	page->data_head = word(in + 8);
	page->data_tail = word(in + 16);
	page->aux_head = word(in + 24);
	page->aux_tail = word(in + 32);
	memset(&ring, 0, sizeof(ring));
	ring.page = page;
	ring.data = data;
	ring.data_size = h.data_size;
	ring.aux = aux;
	ring.aux_size = h.aux_size;
	ring.aux_overwrite = in[0] & 0x40;
	ring.ops = &ops;
	ring.ops_ctx = &h;
	if (qpt_consumer_new(&ring, &sink, &c) < 0)
		goto out;
	rounds(c, in[1], word(in + 40));
	qpt_consumer_free(c);
out:
	free(page);
	free(data);
	free(aux);
	return 0;
}
