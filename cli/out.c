// SPDX-License-Identifier: MIT
/*
 * The qpt command's output layer: buffered writes to a file descriptor,
 * numbers, the one string escaper and the JSON Lines / key=value structure
 * (see out.h for the rules).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/out.h"

/* clang-format off */
#define H(x) { "0123456789abcdef"[(x) >> 4], "0123456789abcdef"[(x) & 15] }
#define H4(x) H(x), H((x) + 1), H((x) + 2), H((x) + 3)
#define H16(x) H4(x), H4((x) + 4), H4((x) + 8), H4((x) + 12)
#define H64(x) H16(x), H16((x) + 16), H16((x) + 32), H16((x) + 48)
const char out_hex2[256][2] = { H64(0), H64(64), H64(128), H64(192) };
/* clang-format on */

void out_init(struct out *o, int fd, bool json, char *buf, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->json = json;
	o->buf = buf;
	o->cap = cap;
}

static void write_all(struct out *o, const char *p, size_t n)
{
	if (o->spill) {
		if (n && !o->err)
			o->err = o->spill(o->spill_arg, p, n);
		return;
	}
	while (n && !o->err) {
		ssize_t k = write(o->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			o->err = k < 0 ? -errno : -EIO;
			break;
		}
		p += k;
		n -= (size_t)k;
	}
}

int out_flush(struct out *o)
{
	write_all(o, o->buf, o->len);
	o->len = 0;
	o->flushes++;
	return o->err;
}

void out_raw_slow(struct out *o, const char *s, size_t n)
{
	out_flush(o);
	if (n <= o->cap) {
		memcpy(o->buf, s, n);
		o->len = n;
	} else {
		write_all(o, s, n);
	}
}

char *out_fmt_hex_pad(char *p, uint64_t v, int width)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;

	if (width > 32)
		width = 32;
	if (width > n) {
		memset(p, ' ', (size_t)(width - n));
		p += width - n;
	}
	return out_fmt_hex(p, v);
}

char *out_fmt_dec(char *p, uint64_t v, int width, char pad)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (width > 32)
		width = 32;
	for (; n < width; width--)
		*p++ = pad;
	while (n)
		*p++ = tmp[--n];
	return p;
}

void out_hexbytes(struct out *o, const uint8_t *p, size_t n)
{
	while (n) {
		size_t k = n < OUT_RESERVE_MAX / 2 ? n : OUT_RESERVE_MAX / 2, i;
		char *q = out_reserve(o, 2 * k);

		for (i = 0; i < k; i++, q += 2)
			memcpy(q, out_hex2[p[i]], 2);
		out_commit(o, q);
		p += k;
		n -= k;
	}
}

void out_fixed(struct out *o, double v, int width, int prec)
{
	char *p = out_reserve(o, OUT_RESERVE_MAX);
	int n;

	width = width > 32 ? 32 : width;
	prec = prec > 9 ? 9 : prec;
	n = snprintf(p, OUT_RESERVE_MAX, "%*.*f", width, prec, v);
	if (n > 0)
		out_commit(o,
			   p + (n < OUT_RESERVE_MAX ? n : OUT_RESERVE_MAX - 1));
}

/* The length of the valid UTF-8 sequence that starts @s (@n > 0 bytes
 * left, s[0] >= 0x80), or 0 when it is not one (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80; /* not overlong */
		hi = s[0] == 0xed ? 0x9f : 0xbf; /* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80; /* not overlong */
		hi = s[0] == 0xf4 ? 0x8f : 0xbf; /* <= U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* The escaped form of the byte @c, which out_esc does not keep. */
static void esc_byte(struct out *o, unsigned char c)
{
	char *p = out_reserve(o, 6);

	if (o->json && (c == '"' || c == '\\')) {
		p[0] = '\\';
		p[1] = (char)c;
		out_commit(o, p + 2);
	} else if (o->json) {
		memcpy(p, "\\u00", 4);
		memcpy(p + 4, out_hex2[c], 2);
		out_commit(o, p + 6);
	} else {
		memcpy(p, "\\x", 2);
		memcpy(p + 2, out_hex2[c], 2);
		out_commit(o, p + 4);
	}
}

/* Escape @n bytes at @s (see out.h); write them when @o is not NULL.
 * Returns the size of the escaped form. */
static size_t esc(struct out *o, bool json, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	const unsigned char *run = p;
	size_t size = 0;

	while (p < end) {
		unsigned char c = *p;
		size_t k;

		if (c >= 0x20 && c < 0x7f &&
		    (!json || (c != '"' && c != '\\'))) {
			p++;
			continue;
		}
		if (c >= 0x80 && (k = utf8_len(p, (size_t)(end - p)))) {
			p += k;
			continue;
		}
		size += (size_t)(p - run) +
			(json ? (c == '"' || c == '\\' ? 2 : 6) : 4);
		if (o) {
			out_raw(o, (const char *)run, (size_t)(p - run));
			esc_byte(o, c);
		}
		run = ++p;
	}
	if (o)
		out_raw(o, (const char *)run, (size_t)(p - run));
	return size + (size_t)(p - run);
}

void out_esc(struct out *o, const char *s, size_t n)
{
	esc(o, o->json, s, n);
}

size_t out_measure(const char *s, bool *plain)
{
	const unsigned char *p = (const unsigned char *)s;
	bool ok = true;

	for (; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			ok = false;
	*plain = ok;
	return (size_t)(p - (const unsigned char *)s);
}

void out_pad(struct out *o, const char *s, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -(int64_t)width : width);
	size_t size = esc(NULL, o->json, s, n);
	size_t fill = w > size ? w - size : 0;

	if (width < 0)
		out_esc(o, s, n);
	for (; fill; fill--)
		out_char(o, ' ');
	if (width >= 0)
		out_esc(o, s, n);
}

/* Structure. */

void out_array(struct out *o, const char *key)
{
	out_key(o, key);
	out_char(o, '[');
	if (o->depth < OUT_DEPTH)
		o->members &= ~(1u << o->depth);
	o->depth++;
}

void out_array_end(struct out *o)
{
	if (o->depth)
		o->depth--;
	out_char(o, ']');
}

/* Values. */

void out_val_str(struct out *o, const char *s, size_t n)
{
	if (o->json)
		out_char(o, '"');
	out_esc(o, s, n);
	if (o->json)
		out_char(o, '"');
}

void out_val_bool(struct out *o, bool v)
{
	if (v)
		out_lit(o, "true");
	else
		out_lit(o, "false");
}

void out_val_srcline(struct out *o, const char *file, unsigned line)
{
	if (!file) {
		if (o->json)
			out_lit(o, "null");
		return;
	}
	if (o->json)
		out_char(o, '"');
	out_esc(o, file, strlen(file));
	out_char(o, ':');
	out_dec(o, line);
	if (o->json)
		out_char(o, '"');
}

void out_val_hexbytes(struct out *o, const uint8_t *p, size_t n)
{
	if (o->json)
		out_char(o, '"');
	out_hexbytes(o, p, n);
	if (o->json)
		out_char(o, '"');
}
