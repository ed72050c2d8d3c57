// SPDX-License-Identifier: MIT
/*
 * The CLI's writer (cli/out.c) against hand-written tables: the escaper's
 * two forms on byte strings chosen by RFC 3629's table of well-formed
 * UTF-8 (every boundary of each lead byte's continuation range), numbers,
 * padding, the JSON / key=value structure, output larger than the buffer,
 * and write errors (EPIPE from a pipe without a reader, ENOSPC from
 * /dev/full) kept and later output dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/out.h"

/* A writer into a memory file that the test reads back. */
struct sink {
	int fd;
	off_t pos; /* read so far */
	struct out w;
	char buf[2 * OUT_RESERVE_MAX];
	char got[1 << 18];
	size_t len;
};

static int setup(void **state)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->fd = memfd_create("test_out", MFD_CLOEXEC);
	if (s->fd < 0)
		return -1;
	out_init(&s->w, s->fd, false, s->buf, sizeof(s->buf));
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct sink *s = *state;

	close(s->fd);
	free(s);
	return 0;
}

/* Flush and read what the writer wrote since the last drain, as a
 * string. */
static const char *drain(struct sink *s)
{
	ssize_t n;

	assert_int_equal(out_flush(&s->w), 0);
	s->len = 0;
	while ((n = pread(s->fd, s->got + s->len, sizeof(s->got) - 1 - s->len,
			  s->pos)) > 0) {
		s->len += (size_t)n;
		s->pos += n;
	}
	s->got[s->len] = 0;
	return s->got;
}

struct esc_case {
	const char *in, *json, *text;
};

static const struct esc_case esc_cases[] = {
    {"plain", "plain", "plain"},
    {"q\"b\\", "q\\\"b\\\\", "q\"b\\"},
    {"\x01\t\n\x1f\x7f", "\\u0001\\u0009\\u000a\\u001f\\u007f",
     "\\x01\\x09\\x0a\\x1f\\x7f"},
    /* well-formed: 2, 3 and 4 bytes at the ends of their ranges */
    {"\xc2\x80\xdf\xbf", "\xc2\x80\xdf\xbf", "\xc2\x80\xdf\xbf"},
    {"\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf",
     "\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf",
     "\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"},
    {"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
     "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"},
    /* ill-formed: each byte on its own */
    {"\x80", "\\u0080", "\\x80"},		  /* stray continuation */
    {"\xc0\xaf", "\\u00c0\\u00af", "\\xc0\\xaf"}, /* overlong '/' */
    {"\xc1\xbf", "\\u00c1\\u00bf", "\\xc1\\xbf"},
    {"\xe0\x9f\xbf", "\\u00e0\\u009f\\u00bf", "\\xe0\\x9f\\xbf"},
    {"\xed\xa0\x80", "\\u00ed\\u00a0\\u0080",
     "\\xed\\xa0\\x80"}, /* surrogate */
    {"\xf0\x8f\xbf\xbf", "\\u00f0\\u008f\\u00bf\\u00bf",
     "\\xf0\\x8f\\xbf\\xbf"},
    {"\xf4\x90\x80\x80", "\\u00f4\\u0090\\u0080\\u0080",
     "\\xf4\\x90\\x80\\x80"}, /* past U+10FFFF */
    {"\xf5\xff\xfe", "\\u00f5\\u00ff\\u00fe", "\\xf5\\xff\\xfe"},
    {"a\xe2\x82", "a\\u00e2\\u0082", "a\\xe2\\x82"}, /* cut short */
    {"\xe2\x82z\xc3\xa9", "\\u00e2\\u0082z\xc3\xa9", "\\xe2\\x82z\xc3\xa9"},
    {"\xf0\x9f\x98", "\\u00f0\\u009f\\u0098", "\\xf0\\x9f\\x98"},
};

static void test_escape(void **state)
{
	struct sink *s = *state;
	size_t i;

	for (i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		const struct esc_case *c = &esc_cases[i];

		s->w.json = true;
		out_esc(&s->w, c->in, strlen(c->in));
		assert_string_equal(drain(s), c->json);
		s->w.json = false;
		out_esc(&s->w, c->in, strlen(c->in));
		assert_string_equal(drain(s), c->text);
	}
	/* a NUL inside the span is a control byte */
	s->w.json = true;
	out_esc(&s->w, "a\0b", 3);
	assert_string_equal(drain(s), "a\\u0000b");
}

static void test_measure(void **state)
{
	bool plain;

	(void)state;
	assert_int_equal(out_measure("main+x", &plain), 6);
	assert_true(plain);
	assert_int_equal(out_measure("a\"b", &plain), 3);
	assert_false(plain);
	assert_int_equal(out_measure("\xc3\xa9", &plain), 2);
	assert_false(plain);
	assert_int_equal(out_measure("", &plain), 0);
	assert_true(plain);
}

static void test_numbers(void **state)
{
	struct sink *s = *state;

	out_hex(&s->w, 0);
	out_char(&s->w, ' ');
	out_hex(&s->w, UINT64_MAX);
	out_char(&s->w, ' ');
	out_hex_pad(&s->w, 0x401000, 16);
	out_char(&s->w, '|');
	out_dec(&s->w, UINT64_MAX);
	out_char(&s->w, ' ');
	out_i64(&s->w, INT64_MIN);
	out_char(&s->w, ' ');
	out_dec_pad(&s->w, 7, 3, '0');
	out_dec_pad(&s->w, 42, 5, ' ');
	out_char(&s->w, ' ');
	out_hexbytes(&s->w, (const uint8_t *)"\x00\xab\xff", 3);
	out_char(&s->w, ' ');
	out_fixed(&s->w, 1.23456, 8, 3);
	assert_string_equal(drain(s),
			    "0 ffffffffffffffff           401000|"
			    "18446744073709551615 -9223372036854775808 "
			    "007   42 00abff    1.235");
}

/* out_fmt_dec against snprintf: every number of 1 to 20 digits (random
 * ones, fixed seed; and each power of ten and the one below), each width
 * from 0 to 24, both pads. */
static void test_dec_vs_snprintf(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, v, p10 = 1;
	char got[64], want[64];
	int i, w, k;

	(void)state;
	for (i = 0; i < 3000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = i % 20; /* digits */
		if (i % 3 == 0) {
			if (k == 0)
				p10 = 1;
			v = k % 2 ? p10 - 1 : p10;
			if (k < 19)
				p10 *= 10;
		} else {
			v = k == 19 ? x : x % 10000000000000000000ull;
			for (w = 19; w > k + 1; w--)
				v /= 10;
		}
		for (w = 0; w <= 24; w++) {
			*out_fmt_dec(got, v, w, w % 2 ? '0' : ' ') = '\0';
			snprintf(want, sizeof(want), w % 2 ? "%0*llu" : "%*llu",
				 w, (unsigned long long)v);
			assert_string_equal(got, want);
		}
	}
}

static void test_pad(void **state)
{
	struct sink *s = *state;

	out_char(&s->w, '[');
	out_pad(&s->w, "L1", 2, -6);
	out_pad(&s->w, "32K", 3, 6);
	out_pad(&s->w, "toolong", 7, 3);
	/* escaped bytes count as what is written */
	out_pad(&s->w, "\x01", 1, -6);
	out_char(&s->w, ']');
	assert_string_equal(drain(s), "[L1       32Ktoolong\\x01  ]");
}

/* The same calls in both forms. */
static void nested(struct out *w)
{
	out_begin(w);
	out_kv_u64(w, "n", 1);
	out_kv_hex(w, "a", 0x10);
	out_kv_cstr(w, "s", "x\"y");
	out_array(w, "l");
	out_elem(w);
	out_val_hex(w, 1);
	out_elem(w);
	out_begin(w);
	out_kv_bool(w, "t", true);
	out_kv_i64(w, "m", -1);
	out_end(w);
	out_array_end(w);
	out_kv_hexbytes(w, "b", (const uint8_t *)"\x01\x02", 2);
	out_array(w, "e");
	out_array_end(w);
	out_end(w);
}

static void test_structure(void **state)
{
	struct sink *s = *state;

	s->w.json = true;
	nested(&s->w);
	nested(&s->w);
	assert_string_equal(drain(s),
			    "{\"n\":1,\"a\":\"0x10\",\"s\":\"x\\\"y\","
			    "\"l\":[\"0x1\",{\"t\":true,\"m\":-1}],"
			    "\"b\":\"0102\",\"e\":[]}\n"
			    "{\"n\":1,\"a\":\"0x10\",\"s\":\"x\\\"y\","
			    "\"l\":[\"0x1\",{\"t\":true,\"m\":-1}],"
			    "\"b\":\"0102\",\"e\":[]}\n");
	s->w.json = false;
	out_lit(&s->w, "HEAD");
	nested(&s->w);
	assert_string_equal(drain(s), "HEAD n=1 a=0x10 s=x\"y "
				      "l=[0x1,{t=true,m=-1}] b=0102 e=[]\n");
}

/* Output far larger than the buffer, in small and large pieces. */
static void test_large(void **state)
{
	struct sink *s = *state;
	static char big[100000];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	out_lit(&s->w, "<");
	out_raw(&s->w, big, sizeof(big));
	out_esc(&s->w, big, sizeof(big));
	for (i = 0; i < 1000; i++)
		out_hex_pad(&s->w, i, 16);
	drain(s);
	assert_int_equal(s->len, 1 + 2 * sizeof(big) + 16000);
	assert_memory_equal(s->got + 1, big, sizeof(big));
	assert_memory_equal(s->got + 1 + sizeof(big), big, sizeof(big));
	assert_memory_equal(s->got + s->len - 16, "             3e7", 16);
}

/* A pipe without a reader: EPIPE, kept; later output is dropped. */
static void test_epipe(void **state)
{
	struct out w;
	char buf[2 * OUT_RESERVE_MAX];
	int fds[2], i;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	out_init(&w, fds[1], false, buf, sizeof(buf));
	for (i = 0; i < 10; i++)
		out_lit(&w, "0123456789abcdef0123456789abcdef0123456789");
	assert_int_equal(out_flush(&w), -EPIPE);
	out_lit(&w, "more");
	assert_int_equal(out_flush(&w), -EPIPE);
	assert_int_equal(w.len, 0);
	close(fds[1]);
}

static void test_enospc(void **state)
{
	struct out w;
	char buf[2 * OUT_RESERVE_MAX];
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	out_init(&w, fd, true, buf, sizeof(buf));
	out_begin(&w);
	out_kv_u64(&w, "x", 1);
	out_end(&w);
	assert_int_equal(out_flush(&w), -ENOSPC);
	assert_int_equal(w.err, -ENOSPC);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_escape, setup, teardown),
	    cmocka_unit_test(test_measure),
	    cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
	    cmocka_unit_test(test_dec_vs_snprintf),
	    cmocka_unit_test_setup_teardown(test_pad, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_structure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_large, setup, teardown),
	    cmocka_unit_test(test_epipe),
	    cmocka_unit_test(test_enospc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
