/* SPDX-License-Identifier: MIT */
/*
 * The qpt command's one output layer: a buffered writer over a file
 * descriptor that every subcommand prints through, in one of two forms.
 *
 * JSON Lines: out_begin/out_end make an object (a line at the top level),
 * out_key names a member, out_array/out_array_end and out_elem make
 * arrays, and the out_val_* functions write values: strings quoted and
 * escaped, addresses as "0x..." strings (JSON numbers lose 64-bit values),
 * other integers as numbers.  Text: the same calls write " key=value"
 * members on one line, nested objects as {k=v,...}, arrays as [a,b].
 * Free-form text (perf's layouts) uses the raw, number and padding calls.
 *
 * Strings are escaped by one rule (out_esc), so that any input bytes give
 * one valid line:
 *  - JSON: '"' and '\\' get a backslash, bytes below 0x20 and 0x7f become
 *    \u00XX, valid UTF-8 is kept as it is, and each byte of an invalid
 *    UTF-8 sequence (a stray continuation byte, an overlong form, a
 *    surrogate, a code point above U+10FFFF, a cut sequence) becomes
 *    \u00XX: the byte value as a code point, as if it were Latin-1.
 *  - Text: bytes below 0x20, 0x7f and the bytes of invalid UTF-8 become
 *    \xNN; everything else (valid UTF-8, quotes, backslashes) is kept.
 *
 * Errors: the first failed write is kept as -errno in err (EPIPE, ENOSPC,
 * EIO...); output after it is dropped.  Nothing here allocates.
 */
#ifndef QPT_CLI_OUT_H
#define QPT_CLI_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most out_reserve may be asked for. */
#define OUT_RESERVE_MAX 256
/* Keys are the program's own names, at most this long (cut beyond). */
#define OUT_KEY_MAX 64
/* Nesting of objects and arrays that out_key/out_elem keep track of. */
#define OUT_DEPTH 32

struct out {
	char *buf;
	size_t len, cap; /* cap >= 2 * OUT_RESERVE_MAX */
	int fd;
	int err; /* the first write error (-errno), or 0 */
	unsigned long flushes; /* buffers written out so far */
	bool json;
	/* optional: where the buffer goes instead of @fd (a memory buffer);
	 * returns 0 or -errno, kept in err */
	int (*spill)(void *arg, const char *p, size_t n);
	void *spill_arg;
	unsigned depth;	  /* open objects and arrays */
	uint32_t members; /* bit d: depth d has a member (a comma is due) */
};

/* Two lower-case hex digits for each byte value. */
extern const char out_hex2[256][2];

/*
 * Write to @fd through @buf (@cap bytes, at least 2 * OUT_RESERVE_MAX,
 * borrowed until the last out_flush), as JSON Lines when @json.
 */
void out_init(struct out *o, int fd, bool json, char *buf, size_t cap);
/* Write out what is buffered; returns o->err. */
int out_flush(struct out *o);

/* Bytes as they are; any length. */
void out_raw_slow(struct out *o, const char *s, size_t n);
static inline void out_raw(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->len) {
		out_raw_slow(o, s, n);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* A string literal as it is. */
#define out_lit(o, s) out_raw((o), "" s, sizeof(s) - 1)

static inline void out_cstr(struct out *o, const char *s)
{
	out_raw(o, s, strlen(s));
}

/*
 * Room for @n (<= OUT_RESERVE_MAX) bytes at the end of the buffer: fill
 * them through the pointer, then out_commit the end of what was written.
 */
static inline char *out_reserve(struct out *o, size_t n)
{
	if (n > o->cap - o->len)
		out_flush(o);
	return o->buf + o->len;
}

static inline void out_commit(struct out *o, char *end)
{
	o->len = (size_t)(end - o->buf);
}

static inline void out_char(struct out *o, char c)
{
	*out_reserve(o, 1) = c;
	o->len++;
}

/* Formatting into reserved room: each returns the end of what it wrote. */
/* Lower-case hex without leading zeros (at most 16 bytes). */
static inline char *out_fmt_hex(char *p, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1, i;

	/* two digits at a time from the right */
	for (i = n; i >= 2; i -= 2, v >>= 8)
		memcpy(p + i - 2, out_hex2[v & 0xff], 2);
	if (i)
		p[0] = out_hex2[v & 15][1];
	return p + n;
}

/* The same right-aligned in @width (<= 32) spaces. */
char *out_fmt_hex_pad(char *p, uint64_t v, int width);
/* Decimal right-aligned in @width (<= 32), padded with @pad (' ', '0'). */
char *out_fmt_dec(char *p, uint64_t v, int width, char pad);

/* Numbers. */
static inline void out_hex(struct out *o, uint64_t v)
{
	out_commit(o, out_fmt_hex(out_reserve(o, 16), v));
}

static inline void out_hex_pad(struct out *o, uint64_t v, int width)
{
	out_commit(o, out_fmt_hex_pad(out_reserve(o, 48), v, width));
}

static inline void out_dec(struct out *o, uint64_t v)
{
	out_commit(o, out_fmt_dec(out_reserve(o, 24), v, 0, ' '));
}

static inline void out_dec_pad(struct out *o, uint64_t v, int width, char pad)
{
	out_commit(o, out_fmt_dec(out_reserve(o, 56), v, width, pad));
}

static inline void out_i64(struct out *o, int64_t v)
{
	char *p = out_reserve(o, 24);

	if (v < 0)
		*p++ = '-';
	out_commit(o,
		   out_fmt_dec(p, v < 0 ? -(uint64_t)v : (uint64_t)v, 0, ' '));
}

/* @n bytes as two hex digits each. */
void out_hexbytes(struct out *o, const uint8_t *p, size_t n);
/* @v with @prec (<= 9) decimals, right-aligned in @width (<= 32). */
void out_fixed(struct out *o, double v, int width, int prec);

/* Text with padding: @n bytes of @s escaped (out_esc), right-aligned in
 * @width columns, or left-aligned in -@width when @width is negative. */
void out_pad(struct out *o, const char *s, size_t n, int width);

/*
 * The @n bytes at @s escaped by the writer's form (see the top), without
 * quotes; a NUL byte is escaped like the other control bytes.
 */
void out_esc(struct out *o, const char *s, size_t n);
/* The length of @s and, in *@plain, whether out_esc keeps it as it is in
 * both forms (printable ASCII but '"' and '\\'). */
size_t out_measure(const char *s, bool *plain);

/*
 * Structure (JSON Lines; " key=value" text).  The calls an object of
 * qpt decode makes for each instruction are inline.
 */

/* A member follows at this depth: whether one came before (a comma is
 * due); marks that one has. */
static inline bool out_next_member(struct out *o)
{
	uint32_t bit =
	    1u << (o->depth < OUT_DEPTH ? o->depth - 1 : OUT_DEPTH - 1);
	bool more = o->members & bit;

	o->members |= bit;
	return more;
}

static inline void out_begin(struct out *o)
{
	if (o->json || o->depth)
		out_char(o, '{');
	if (o->depth < OUT_DEPTH)
		o->members &= ~(1u << o->depth);
	o->depth++;
}

/* Close the object; a top-level one ends its line. */
static inline void out_end(struct out *o)
{
	char *p = out_reserve(o, 2);

	if (o->depth)
		o->depth--;
	if (o->json || o->depth)
		*p++ = '}';
	if (!o->depth)
		*p++ = '\n';
	out_commit(o, p);
}

/* Name the next member of the open object: @n bytes at @key. */
static inline void out_key_n(struct out *o, const char *key, size_t n)
{
	bool more = o->depth && out_next_member(o);
	char *p;

	if (n > OUT_KEY_MAX)
		n = OUT_KEY_MAX;
	p = out_reserve(o, OUT_KEY_MAX + 4);
	if (o->json) {
		if (more)
			*p++ = ',';
		*p++ = '"';
		memcpy(p, key, n);
		p += n;
		*p++ = '"';
		*p++ = ':';
	} else {
		if (o->depth <= 1)
			*p++ = ' ';
		else if (more)
			*p++ = ',';
		memcpy(p, key, n);
		p += n;
		*p++ = '=';
	}
	out_commit(o, p);
}

static inline void out_key(struct out *o, const char *key)
{
	out_key_n(o, key, strlen(key)); /* a constant for a literal */
}

/* Before each element of the open array. */
static inline void out_elem(struct out *o)
{
	if (o->depth && out_next_member(o))
		out_char(o, ',');
}

/* out_key(@key) and an array; out_array_end closes it. */
void out_array(struct out *o, const char *key);
void out_array_end(struct out *o);

/* Values. */
/* A string, escaped; quoted in JSON. */
void out_val_str(struct out *o, const char *s, size_t n);
void out_val_bool(struct out *o, bool v);
/* Bytes as hex digits, a string in JSON. */
void out_val_hexbytes(struct out *o, const uint8_t *p, size_t n);
/* A source line, FILE:LINE (FILE escaped), a string in JSON; where @file
 * is NULL: null in JSON, nothing in text. */
void out_val_srcline(struct out *o, const char *file, unsigned line);

/* "0x..." in JSON, 0x... in text. */
static inline void out_val_hex(struct out *o, uint64_t v)
{
	char *p = out_reserve(o, 20);

	if (o->json)
		*p++ = '"';
	*p++ = '0';
	*p++ = 'x';
	p = out_fmt_hex(p, v);
	if (o->json)
		*p++ = '"';
	out_commit(o, p);
}

static inline void out_val_u64(struct out *o, uint64_t v)
{
	out_dec(o, v);
}

static inline void out_val_i64(struct out *o, int64_t v)
{
	out_i64(o, v);
}

/* A member: out_key and the value. */
static inline void out_kv_str(struct out *o, const char *key, const char *s,
			      size_t n)
{
	out_key(o, key);
	out_val_str(o, s, n);
}

static inline void out_kv_cstr(struct out *o, const char *key, const char *s)
{
	out_kv_str(o, key, s, strlen(s));
}

static inline void out_kv_hex(struct out *o, const char *key, uint64_t v)
{
	out_key(o, key);
	out_val_hex(o, v);
}

static inline void out_kv_u64(struct out *o, const char *key, uint64_t v)
{
	out_key(o, key);
	out_dec(o, v);
}

static inline void out_kv_i64(struct out *o, const char *key, int64_t v)
{
	out_key(o, key);
	out_i64(o, v);
}

static inline void out_kv_bool(struct out *o, const char *key, bool v)
{
	out_key(o, key);
	out_val_bool(o, v);
}

static inline void out_kv_hexbytes(struct out *o, const char *key,
				   const uint8_t *p, size_t n)
{
	out_key(o, key);
	out_val_hexbytes(o, p, n);
}

#endif
