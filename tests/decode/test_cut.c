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
#include <intel-pt.h>
#include <linux/perf_event.h>

#include "auxfmt/perfbuild.h"
#include "qpt/decode.h"
#include "qpt/perf_format.h"

#define PT_TYPE 8
#define PID 100
#define CODE_AT 0x1000
#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER)
#define SHORT_PAD 64
#define LONG_PAD 6000 /* past QD_PART_MIN (4 KiB): a cut at the PSB */

/* nop; syscall; nop; syscall */
static const uint8_t code[] = {0x90, 0x0f, 0x05, 0x90, 0x0f, 0x05};

static void pkt(struct pt_encoder *enc, enum pt_packet_type type, uint64_t val)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case ppt_tip_pge:
	case ppt_fup:
		p.payload.ip = (struct pt_packet_ip){pt_ipc_sext_48, val};
		break;
	case ppt_tip_pgd:
		p.payload.ip.ipc = pt_ipc_suppressed;
		break;
	case ppt_tsc:
		p.payload.tsc.tsc = val;
		break;
	case ppt_mtc:
		p.payload.mtc.ctc = (uint8_t)val;
		break;
	case ppt_tma:
		p.payload.tma.ctc = (uint16_t)val;
		break;
	case ppt_mode:
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
		break;
	default:
		break;
	}
	assert_true(pt_enc_next(enc, &p) >= 0);
}

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
	struct pt_config cfg;
	struct pt_encoder *enc;
	uint64_t off = 0;
	unsigned i;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
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
	assert_true(pt_enc_get_offset(enc, &off) >= 0);
	pt_free_encoder(enc);
	return (size_t)off;
}

static void write_file(char *path, const void *buf, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/qpt-test-cut-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void trailer(struct pb *p, uint64_t time)
{
	pb_u32(p, PID);
	pb_u32(p, PID);
	pb_u64(p, time);
	pb_u64(p, 1); /* identifier */
}

static void mmap2(struct pb *p, const char *path)
{
	size_t r = pb_rec(p, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	pb_u32(p, PID);
	pb_u32(p, PID);
	pb_u64(p, CODE_AT);
	pb_u64(p, 0x1000);
	pb_u64(p, 0); /* pgoff */
	pb_u32(p, 8); /* maj */
	pb_u32(p, 1); /* min */
	pb_u64(p, 1); /* ino */
	pb_u64(p, 0); /* ino_generation */
	pb_u32(p, 5); /* prot: read, exec */
	pb_u32(p, 2); /* flags: private */
	pb_str(p, path, 8);
	trailer(p, 10);
	pb_end(p, r);
}

static void auxtrace_info(struct pb *p)
{
	size_t r = pb_rec(p, QPT_RECORD_AUXTRACE_INFO, 0);
	uint64_t priv[QPT_INTEL_PT_PRIV_NR] = {0};
	int i;

	pb_u32(p, QPT_AUXTRACE_INTEL_PT);
	pb_u32(p, 0);
	priv[QPT_INTEL_PT_PMU_TYPE] = PT_TYPE;
	priv[QPT_INTEL_PT_TIME_MULT] = 1; /* TSC = perf time */
	priv[QPT_INTEL_PT_CAP_USER_TIME_ZERO] = 1;
	priv[QPT_INTEL_PT_TSC_BIT] = 1u << 10;
	priv[QPT_INTEL_PT_NORETCOMP_BIT] = 1u << 11;
	priv[QPT_INTEL_PT_MTC_BIT] = 1u << 9;
	priv[QPT_INTEL_PT_MTC_FREQ_BITS] = 3u << 14;
	priv[QPT_INTEL_PT_TSC_CTC_N] = 2;
	priv[QPT_INTEL_PT_TSC_CTC_D] = 1;
	for (i = 0; i < QPT_INTEL_PT_PRIV_NR; i++)
		pb_u64(p, priv[i]);
	pb_end(p, r);
}

/* A per-thread recording of @trace (@len bytes) over @code_path, into
 * @path. */
static void build(char *path, const char *code_path, const uint8_t *trace,
		  size_t len)
{
	struct pb *p = calloc(1, sizeof(*p));
	size_t sect, data_at, r, pad = (8 - len % 8) % 8;

	assert_non_null(p);
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 104);
	pb_u64(p, PERF_ATTR_SIZE_VER5 + 16u);
	sect = p->n;
	p->n = 104;
	/* one attr and its ids section (one id: 1) */
	pb_u32(p, PT_TYPE);
	pb_u32(p, PERF_ATTR_SIZE_VER5);
	pb_u64(p, 1u | 1u << 9 | 1u << 10 | 3u << 14); /* pt, mtc, tsc */
	pb_u64(p, 1);				       /* sample_period */
	pb_u64(p, ST);
	pb_u64(p, 0); /* read_format */
	/* exclude_kernel, mmap, comm, task, sample_id_all, mmap2 */
	pb_attr_flags(p, (1ull << 5) | (1ull << 8) | (1ull << 9) |
			     (1ull << 13) | (1ull << 18) | (1ull << 23));
	while (p->n < 104 + PERF_ATTR_SIZE_VER5)
		pb_u8(p, 0);
	pb_u64(p, 104 + PERF_ATTR_SIZE_VER5 + 16);
	pb_u64(p, 8);
	pb_u64(p, 1);
	data_at = p->n;
	auxtrace_info(p);
	mmap2(p, code_path);
	r = pb_rec(p, QPT_RECORD_AUXTRACE, 0);
	pb_u64(p, len + pad);
	pb_u64(p, 0); /* offset */
	pb_u64(p, 0); /* reference */
	pb_u32(p, 0); /* idx */
	pb_u32(p, PID);
	pb_u32(p, (uint32_t)-1); /* cpu */
	pb_u32(p, 0);
	pb_end(p, r);
	pb_bytes(p, trace, len);
	while (pad--)
		pb_u8(p, 0); /* PAD packets */
	pb_set_u64(p, sect, 104);
	pb_set_u64(p, sect + 8, PERF_ATTR_SIZE_VER5 + 16u);
	pb_set_u64(p, sect + 16, data_at);
	pb_set_u64(p, sect + 24, p->n - data_at);
	write_file(path, p->b, p->n);
	free(p);
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
	write_file(code_path, code, sizeof(code));
	for (jobs = 1; jobs <= 2; jobs++) {
		decode(code_path, SHORT_PAD, jobs, &whole);
		decode(code_path, LONG_PAD, jobs, &cut);
		print_message("-j%u:\n%s", jobs, whole.text);
		assert_true(whole.events >= 3); /* disable, enable, disable */
		assert_string_equal(whole.text, cut.text);
	}
	unlink(code_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cut_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
