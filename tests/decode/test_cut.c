// SPDX-License-Identifier: MIT
/*
 * A queue's trace is decoded in parts cut at PSBs (decode/part.c): what
 * it tells must not depend on where the cuts fall.  Two hand-built
 * perf.data files hold the same trace but for the padding in a stretch
 * where tracing is off: in one the PSB+ after the stretch is less than a
 * part from the start (no cut there), in the other more (a cut there).
 * Tracing comes back on (TIP.PGE) right before that PSB+, and timing
 * packets follow it: a decoder reads ahead over those before it tells the
 * enable, so the event's offset is past them in one flow over the whole,
 * and must be in the cut one too.  Every item, offsets included, must be
 * the same in both, but for the padding's length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "decode/ptfile.h"
#include "pt_packets.h"
#include "qpt/decode.h"

#define PID 100
#define CODE_AT 0x1000
#define SHORT_PAD 64
#define LONG_PAD 6000 /* past QD_PART_MIN (4 KiB): a cut at the PSB */

/* nop; syscall; nop; syscall */
static const uint8_t code[] = {0x90, 0x0f, 0x05, 0x90, 0x0f, 0x05};

#define pkt ptf_pkt

static void psb_plus(struct pt_encoder *enc, uint64_t tsc, uint64_t ip)
{
	pkt(enc, ppt_psb, 0);
	pkt(enc, ppt_tsc, tsc);
	pkt(enc, ppt_tma, tsc & 0xffff);
	pkt(enc, ppt_mode, 0);
	pkt(enc, ppt_fup, ip);
	pkt(enc, ppt_psbend, 0);
}

/*
 * From 0x1000 to the syscall at 0x1001 (tracing off), @pad PADs, back on
 * at 0x1003 with an MTC, a PSB+ there, MTCs and a PAD (read ahead), then
 * the syscall at 0x1004; the trace's length (*@pad_end: where the PADs
 * end).
 */
static size_t make_trace(uint8_t *buf, size_t size, unsigned pad,
			 uint64_t *pad_end)
{
	struct pt_encoder *enc = pt_open(buf, size);
	unsigned i;

	psb_plus(enc, 0x1000, CODE_AT);
	pkt(enc, ppt_tip_pgd, 0);
	for (i = 0; i < pad; i++)
		pkt(enc, ppt_pad, 0);
	assert_true(pt_enc_get_offset(enc, pad_end) >= 0);
	pkt(enc, ppt_tip_pge, CODE_AT + 3);
	pkt(enc, ppt_mtc, 0x20);
	psb_plus(enc, 0x2000, CODE_AT + 3);
	pkt(enc, ppt_mtc, 0x21);
	pkt(enc, ppt_pad, 0);
	pkt(enc, ppt_mtc, 0x22);
	pkt(enc, ppt_tip_pgd, 0);
	return pt_end(enc);
}

/* A per-thread recording of @trace (@len bytes) over @code_path, into
 * @path. */
static void build(char *path, const char *code_path, const uint8_t *trace,
		  size_t len)
{
	struct ptf *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->times = f->mtc = true;
	ptf_begin(f);
	ptf_mmap2(f, PID, code_path, CODE_AT, 10, (uint32_t)-1);
	ptf_auxtrace(f, trace, len, PID);
	ptf_end(f, path);
	free(f);
}

struct log {
	char text[2048];
	size_t len;
	uint64_t shift; /* an offset past the padding is told less this */
	uint64_t pad_end; /* where the padding ended */
	unsigned events;
};

static int collect(const struct qpt_item *it, void *ctx)
{
	struct log *l = ctx;
	uint64_t off = it->offset;
	int n;

	if (it->type == QPT_ITEM_EVENT &&
	    (it->kind == QPT_EV_EXEC_MODE || it->kind == QPT_EV_POWER))
		return 0;
	if (it->type == QPT_ITEM_EVENT)
		l->events++;
	if (it->type == QPT_ITEM_EVENT && off >= l->pad_end)
		off -= l->shift;
	n = snprintf(l->text + l->len, sizeof(l->text) - l->len,
		     "%u/%u %llx>%llx t%llu%s%llx\n", it->type, it->kind,
		     (unsigned long long)it->ip, (unsigned long long)it->to,
		     (unsigned long long)it->time,
		     it->type == QPT_ITEM_EVENT ? " @" : " ",
		     (unsigned long long)(it->type == QPT_ITEM_EVENT ? off
								    : 0));
	assert_true(n > 0 && (size_t)n < sizeof(l->text) - l->len);
	l->len += (size_t)n;
	return 0;
}

/* The items of the trace with @pad PADs, decoded from a file (@jobs
 * threads), offsets past the padding told as with SHORT_PAD. */
static void decode(const char *code_path, unsigned pad, unsigned jobs,
		   struct log *l)
{
	static uint8_t trace[LONG_PAD + 512];
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;
	char path[64];
	size_t len;

	memset(l, 0, sizeof(*l));
	len = make_trace(trace, sizeof(trace), pad, &l->pad_end);
	l->shift = pad - SHORT_PAD;
	build(path, code_path, trace, len);
	qpt_decoder_opts_init(&opts);
	opts.want = QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT;
	opts.jobs = jobs;
	assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
	assert_int_equal(qpt_decoder_run_file(dec, path, collect, l), 0);
	qpt_decoder_free(dec);
	unlink(path);
}

static void test_cut_same(void **state)
{
	struct log whole, cut;
	char code_path[64];
	unsigned jobs;

	(void)state;
	ptf_write(code_path, code, sizeof(code));
	for (jobs = 1; jobs <= 2; jobs++) {
		decode(code_path, SHORT_PAD, jobs, &whole);
		decode(code_path, LONG_PAD, jobs, &cut);
		print_message("-j%u:\n%s", jobs, whole.text);
		assert_true(whole.events >= 3); /* disable, enable, disable */
		assert_string_equal(whole.text, cut.text);
	}
	unlink(code_path);
}

/*
 * jne 0x1206 (not taken); nop; nop; call 0x120c; nop; jne 0x120f
 * (taken); nop; syscall.
 */
static const uint8_t cyc_code[] = {
    0x75, 0x04, 0x90, 0x90, 0xe8, 0x01, 0x00, 0x00,
    0x00, 0x90, 0x75, 0x01, 0x90, 0x0f, 0x05,
};
#define CYC_AT 0x1200
#define CYC_BEFORE 1000 /* the first jne's */
#define CYC_TAIL 100	/* after its TNT, before the PSB+ */
#define CYC_AFTER 7	/* after the PSB+, before the second jne's TNT */

/*
 * In at 0x1200 with @pad PADs, the first jne's TNT, a PSB+ at the call
 * (0x1204), the second jne's TNT and the syscall's TIP.PGD, CYCs as
 * above.
 */
static size_t make_cyc_trace(uint8_t *buf, size_t size, unsigned pad)
{
	struct pt_encoder *enc = pt_open(buf, size);
	unsigned i;

	psb_plus(enc, 0x1000, CYC_AT);
	for (i = 0; i < pad; i++)
		pkt(enc, ppt_pad, 0);
	pt_put(enc, ppt_cyc, CYC_BEFORE);
	pt_put(enc, ppt_tnt_8, 0);
	pt_put(enc, ppt_cyc, CYC_TAIL);
	psb_plus(enc, 0x2000, CYC_AT + 4);
	pt_put(enc, ppt_cyc, CYC_AFTER);
	pt_put(enc, ppt_tnt_8, 1);
	pt_put(enc, ppt_cyc, 3);
	pkt(enc, ppt_tip_pgd, 0);
	return pt_end(enc);
}

struct cycles {
	unsigned n;
	uint64_t from[8], cycles[8];
};

static int collect_cycles(const struct qpt_item *it, void *ctx)
{
	struct cycles *c = ctx;

	if (it->type != QPT_ITEM_BRANCH || it->kind == QPT_BR_TRACE_BEGIN ||
	    it->kind == QPT_BR_TRACE_END)
		return 0;
	assert_true(c->n < 8);
	c->from[c->n] = it->ip;
	c->cycles[c->n++] = it->cycles;
	return 0;
}

static void test_cut_cycles(void **state)
{
	static uint8_t trace[LONG_PAD + 512];
	char code_path[64], path[64];
	unsigned pads[] = {SHORT_PAD, LONG_PAD}, i, jobs;

	(void)state;
	ptf_write(code_path, cyc_code, sizeof(cyc_code));
	for (i = 0; i < 2; i++) {
		size_t len = make_cyc_trace(trace, sizeof(trace), pads[i]);
		struct ptf *f = calloc(1, sizeof(*f));

		assert_non_null(f);
		f->times = f->mtc = true;
		ptf_begin(f);
		ptf_mmap2(f, PID, code_path, CYC_AT, sizeof(cyc_code),
			  (uint32_t)-1);
		ptf_auxtrace(f, trace, len, PID);
		ptf_end(f, path);
		free(f);
		for (jobs = 1; jobs <= 2; jobs++) {
			struct qpt_decoder_opts opts;
			struct qpt_decoder *dec;
			struct cycles c = {0};

			qpt_decoder_opts_init(&opts);
			opts.want = QPT_WANT_BRANCH | QPT_WANT_CYCLES;
			opts.jobs = jobs;
			assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
			assert_int_equal(
			    qpt_decoder_run_file(dec, path, collect_cycles, &c),
			    0);
			qpt_decoder_free(dec);
			print_message("%u PADs, -j%u: %u branches\n", pads[i],
				      jobs, c.n);
			/* the call: the first jne's cycles; the second jne:
			 * those of its TNT, from both sides of the PSB+ */
			assert_int_equal(c.n, 2);
			assert_int_equal(c.from[0], CYC_AT + 4);
			assert_int_equal(c.cycles[0], CYC_BEFORE);
			assert_int_equal(c.from[1], CYC_AT + 10);
			assert_int_equal(c.cycles[1], CYC_TAIL + CYC_AFTER);
		}
		unlink(path);
	}
	unlink(code_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cut_same),
	    cmocka_unit_test(test_cut_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
