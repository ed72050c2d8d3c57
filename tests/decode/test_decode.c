// SPDX-License-Identifier: MIT
/*
 * The decoder on traces written by libipt's packet encoder over a small
 * hand-assembled code image: instructions, branches (jcc, call, ret,
 * async, trace begin/end via syscall) and events (enabled, disabled,
 * overflow) against hand-written expectations; one decoder for several
 * runs; and the API's contracts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "pt_packets.h"

#include "qpt/decode.h"

/* 0x1000: xor eax,eax; jz 0x1008; nop x4; call 0x1010; nop; syscall; ret */
static const uint8_t code[] = {
	0x31, 0xc0, 0x74, 0x04, 0x90, 0x90, 0x90, 0x90,
	0xe8, 0x03, 0x00, 0x00, 0x00, 0x90, 0x0f, 0x05, 0xc3,
};

struct fixture {
	char path[64];
	uint8_t trace[512];
	size_t len;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct pt_encoder *enc;
	int fd;

	assert_non_null(fx);
	snprintf(fx->path, sizeof(fx->path), "/tmp/qpt-test-code-XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, code, sizeof(code)), sizeof(code));
	close(fd);

	enc = pt_begin(fx->trace, sizeof(fx->trace), 0x1000); /* enabled */
	pt_put(enc, ppt_tnt_8, 1);	/* jz taken */
	pt_put(enc, ppt_tip, 0x100d);	/* ret */
	pt_put(enc, ppt_tip_pgd, 0);	/* syscall leaves */
	pt_put(enc, ppt_tip_pge, 0x1004); /* back at 0x1004 */
	pt_put(enc, ppt_fup, 0x1010);	/* interrupted at 0x1010 */
	pt_put(enc, ppt_tip, 0x1000);	/* ... to 0x1000 */
	pt_put(enc, ppt_tnt_8, 0);	/* jz not taken */
	pt_put(enc, ppt_tip, 0x100d);	/* ret */
	pt_put(enc, ppt_tip_pgd, 0);	/* syscall leaves */
	pt_put(enc, ppt_ovf, 0);
	pt_put(enc, ppt_fup, 0x1004);	/* resumes at 0x1004 */
	pt_put(enc, ppt_tip, 0x100d);	/* ret */
	pt_put(enc, ppt_tip_pgd, 0);	/* syscall leaves */
	fx->len = pt_end(enc);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->path);
	free(fx);
	return 0;
}

struct log {
	char text[4096];
	size_t len;
	int stop_after; /* return -1234 after this many items; 0: never */
	int seen;
};

static int collect(const struct qpt_item *it, void *ctx)
{
	struct log *l = ctx;
	int n = 0;
	char *p = l->text + l->len;
	size_t room = sizeof(l->text) - l->len;

	switch (it->type) {
	case QPT_ITEM_INSN:
		n = snprintf(p, room, "i%llx ", (unsigned long long)it->ip);
		break;
	case QPT_ITEM_BRANCH:
		n = snprintf(p, room, "%s%s%s:%llx>%llx ",
			     qpt_branch_kind_name(it->kind),
			     it->via != QPT_BR_NR ? "/" : "",
			     it->via != QPT_BR_NR ?
			     qpt_branch_kind_name(it->via) : "",
			     (unsigned long long)it->ip,
			     (unsigned long long)it->to);
		break;
	case QPT_ITEM_EVENT:
		if (it->kind == QPT_EV_EXEC_MODE || it->kind == QPT_EV_POWER)
			break;
		n = snprintf(p, room, "[%s%s%llx] ",
			     qpt_event_kind_name(it->kind),
			     it->flags & QPT_ITEM_IP_VALID ? " " : "",
			     (unsigned long long)(it->flags & QPT_ITEM_IP_VALID ?
						  it->ip : 0));
		break;
	}
	assert_true(n >= 0 && (size_t)n < room);
	l->len += (size_t)n;
	if (l->stop_after && ++l->seen == l->stop_after)
		return -1234;
	return 0;
}

static void run(struct fixture *fx, unsigned want, struct log *l)
{
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;

	qpt_decoder_opts_init(&opts);
	opts.want = want;
	assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, fx->path, 0x1000), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, fx->trace, fx->len,
					     collect, l), 0);
	qpt_decoder_free(dec);
}

static void test_insns(void **state)
{
	struct log l = { .len = 0 };

	run(*state, QPT_WANT_INSN, &l);
	assert_string_equal(l.text,
		"i1000 i1002 i1008 i1010 i100d i100e "
		"i1004 i1005 i1006 i1007 i1008 "
		"i1000 i1002 i1004 i1005 i1006 i1007 i1008 i1010 i100d i100e "
		/* overflows, errors and losses are always sent */
		"[overflow 1004] "
		"i1004 i1005 i1006 i1007 i1008 i1010 i100d i100e ");
}

static void test_branches(void **state)
{
	struct log l = { .len = 0 };

	run(*state, QPT_WANT_BRANCH, &l);
	assert_string_equal(l.text,
		"trace_begin:0>1000 jcc:1002>1008 call:1008>1010 "
		"ret:1010>100d trace_end/syscall:100e>0 "
		"trace_begin:0>1004 call:1008>1010 async:1010>1000 "
		"call:1008>1010 ret:1010>100d trace_end/syscall:100e>0 "
		"[overflow 1004] trace_begin:0>1004 call:1008>1010 "
		"ret:1010>100d trace_end/syscall:100e>0 ");
}

static void test_events(void **state)
{
	struct log l = { .len = 0 };

	run(*state, QPT_WANT_EVENT, &l);
	assert_string_equal(l.text,
		"[enabled 1000] [disabled 100e] [enabled 1004] "
		"[disabled 100e] [overflow 1004] [disabled 100e] ");
}

static void test_stop(void **state)
{
	struct fixture *fx = *state;
	struct qpt_decoder *dec;
	struct log l = { .len = 0, .stop_after = 3 };

	assert_int_equal(qpt_decoder_new(NULL, &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, fx->path, 0x1000), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, fx->trace, fx->len, collect,
					     &l), -1234);
	assert_int_equal(l.seen, 3);
	qpt_decoder_free(dec);
}

/*
 * A trace buffer that ends a mapping with a PSB pattern word (8-byte
 * aligned, as at a page's end): libipt's search for a PSB reads the byte
 * after such a word.  The page after it is made inaccessible, so that a
 * read past the buffer faults; both engines must decode it (nothing: no
 * whole PSB) without reading there.
 */
static void test_psb_word_at_end(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const uint8_t word[8] = {2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82};
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;
	uint8_t *buf;
	int libipt;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + page, (size_t)page, PROT_NONE), 0);
	buf = m + page - 64; /* PADs, then the word */
	memset(buf, 0, 64);
	memcpy(buf + 56, word, 8);
	for (libipt = 0; libipt < 2; libipt++) {
		struct log l = { .len = 0 };

		qpt_decoder_opts_init(&opts);
		opts.want = QPT_WANT_INSN | QPT_WANT_EVENT;
		opts.libipt_only = libipt;
		assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
		assert_int_equal(qpt_decoder_run_raw(dec, buf, 64, collect, &l),
				 0);
		assert_non_null(strstr(l.text, "[error"));
		qpt_decoder_free(dec);
	}
	munmap(m, (size_t)page * 2);
}

static void test_no_image(void **state)
{
	struct fixture *fx = *state;
	struct qpt_decoder *dec;
	struct qpt_decode_stats st;
	struct log l = { .len = 0 };

	assert_int_equal(qpt_decoder_new(NULL, &dec), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, fx->trace, fx->len, collect,
					     &l), 0);
	qpt_decoder_stats(dec, &st);
	assert_int_equal(st.insns, 0);
	assert_true(st.errors > 0);
	assert_non_null(strstr(l.text, "[error 1000]"));
	qpt_decoder_free(dec);
}

static void test_contracts(void **state)
{
	struct qpt_decoder_opts opts[2];
	struct qpt_decoder *dec = (void *)1;

	(void)state;
	qpt_decoder_free(NULL);
	assert_int_equal(qpt_decoder_new(NULL, NULL), -QPT_E_INVAL);
	/* a larger opts with non-zero unknown bytes is refused */
	memset(opts, 0, sizeof(opts));
	qpt_decoder_opts_init(&opts[0]);
	opts[0].size = sizeof(opts);
	((uint8_t *)&opts[1])[3] = 1;
	assert_int_equal(qpt_decoder_new(&opts[0], &dec), -QPT_E_INVAL);
	assert_null(dec);
	((uint8_t *)&opts[1])[3] = 0;
	assert_int_equal(qpt_decoder_new(&opts[0], &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, "/nonexistent/x", 0),
			 -ENOENT);
	assert_int_equal(qpt_decoder_add_image(dec, NULL, 0), -QPT_E_INVAL);
	assert_int_equal(qpt_decoder_run_raw(dec, NULL, 0, NULL, NULL),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_decoder_run_file(dec, "/nonexistent/perf.data",
					      collect, NULL), -ENOENT);
	assert_int_equal(qpt_decoder_missing(dec, NULL), 0);
	qpt_decoder_free(dec);
	assert_string_equal(qpt_branch_kind_name(QPT_BR_IND_CALL), "ind_call");
	assert_string_equal(qpt_branch_kind_name(999), "unknown");
	assert_string_equal(qpt_event_kind_name(QPT_EV_OVERFLOW), "overflow");
}

/* An instruction item's text, and what is not one. */
/* The items of a run over @path at 0x1000 on @dec (NULL: a new decoder). */
static void run_image(struct qpt_decoder *dec, struct fixture *fx,
		      const char *path, struct log *l)
{
	struct qpt_decoder *own = NULL;

	if (!dec)
		assert_int_equal(qpt_decoder_new(NULL, &own), 0);
	assert_int_equal(qpt_decoder_add_image(dec ? dec : own, path, 0x1000),
			 0);
	memset(l, 0, sizeof(*l));
	assert_int_equal(qpt_decoder_run_raw(dec ? dec : own, fx->trace,
					     fx->len, collect, l), 0);
	qpt_decoder_free(own);
}

/*
 * One decoder for several runs (its caches of decoded instructions and
 * of straight-line runs are made once) gives what a new decoder gives,
 * also when the code at an address changed between runs: the same
 * lengths (xor ecx, ecx for xor eax, eax), then others (two nops).
 */
static void test_runs_share_decoder(void **state)
{
	static const uint8_t edit[][2] = {
	    {0x31, 0xc0}, {0x31, 0xc0}, {0x31, 0xc9}, {0x90, 0x90}};
	struct fixture *fx = *state;
	struct log shared, fresh;
	struct qpt_decoder *dec;
	uint8_t patched[sizeof(code)];
	char path[64];
	size_t i;

	assert_int_equal(qpt_decoder_new(NULL, &dec), 0);
	for (i = 0; i < sizeof(edit) / sizeof(edit[0]); i++) {
		memcpy(patched, code, sizeof(code));
		memcpy(patched, edit[i], 2);
		snprintf(path, sizeof(path), "/tmp/qpt-test-code-XXXXXX");
		pt_code_file(path, patched, sizeof(patched));
		run_image(dec, fx, path, &shared);
		run_image(NULL, fx, path, &fresh);
		assert_string_equal(shared.text, fresh.text);
		unlink(path);
	}
	qpt_decoder_free(dec);
}

struct timed {
	char text[1024];
	size_t len;
};

static int collect_times(const struct qpt_item *it, void *ctx)
{
	struct timed *l = ctx;
	int n;

	if (it->type == QPT_ITEM_EVENT)
		return 0;
	n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%c%llx@%llu ",
		     it->type == QPT_ITEM_INSN ? 'i' : 'b',
		     (unsigned long long)it->ip,
		     it->flags & QPT_ITEM_HAS_TIME ? (unsigned long long)it->time
						   : 0ull);
	assert_true(n > 0 && (size_t)n < sizeof(l->text) - l->len);
	l->len += (size_t)n;
	return 0;
}

/* The times of the items of fx's trace, by both engines (the fast
 * decoder decodes all of it), are @want. */
static void check_times(const struct fixture *fx, const char *want)
{
	struct qpt_decoder_opts opts;
	struct qpt_decode_stats st;
	struct qpt_decoder *dec;
	int libipt;

	for (libipt = 0; libipt < 2; libipt++) {
		struct timed l = {.len = 0};

		qpt_decoder_opts_init(&opts);
		opts.want = QPT_WANT_INSN | QPT_WANT_BRANCH;
		opts.libipt_only = libipt;
		assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
		assert_int_equal(qpt_decoder_add_image(dec, fx->path, 0x1000),
				 0);
		assert_int_equal(qpt_decoder_run_raw(dec, fx->trace, fx->len,
						     collect_times, &l),
				 0);
		assert_int_equal(qpt_decoder_stats(dec, &st), 0);
		assert_int_equal(st.fast_insns, libipt ? 0 : st.insns);
		qpt_decoder_free(dec);
		assert_string_equal(l.text, want);
	}
}

/* An encoder into fx's trace that has written: a PSB+ at time 100,
 * tracing on at 0x1000, and at time 200 the jz taken. */
static struct pt_encoder *times_begin(struct fixture *fx)
{
	struct pt_encoder *enc = pt_open(fx->trace, sizeof(fx->trace));

	pt_put(enc, ppt_psb, 0);
	pt_put(enc, ppt_tsc, 100);
	pt_put(enc, ppt_mode, 0);
	pt_put(enc, ppt_psbend, 0);
	pt_put(enc, ppt_tip_pge, 0x1000);
	pt_put(enc, ppt_tsc, 200);
	pt_put(enc, ppt_tnt_8, 1); /* jz taken */
	return enc;
}

/*
 * Times, as perf script times its samples: each item takes the time of
 * the last packet it, or one before it, read.  A TSC before each packet
 * the code reads (TNT for the jz, TIP for the ret, TIP.PGD for the
 * syscall): the jz and its branch take the TNT's time, and so do the
 * direct call after it (which reads nothing); the ret the TIP's, the
 * instructions after it too; the syscall the TIP.PGD's.
 */
static void test_times(void **state)
{
	struct fixture *fx = *state;
	struct pt_encoder *enc = times_begin(fx);

	pt_put(enc, ppt_tsc, 300);
	pt_put(enc, ppt_tip, 0x100d); /* ret */
	pt_put(enc, ppt_tsc, 400);
	pt_put(enc, ppt_tip_pgd, 0); /* syscall */
	fx->len = pt_end(enc);
	check_times(fx, "b0@100 i1000@100 i1002@200 b1002@200 i1008@200 "
			"b1008@200 i1010@300 b1010@300 i100d@300 i100e@400 "
			"b100e@400 ");
}

/*
 * A PSB+ with a new time right after the TNT that decides the jz (a PSB
 * flushes the decisions before it; its FUP is the jz's target): the jz
 * and its branch keep the TNT's time, as perf's do, though the branch's
 * target is known only at the PSB+; the call after it takes the PSB's.
 */
static void test_times_psb(void **state)
{
	struct fixture *fx = *state;
	struct pt_encoder *enc = times_begin(fx);

	pt_put(enc, ppt_psb, 0);
	pt_put(enc, ppt_tsc, 300);
	pt_put(enc, ppt_mode, 0);
	pt_put(enc, ppt_fup, 0x1008);
	pt_put(enc, ppt_psbend, 0);
	pt_put(enc, ppt_tip, 0x100d); /* ret */
	pt_put(enc, ppt_tip_pgd, 0); /* syscall */
	fx->len = pt_end(enc);
	check_times(fx, "b0@100 i1000@100 i1002@200 b1002@200 i1008@300 "
			"b1008@300 i1010@300 b1010@300 i100d@300 i100e@300 "
			"b100e@300 ");
}

static void test_item_asm(void **state)
{
	struct qpt_item it;
	char buf[128];

	(void)state;
	memset(&it, 0, sizeof(it));
	it.type = QPT_ITEM_INSN;
	it.ip = 0x401000;
	it.mode = 64;
	it.size = 5;
	memcpy(it.raw, "\xe8\xfb\x0f\x00\x00", 5);
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), 13);
	assert_string_equal(buf, "call 0x402000");
	it.mode = 0; /* unknown: 64-bit */
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), 13);
	assert_int_equal(qpt_item_asm(&it, buf, 8), -QPT_E_INVAL);
	assert_string_equal(buf, "");
	it.size = 3; /* its bytes end first */
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), -QPT_E_FORMAT);
	it.size = 1;
	it.raw[0] = 0x06; /* push es: not in 64-bit mode */
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), -QPT_E_FORMAT);
	it.mode = 32;
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "push es");
	it.type = QPT_ITEM_BRANCH;
	assert_int_equal(qpt_item_asm(&it, buf, sizeof(buf)), -QPT_E_INVAL);
	assert_int_equal(qpt_item_asm(NULL, buf, sizeof(buf)), -QPT_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_item_asm),
		cmocka_unit_test_setup_teardown(test_insns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_image, setup, teardown),
		cmocka_unit_test(test_psb_word_at_end),
		cmocka_unit_test_setup_teardown(test_runs_share_decoder, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_times_psb, setup,
						teardown),
		cmocka_unit_test(test_contracts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
