// SPDX-License-Identifier: MIT
/*
 * A libFuzzer custom mutator for perf.data inputs (file and pipe mode,
 * either byte order) that keeps the record framing valid, so that most
 * mutants reach the record handlers instead of failing at a header: it
 * mutates one record's payload (an AUXTRACE record's trace bytes too) and
 * fixes its size, or duplicates, drops, swaps or retypes whole records;
 * the file header's data size and the feature section offsets after the
 * data follow.  One mutant in four, and any input that does not parse as
 * perf.data, gets libFuzzer's own byte-level mutation instead.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/common.h"
#include "qpt/perf_format.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

#define MAX_RECS 4096
#define HEADER 104 /* file mode's header; pipe mode's is 16 */

struct rec {
	size_t at, len; /* the unit: header, payload, AUXTRACE data */
};

struct perf {
	uint8_t *b;
	size_t size;
	bool be, pipe;
	size_t begin, end; /* the records */
	struct rec r[MAX_RECS];
	size_t nr;
};

static uint64_t rd(const struct perf *p, size_t at, unsigned w)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < w; i++)
		v |= (uint64_t)p->b[at + i]
		     << (p->be ? 8 * (w - 1 - i) : 8 * i);
	return v;
}

static void wr(const struct perf *p, uint8_t *b, uint64_t v, unsigned w)
{
	unsigned i;

	for (i = 0; i < w; i++)
		b[i] = (uint8_t)(v >> (p->be ? 8 * (w - 1 - i) : 8 * i));
}

/* The records of @p, up to the first that does not frame. */
static bool parse(struct perf *p)
{
	size_t at;

	if (p->size < 16)
		return false;
	if (!memcmp(p->b, "PERFILE2", 8))
		p->be = false;
	else if (!memcmp(p->b, "2ELIFREP", 8))
		p->be = true;
	else
		return false;
	p->pipe = rd(p, 8, 8) == 16;
	if (p->pipe) {
		p->begin = 16;
		p->end = p->size;
	} else {
		uint64_t off = rd(p, 40, 8), sz = rd(p, 48, 8);

		if (p->size < HEADER || off > p->size || sz > p->size - off)
			return false;
		p->begin = (size_t)off;
		p->end = (size_t)(off + sz);
	}
	p->nr = 0;
	for (at = p->begin; at + 8 <= p->end && p->nr < MAX_RECS;) {
		size_t len = (size_t)rd(p, at + 6, 2);

		if (len < 8 || len > p->end - at)
			break;
		if (rd(p, at, 4) == QPT_RECORD_AUXTRACE && len >= 16) {
			uint64_t aux = rd(p, at + 8, 8);

			if (aux > p->end - at - len)
				break;
			len += (size_t)aux;
		}
		p->r[p->nr].at = at;
		p->r[p->nr++].len = len;
		at += len;
	}
	return p->nr > 0;
}

static uint32_t next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Record @i's payload mutated (past its 8-byte header; an AUXTRACE
 * record's trace bytes), its size fields set: into @out, its length. */
static size_t mutate_one(const struct perf *p, size_t i, uint8_t *out,
			 size_t room)
{
	const struct rec *r = &p->r[i];
	bool aux = rd(p, r->at, 4) == QPT_RECORD_AUXTRACE && r->len >= 48;
	size_t head = aux ? (size_t)rd(p, r->at + 6, 2) : 8, n;

	if (head > r->len || room < r->len)
		return 0;
	memcpy(out, p->b + r->at, r->len);
	n = LLVMFuzzerMutate(out + head, r->len - head, room - head);
	if (aux) {
		wr(p, out + 8, n, 8);
		return head + n;
	}
	n = (n + 7) & ~(size_t)7; /* records stay 8-aligned */
	if (8 + n > 0xfff8 || 8 + n > room)
		n = r->len - 8;
	wr(p, out + 6, 8 + n, 2);
	return 8 + n;
}

/* Record @i's unit (into @out, its length), changed by @op. */
static size_t unit(const struct perf *p, size_t i, unsigned op, uint32_t *x,
		   uint8_t *out, size_t room)
{
	static const uint32_t types[] = {
	    1,	2,  3,	4,  7,	9,  10, 11, 14, 15, 16, 67, 68,
	    69, 70, 71, 72, 73, 74, 75, 77, 79, 80, 81, 82,
	};
	const struct rec *r = &p->r[i];

	if (op == 0)
		return mutate_one(p, i, out, room);
	if (room < r->len)
		return 0;
	memcpy(out, p->b + r->at, r->len);
	if (op == 1) /* another type, same bytes */
		wr(p, out, types[next(x) % (sizeof(types) / 4)], 4);
	return r->len;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	static struct perf p;
	uint32_t x = seed | 1;
	size_t i, pick, other, n, len, delta;
	unsigned op;
	uint8_t *out;

	p.b = data;
	p.size = size;
	if (next(&x) % 4 == 0 || !parse(&p))
		return LLVMFuzzerMutate(data, size, max_size);
	out = malloc(max_size);
	if (!out)
		return LLVMFuzzerMutate(data, size, max_size);
	/* 0: mutate a payload, 1: retype, 2: duplicate, 3: drop, 4: swap */
	op = next(&x) % 5;
	pick = next(&x) % p.nr;
	other = next(&x) % p.nr;
	memcpy(out, data, p.begin);
	n = p.begin;
	for (i = 0; i < p.nr; i++) {
		size_t j = op == 4 && i == pick	   ? other
			   : op == 4 && i == other ? pick
						   : i;

		if (op == 3 && i == pick)
			continue;
		len = unit(&p, j, i == pick && op < 2 ? op : 2, &x, out + n,
			   max_size - n);
		n += len;
		if (op == 2 && i == pick)
			n += unit(&p, j, 2, &x, out + n, max_size - n);
	}
	/* what follows the records (features, a cut tail) moves with them */
	len = size - p.r[p.nr - 1].at - p.r[p.nr - 1].len;
	if (len > max_size - n)
		len = max_size - n;
	memcpy(out + n, data + p.r[p.nr - 1].at + p.r[p.nr - 1].len, len);
	delta = n - (p.r[p.nr - 1].at + p.r[p.nr - 1].len);
	if (!p.pipe) {
		size_t feats = 0, t;

		wr(&p, out + 48, rd(&p, 48, 8) + delta, 8);
		for (i = 0; i < 4; i++)
			feats +=
			    (size_t)__builtin_popcountll(rd(&p, 72 + 8 * i, 8));
		/* the section table just past the data: its offsets too */
		for (t = 0; t < feats; t++) {
			size_t at = p.end + delta + 16 * t;

			if (p.end + 16 * t + 16 > size || at + 16 > n + len)
				break;
			wr(&p, out + at, rd(&p, p.end + 16 * t, 8) + delta, 8);
		}
	}
	n += len;
	memcpy(data, out, n);
	free(out);
	return n;
}
