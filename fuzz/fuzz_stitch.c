// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the LBR stitcher (decode/lbr_stitch.c) and the
 * entry conversions (decode/lbr_entry.c): call-stack LBR samples of a few
 * threads, in any order and with any hw_idx, through the caller's entry
 * size of this version, of the first one and of a later, larger one.
 * Every frame given back is read, and a sample's frames begin with its own
 * entries.
 *
 * Input: 2 bytes of options (LBR depth, link callback, entry size), then
 * samples: thread, entry count, hw_idx, and 6 bytes an entry (from and to
 * as 16-bit offsets, the perf flags word's low byte, the branch type).
 */
#include <stddef.h>
#include <string.h>

#include "fuzz/common.h"
#include "qpt/lbr.h"

#define ENTRY 6

static volatile size_t sink;

/* Linked when the call site lies within 256 bytes above the entry. */
static bool near(uint64_t to, uint64_t from, void *ctx)
{
	return from >= to && from - to < 256;
}

static void entry(const uint8_t *p, struct qpt_lbr_entry *e)
{
	uint64_t flags = p[4] | (uint64_t)(p[5] & 15) << 56;

	qpt_lbr_entry_from_perf(0x400000u + (p[0] | p[1] << 8),
				0x400000u + (p[2] | p[3] << 8),
				flags | (uint64_t)(p[5] >> 4) << 4, e);
	if (qpt_lbr_kind_from_perf(qpt_lbr_kind_to_perf(e->kind)) > QPT_BR_NR)
		fz_fail("an LBR kind out of range");
	sink += qpt_lbr_entry_perf_flags(e);
}

/* Sample @e (@nr entries, @esz bytes apart in the caller's layout). */
static void sample(struct qpt_lbr_stitch *st, int32_t tid,
		   const struct qpt_lbr_entry *e, size_t nr, uint64_t hw_idx,
		   size_t esz)
{
	static uint8_t in[64 * 48], *p;
	const struct qpt_lbr_entry *frames;
	size_t i, stitched;
	int n;

	memset(in, 0, sizeof(in));
	for (i = 0; i < nr; i++)
		memcpy(in + i * esz, &e[i],
		       esz < sizeof(*e) ? esz : sizeof(*e));
	n = qpt_lbr_stitch_sample_sized(st, tid, (const void *)in, nr, hw_idx,
					&frames, &stitched, esz);
	if (n < 0)
		return;
	if ((size_t)n < stitched || (size_t)n - stitched > nr)
		fz_fail("frames fewer than the stitched ones, or too many");
	p = (uint8_t *)frames;
	for (i = 0; i < (size_t)n; i++) {
		const struct qpt_lbr_entry *f = (const void *)(p + i * esz);

		if (i < (size_t)n - stitched &&
		    (f->from != e[i].from || f->to != e[i].to))
			fz_fail("a sample's frames do not begin with its LBR");
		sink += f->from + f->to;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t esz[4] = {
	    sizeof(struct qpt_lbr_entry),
	    offsetof(struct qpt_lbr_entry, flags) + 2, /* the first's */
	    sizeof(struct qpt_lbr_entry) + 16,	       /* a later one's */
	    sizeof(struct qpt_lbr_entry),
	};
	struct qpt_lbr_entry e[64];
	struct qpt_lbr_stitch_opts so;
	struct qpt_lbr_stitch *st;
	size_t i = 2, j, nr;

	if (size < 2)
		return 0;
	qpt_lbr_stitch_opts_init(&so);
	so.max_lbr = 1 + data[0] % 32;
	if (data[1] & 1)
		so.link = near;
	if (qpt_lbr_stitch_new(&so, &st))
		return 0;
	while (i + 3 <= size) {
		int32_t tid = data[i] & 3;
		uint64_t hw_idx = data[i + 2];

		nr = data[i + 1] % 64;
		i += 3;
		for (j = 0; j < nr && i + ENTRY <= size; j++, i += ENTRY)
			entry(data + i, &e[j]);
		sample(st, tid, e, j, hw_idx, esz[(data[1] >> 1) & 3]);
	}
	qpt_lbr_stitch_free(st);
	return 0;
}
