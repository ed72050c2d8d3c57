/* SPDX-License-Identifier: MIT */
/*
 * Hand-built perf.data bytes for the reader tests, in either byte order.
 * Every field is written one by one as the format documents say (seeds 002
 * and 004: perf_event.h and perf.data-file-format.txt); nothing here uses
 * the reader or the writer, so the tests compare against the documents.
 */
#ifndef QPT_TEST_PERFBUILD_H
#define QPT_TEST_PERFBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct pb {
	uint8_t b[65536];
	size_t n;
	bool be; /* write big-endian */
};

static inline void pb_u8(struct pb *p, uint8_t v)
{
	p->b[p->n++] = v;
}

static inline void pb_uint(struct pb *p, uint64_t v, unsigned w)
{
	unsigned i;

	for (i = 0; i < w; i++) {
		unsigned shift = p->be ? 8 * (w - 1 - i) : 8 * i;

		p->b[p->n++] = (uint8_t)(v >> shift);
	}
}

static inline void pb_u16(struct pb *p, uint16_t v) { pb_uint(p, v, 2); }
static inline void pb_u32(struct pb *p, uint32_t v) { pb_uint(p, v, 4); }
static inline void pb_u64(struct pb *p, uint64_t v) { pb_uint(p, v, 8); }

static inline void pb_bytes(struct pb *p, const void *s, size_t n)
{
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

/* A NUL-terminated string padded with NULs to a multiple of @align. */
static inline void pb_str(struct pb *p, const char *s, size_t align)
{
	size_t n = strlen(s) + 1;

	pb_bytes(p, s, n);
	while (n % align) {
		pb_u8(p, 0);
		n++;
	}
}

static inline void pb_set_u64(struct pb *p, size_t at, uint64_t v)
{
	size_t n = p->n;

	p->n = at;
	pb_u64(p, v);
	p->n = n;
}

static inline void pb_set_u16(struct pb *p, size_t at, uint16_t v)
{
	size_t n = p->n;

	p->n = at;
	pb_u16(p, v);
	p->n = n;
}

/* Start a record; pb_end() fills in its size. */
static inline size_t pb_rec(struct pb *p, uint32_t type, uint16_t misc)
{
	size_t at = p->n;

	pb_u32(p, type);
	pb_u16(p, misc);
	pb_u16(p, 0);
	return at;
}

static inline void pb_end(struct pb *p, size_t at)
{
	pb_set_u16(p, at + 6, (uint16_t)(p->n - at));
}

static inline uint8_t pb_revbyte(uint8_t b)
{
	uint8_t r = 0;
	int i;

	for (i = 0; i < 8; i++)
		if (b & (1u << i))
			r |= (uint8_t)(0x80u >> i);
	return r;
}

/*
 * The attr bitfield word: bit i is flag i on a little-endian host; on a
 * big-endian one the bitfields fill each byte from its top bit, which is
 * what perf undoes by reversing the bits of each byte.
 */
static inline void pb_attr_flags(struct pb *p, uint64_t le_bits)
{
	int i;

	for (i = 0; i < 8; i++) {
		uint8_t b = (uint8_t)(le_bits >> (8 * i));

		pb_u8(p, p->be ? pb_revbyte(b) : b);
	}
}

/* struct perf_branch_entry flags: fields from the low bit on little-endian
 * hosts, from the top bit on big-endian ones. */
static inline uint64_t pb_branch_flags(const struct pb *p, unsigned mispred,
				       unsigned predicted, unsigned cycles,
				       unsigned type)
{
	static const unsigned pos[] = {0, 1, 4, 20}, w[] = {1, 1, 16, 4};
	const unsigned v[] = {mispred, predicted, cycles, type};
	uint64_t out = 0;
	int i;

	for (i = 0; i < 4; i++)
		out |= (uint64_t)v[i]
		       << (p->be ? 64 - pos[i] - w[i] : pos[i]);
	return out;
}

#endif
