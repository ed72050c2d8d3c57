// SPDX-License-Identifier: MIT
/*
 * The ring consumer on arbitrary ring contents and head/tail words: it must
 * stay inside [data, data + size) and [aux, aux + aux_size) and stop.
 * Input: data_head, data_tail, aux_head, aux_tail (u64 each), a mode byte,
 * then the bytes of a 256-byte data ring and a 256-byte AUX area.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/ring.h"

#define RING 256

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

static volatile uint8_t touched;

static int rec_ok(void *ctx, const struct perf_event_header *rec)
{
	uint8_t sum = 0;
	size_t i;

	for (i = 0; i < rec->size; i++) /* touch every byte */
		sum += ((const uint8_t *)rec)[i];
	touched = sum;
	return 0;
}

static int aux_ok(void *ctx, const struct qpt_record_auxtrace *hdr,
		  const struct iovec *iov, int iovcnt)
{
	uint8_t sum = 0;
	size_t j;
	int i;

	for (i = 0; i < iovcnt; i++)
		for (j = 0; j < iov[i].iov_len; j++)
			sum += ((const uint8_t *)iov[i].iov_base)[j];
	touched = sum;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
	struct perf_event_mmap_page *page;
	struct qpt_sink sink = {rec_ok, aux_ok, NULL};
	struct qpt_consumer *c;
	struct qpt_ring ring;
	uint8_t *data, *aux, mode;
	uint64_t w[4];
	size_t n;

	if (len < sizeof(w) + 1)
		return 0;
	memcpy(w, in, sizeof(w));
	mode = in[sizeof(w)];
	in += sizeof(w) + 1;
	len -= sizeof(w) + 1;
	page = calloc(1, sizeof(*page));
	data = calloc(1, RING);
	aux = calloc(1, RING);
	if (!page || !data || !aux)
		goto out;
	n = len < RING ? len : RING;
	memcpy(data, in, n);
	memcpy(aux, in + n, len - n < RING ? len - n : RING);
	page->data_head = w[0];
	page->data_tail = w[1];
	page->aux_head = w[2];
	page->aux_tail = w[3];
	memset(&ring, 0, sizeof(ring));
	ring.page = page;
	ring.data = data;
	ring.data_size = RING;
	ring.aux = aux;
	ring.aux_size = RING;
	ring.aux_overwrite = mode & 1;
	if (qpt_consumer_new(&ring, &sink, &c) < 0)
		goto out;
	qpt_consumer_drain(c);
	qpt_consumer_snapshot(c, mode >> 1);
	qpt_consumer_snapshot(c, 0);
	qpt_consumer_free(c);
out:
	free(page);
	free(data);
	free(aux);
	return 0;
}
