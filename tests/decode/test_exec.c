// SPDX-License-Identifier: MIT
/*
 * The address space history on hand-built perf.data files where the same
 * address holds other code before and after an exec (or a mapping over
 * code): each trace part must decode against the code in force when it
 * ran.  Variants: a per-cpu recording with TSC whose sideband reaches the
 * file out of time order (as two cpus' rings do); a per-thread one
 * without TSC, placed by its PERF_RECORD_AUX records; the same without
 * sample times (file order only).  The expected instructions follow from
 * the code bytes (written here) and the packets (libipt's encoder).
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
#define OTHER 200 /* another process, its own code at the same place */
#define CODE_AT 0x1000

/* before the exec: xor eax,eax; syscall.  After: nop x3; syscall */
static const uint8_t code_a[] = {0x31, 0xc0, 0x0f, 0x05};
static const uint8_t code_b[] = {0x90, 0x90, 0x90, 0x0f, 0x05};
static const char *const want = "i1000 i1002 i1000 i1001 i1002 i1003 ";

struct variant {
	bool per_cpu;	/* per-cpu rings, TSC in the trace */
	bool times;	/* sample times in the sideband */
	bool exec;	/* else code is mapped over code (no exec) */
	bool aux_marks; /* PERF_RECORD_AUX records */
};

struct fx {
	char a[64], b[64], data[64];
	uint8_t trace[256];
	size_t len1, len; /* the first part: before the exec */
	struct ptf f;
};

#define pkt ptf_pkt

/* PSB+, then the code runs once before the exec (time 1000) and once
 * after (time 3000): each from CODE_AT to its syscall. */
static void make_trace(struct fx *fx, bool tsc)
{
	struct pt_encoder *enc = pt_open(fx->trace, sizeof(fx->trace));
	uint64_t off = 0;

	pkt(enc, ppt_psb, 0);
	if (tsc)
		pkt(enc, ppt_tsc, 1000);
	pkt(enc, ppt_mode, 0);
	pkt(enc, ppt_psbend, 0);
	pkt(enc, ppt_tip_pge, CODE_AT);
	pkt(enc, ppt_tip_pgd, 0);
	pt_enc_get_offset(enc, &off);
	fx->len1 = (size_t)off;
	if (tsc)
		pkt(enc, ppt_tsc, 3000);
	pkt(enc, ppt_tip_pge, CODE_AT);
	pkt(enc, ppt_tip_pgd, 0);
	fx->len = pt_end(enc);
}

static void comm_exec(struct ptf *f, uint64_t t, uint32_t cpu)
{
	struct pb *p = &f->pb;
	size_t r = pb_rec(p, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);

	pb_u32(p, PID);
	pb_u32(p, PID);
	pb_str(p, "prog", 8);
	ptf_trailer(f, PID, t, cpu);
	pb_end(p, r);
}

static void itrace_start(struct ptf *f, int32_t pid, uint64_t t, uint32_t cpu)
{
	struct pb *p = &f->pb;
	size_t r = pb_rec(p, PERF_RECORD_ITRACE_START, 0);

	pb_u32(p, (uint32_t)pid);
	pb_u32(p, (uint32_t)pid);
	ptf_trailer(f, pid, t, cpu);
	pb_end(p, r);
}

static void aux(struct ptf *f, uint64_t off, uint64_t size, uint64_t t,
		uint32_t cpu)
{
	struct pb *p = &f->pb;
	size_t r = pb_rec(p, PERF_RECORD_AUX, 0);

	pb_u64(p, off);
	pb_u64(p, size);
	pb_u64(p, 0); /* flags */
	ptf_trailer(f, PID, t, cpu);
	pb_end(p, r);
}

/*
 * The sideband: the process maps A, runs (AUX up to len1 at 1500),
 * execs at 2000 and maps B (2100), runs again (AUX to the end at 3500).
 * Another process has B at the same place all along.  Per-cpu: the MMAP2
 * of B arrives before the COMM (another cpu's ring drained first).
 */
static void sideband(struct fx *fx, const struct variant *v)
{
	struct ptf *f = &fx->f;
	uint32_t cpu = v->per_cpu ? 0 : (uint32_t)-1;

	ptf_mmap2(f, OTHER, fx->b, CODE_AT, 10, cpu);
	if (!v->exec || !v->per_cpu)
		comm_exec(f, 20, cpu); /* the first exec: nothing mapped */
	ptf_mmap2(f, PID, fx->a, CODE_AT, 30, cpu);
	itrace_start(f, PID, 500, cpu);
	if (v->aux_marks)
		aux(f, 0, fx->len1, 1500, cpu);
	if (v->exec && v->per_cpu) {
		ptf_mmap2(f, PID, fx->b, CODE_AT, 2100, 1);
		comm_exec(f, 2000, cpu);
	} else {
		if (v->exec)
			comm_exec(f, 2000, cpu);
		ptf_mmap2(f, PID, fx->b, CODE_AT, 2100, cpu);
	}
	if (v->aux_marks)
		aux(f, fx->len1, fx->len - fx->len1, 3500, cpu);
	ptf_auxtrace(f, fx->trace, fx->len, PID);
}

static void build(struct fx *fx, const struct variant *v)
{
	fx->f.times = v->times;
	fx->f.per_cpu = v->per_cpu;
	ptf_begin(&fx->f);
	sideband(fx, v);
	ptf_end(&fx->f, fx->data);
}

struct log {
	char text[1024];
	size_t len;
	int32_t tid;
};

static int collect(const struct qpt_item *it, void *ctx)
{
	struct log *l = ctx;
	int n;

	if (it->type != QPT_ITEM_INSN &&
	    !(it->type == QPT_ITEM_EVENT && it->kind == QPT_EV_ERROR))
		return 0;
	n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s%llx ",
		     it->type == QPT_ITEM_INSN ? "i" : "error@",
		     (unsigned long long)it->ip);
	assert_true(n > 0 && (size_t)n < sizeof(l->text) - l->len);
	l->len += (size_t)n;
	l->tid = it->tid;
	return 0;
}

static void check(const struct variant *v)
{
	struct qpt_decoder *dec;
	struct log l = {.len = 0};
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	ptf_write(fx->a, code_a, sizeof(code_a));
	ptf_write(fx->b, code_b, sizeof(code_b));
	make_trace(fx, v->per_cpu);
	build(fx, v);
	assert_int_equal(qpt_decoder_new(NULL, &dec), 0);
	assert_int_equal(qpt_decoder_run_file(dec, fx->data, collect, &l), 0);
	qpt_decoder_free(dec);
	unlink(fx->a);
	unlink(fx->b);
	unlink(fx->data);
	assert_string_equal(l.text, want);
	assert_int_equal(l.tid, PID);
	free(fx);
}

static void test_per_cpu_tsc(void **state)
{
	static const struct variant v = {
	    .per_cpu = true, .times = true, .exec = true};

	(void)state;
	check(&v);
}

static void test_per_thread_aux(void **state)
{
	static const struct variant v = {
	    .times = true, .exec = true, .aux_marks = true};

	(void)state;
	check(&v);
}

static void test_per_thread_untimed(void **state)
{
	static const struct variant v = {.exec = true, .aux_marks = true};

	(void)state;
	check(&v);
}

static void test_mapped_over(void **state)
{
	static const struct variant v = {.times = true, .aux_marks = true};

	(void)state;
	check(&v);
}

static void test_mapped_over_tsc(void **state)
{
	static const struct variant v = {.per_cpu = true, .times = true};

	(void)state;
	check(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_cpu_tsc),
	    cmocka_unit_test(test_per_thread_aux),
	    cmocka_unit_test(test_per_thread_untimed),
	    cmocka_unit_test(test_mapped_over),
	    cmocka_unit_test(test_mapped_over_tsc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
