// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for each feature section of a perf.data file
 * (auxfmt/features.c) and qpt's crash facts section (auxfmt/crash.c), with
 * the file around them kept valid so that every input reaches them: the
 * input is the sections, this target writes the header, an attr with one
 * id, a data section and the section table (in either byte order).  The
 * crash facts read are encoded again and must read back the same.
 *
 * Input: a flags byte (bit 0: a big-endian file), then sections: the
 * feature bit (0..255), its size (u16, little-endian) and its bytes.
 * Seeds: fuzz/seeds/fuzz_features, the sections of real recordings
 * (see fuzz/seeds/README.md).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/common.h"
#include "qpt/crash.h"

#define HEADER 104
#define ATTR 64	     /* PERF_ATTR_SIZE_VER0 */
#define ATTRS HEADER /* an attr, its ids section, its id */
#define DATA (ATTRS + ATTR + 16 + 8)
#define TABLE (DATA + 8) /* a FINISHED_ROUND record */

struct file {
	uint8_t *b;
	size_t n;
	bool be;
};

static void put(struct file *f, size_t at, uint64_t v, unsigned w)
{
	unsigned i;

	for (i = 0; i < w; i++)
		f->b[at + i] =
		    (uint8_t)(v >> (f->be ? 8 * (w - 1 - i) : 8 * i));
}

/* A perf.data of sections @sec[bit] (@len[bit] bytes; NULL: absent). */
static struct file build(const uint8_t *const *sec, const size_t *len, bool be)
{
	struct file f = {NULL, TABLE, be};
	size_t bit, nr = 0, at, off;

	for (bit = 0; bit < 256; bit++)
		if (sec[bit])
			f.n += 16 + len[bit], nr++;
	f.b = calloc(1, f.n);
	if (!f.b)
		return f;
	memcpy(f.b, be ? "2ELIFREP" : "PERFILE2", 8);
	put(&f, 8, HEADER, 8);
	put(&f, 16, ATTR + 16, 8);
	put(&f, 24, ATTRS, 8); /* attrs */
	put(&f, 32, ATTR + 16, 8);
	put(&f, 40, DATA, 8); /* data */
	put(&f, 48, 8, 8);
	put(&f, ATTRS, PERF_TYPE_SOFTWARE, 4);
	put(&f, ATTRS + 4, ATTR, 4);
	put(&f, ATTRS + ATTR, ATTRS + ATTR + 16, 8); /* ids */
	put(&f, ATTRS + ATTR + 8, 8, 8);
	put(&f, ATTRS + ATTR + 16, 1, 8);
	put(&f, DATA, QPT_RECORD_FINISHED_ROUND, 4);
	put(&f, DATA + 6, 8, 2);
	at = TABLE;
	off = TABLE + 16 * nr;
	for (bit = 0; bit < 256; bit++) {
		if (!sec[bit])
			continue;
		put(&f, at, off, 8);
		put(&f, at + 8, len[bit], 8);
		memcpy(f.b + off, sec[bit], len[bit]);
		at += 16;
		off += len[bit];
	}
	for (bit = 0; bit < 4; bit++) {
		uint64_t word = 0;
		size_t i;

		for (i = 0; i < 64; i++)
			if (sec[bit * 64 + i])
				word |= 1ull << i;
		put(&f, 72 + 8 * bit, word, 8);
	}
	return f;
}

/* The crash facts read must read back the same once encoded (in host
 * order, as qpt convert writes them). */
static void crash_roundtrip(const struct qpt_reader *r)
{
	const uint8_t *sec[256] = {NULL};
	struct qpt_crash *list = NULL, *back = NULL;
	struct qpt_reader *r2 = NULL;
	size_t len[256] = {0};
	struct file f = {NULL, 0, false};
	void *buf = NULL;
	int n, m;

	n = qpt_crash_read(r, &list);
	if (n <= 0)
		return;
	if (qpt_crash_encode(list, (size_t)n, &buf, &len[QPT_FEAT_QPT_CRASH]))
		goto out;
	sec[QPT_FEAT_QPT_CRASH] = buf;
	f = build(sec, len, false);
	if (!f.b || qpt_reader_open_mem(f.b, f.n, "again", NULL, &r2))
		fz_fail("a file of encoded crash facts does not open");
	m = qpt_crash_read(r2, &back);
	if (m != n || memcmp(list, back, (size_t)n * sizeof(*list)))
		fz_fail("crash facts do not read back as they were encoded");
out:
	qpt_reader_free(r2);
	free(f.b);
	free(buf);
	free(list);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sec[256] = {NULL};
	size_t len[256] = {0}, i = 1;
	struct qpt_reader *r = NULL;
	struct file f;

	if (!size)
		return 0;
	while (i + 3 <= size) {
		unsigned bit = data[i];
		size_t n = data[i + 1] | (size_t)data[i + 2] << 8;

		i += 3;
		if (n > size - i)
			n = size - i;
		if (!sec[bit]) {
			sec[bit] = data + i;
			len[bit] = n;
		}
		i += n;
	}
	f = build(sec, len, data[0] & 1);
	if (!f.b)
		return 0;
	if (!qpt_reader_open_mem(f.b, f.n, "fuzz", NULL, &r)) {
		fz_touch_features(r);
		crash_roundtrip(r);
	}
	qpt_reader_free(r);
	free(f.b);
	return 0;
}
