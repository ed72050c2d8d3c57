// SPDX-License-Identifier: MIT
/*
 * The crash facts feature (include/qpt/crash.h): one encoder, one bounded
 * parser in the file's byte order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"
#include "qpt/crash.h"
#include "qpt/reader.h"

#define HEAD 8 /* version, nr */

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void encode_one(const struct qpt_crash *c, uint8_t *p)
{
	uint32_t i;

	put32(p, c->kind);
	put32(p + 4, (uint32_t)QPT_CRASH_ENTRY_SIZE(c->nr_regs));
	put32(p + 8, (uint32_t)c->signo);
	put32(p + 12, (uint32_t)c->code);
	put32(p + 16, (uint32_t)c->err);
	put32(p + 20, (uint32_t)c->pid);
	put32(p + 24, (uint32_t)c->tid);
	put32(p + 28, c->nr_regs);
	put64(p + 32, c->addr);
	put64(p + 40, c->ip);
	put64(p + 48, c->time);
	memcpy(p + 56, c->insn, 16);
	p[72] = c->insn_len > 16 ? 16 : c->insn_len;
	memset(p + 73, 0, 7);
	for (i = 0; i < c->nr_regs; i++)
		put64(p + 80 + 8 * i, c->regs[i]);
}

int qpt_crash_encode(const struct qpt_crash *c, size_t nr, void **buf,
		     size_t *len)
{
	size_t i, total = HEAD;
	uint8_t *p;

	*buf = NULL;
	*len = 0;
	for (i = 0; i < nr; i++) {
		if (c[i].nr_regs > QPT_CRASH_MAX_REGS)
			return -QPT_E_INVAL;
		total += QPT_CRASH_ENTRY_SIZE(c[i].nr_regs);
	}
	if (nr > UINT32_MAX)
		return -QPT_E_INVAL;
	p = calloc(1, total);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*len = total;
	put32(p, QPT_CRASH_VERSION);
	put32(p + 4, (uint32_t)nr);
	p += HEAD;
	for (i = 0; i < nr; i++) {
		encode_one(&c[i], p);
		p += QPT_CRASH_ENTRY_SIZE(c[i].nr_regs);
	}
	return 0;
}

struct cur {
	const uint8_t *p;
	bool swap;
};

static uint32_t get32(const struct cur *c, size_t off)
{
	uint32_t v;

	memcpy(&v, c->p + off, 4);
	return c->swap ? qpt_bswap32(v) : v;
}

static uint64_t get64(const struct cur *c, size_t off)
{
	uint64_t v;

	memcpy(&v, c->p + off, 8);
	return c->swap ? qpt_bswap64(v) : v;
}

/* One entry at @c (@left bytes to the end); its size or -QPT_E_FORMAT. */
static int64_t parse_one(const struct cur *c, size_t left,
			 struct qpt_crash *e)
{
	uint32_t size, i;

	if (left < QPT_CRASH_ENTRY_SIZE(0))
		return -QPT_E_FORMAT;
	size = get32(c, 4);
	memset(e, 0, sizeof(*e));
	e->nr_regs = get32(c, 28);
	if (size > left || e->nr_regs > QPT_CRASH_MAX_REGS ||
	    size < QPT_CRASH_ENTRY_SIZE(e->nr_regs))
		return -QPT_E_FORMAT;
	e->kind = get32(c, 0);
	e->signo = (int32_t)get32(c, 8);
	e->code = (int32_t)get32(c, 12);
	e->err = (int32_t)get32(c, 16);
	e->pid = (int32_t)get32(c, 20);
	e->tid = (int32_t)get32(c, 24);
	e->addr = get64(c, 32);
	e->ip = get64(c, 40);
	e->time = get64(c, 48);
	memcpy(e->insn, c->p + 56, 16);
	e->insn_len = c->p[72] > 16 ? 16 : c->p[72];
	for (i = 0; i < e->nr_regs; i++)
		e->regs[i] = get64(c, 80 + 8 * (size_t)i);
	return size;
}

int qpt_crash_read(const struct qpt_reader *reader, struct qpt_crash **list)
{
	const void *data;
	struct qpt_crash *out;
	struct cur c;
	size_t size, left, i;
	uint32_t nr;
	int64_t n;

	*list = NULL;
	if (qpt_reader_feature_raw(reader, (enum qpt_feature)QPT_FEAT_QPT_CRASH,
				   &data, &size) < 0)
		return 0;
	c.p = data;
	c.swap = qpt_reader_is_swapped(reader);
	if (size < HEAD || get32(&c, 0) != QPT_CRASH_VERSION)
		return -QPT_E_FORMAT;
	nr = get32(&c, 4);
	/* every entry takes at least its fixed part: bounds the allocation */
	if (nr > (size - HEAD) / QPT_CRASH_ENTRY_SIZE(0))
		return -QPT_E_FORMAT;
	if (!nr)
		return 0;
	out = calloc(nr, sizeof(*out));
	if (!out)
		return -ENOMEM;
	c.p += HEAD;
	left = size - HEAD;
	for (i = 0; i < nr; i++) {
		n = parse_one(&c, left, &out[i]);
		if (n < 0) {
			free(out);
			return (int)n;
		}
		c.p += n;
		left -= (size_t)n;
	}
	*list = out;
	return (int)nr;
}
