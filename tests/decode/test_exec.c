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
#include <intel-pt.h>
#include <linux/perf_event.h>

#include "auxfmt/perfbuild.h"
#include "qpt/decode.h"
#include "qpt/perf_format.h"

#define PT_TYPE 8
#define PID 100
#define OTHER 200 /* another process, its own code at the same place */
#define CODE_AT 0x1000
#define ST                                                                     \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

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
	struct pb pb;
};

static void pkt(struct pt_encoder *enc, enum pt_packet_type type, uint64_t val)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if (type == ppt_tip_pge)
		p.payload.ip = (struct pt_packet_ip){pt_ipc_sext_48, val};
	else if (type == ppt_tip_pgd)
		p.payload.ip.ipc = pt_ipc_suppressed;
	else if (type == ppt_tsc)
		p.payload.tsc.tsc = val;
	else if (type == ppt_mode) {
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	}
	assert_true(pt_enc_next(enc, &p) >= 0);
}

/* PSB+, then the code runs once before the exec (time 1000) and once
 * after (time 3000): each from CODE_AT to its syscall. */
static void make_trace(struct fx *fx, bool tsc)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t off = 0;

	pt_config_init(&cfg);
	cfg.begin = fx->trace;
	cfg.end = fx->trace + sizeof(fx->trace);
	enc = pt_alloc_encoder(&cfg);
	assert_non_null(enc);
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
	pt_enc_get_offset(enc, &off);
	fx->len = (size_t)off;
	pt_free_encoder(enc);
}

static void write_file(char *path, const void *buf, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/qpt-test-exec-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static bool with_times; /* the sample_type has PERF_SAMPLE_TIME */

static void trailer(struct pb *p, int32_t pid, uint64_t time, uint32_t cpu)
{
	pb_u32(p, (uint32_t)pid);
	pb_u32(p, (uint32_t)pid);
	if (with_times)
		pb_u64(p, time);
	pb_u32(p, cpu);
	pb_u32(p, 0);
	pb_u64(p, 1); /* identifier */
}

static void mmap2(struct pb *p, int32_t pid, const char *path, uint64_t t,
		  uint32_t cpu)
{
	size_t r = pb_rec(p, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	pb_u32(p, (uint32_t)pid);
	pb_u32(p, (uint32_t)pid);
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
	trailer(p, pid, t, cpu);
	pb_end(p, r);
}

static void comm_exec(struct pb *p, uint64_t t, uint32_t cpu)
{
	size_t r = pb_rec(p, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);

	pb_u32(p, PID);
	pb_u32(p, PID);
	pb_str(p, "prog", 8);
	trailer(p, PID, t, cpu);
	pb_end(p, r);
}

static void itrace_start(struct pb *p, int32_t pid, uint64_t t, uint32_t cpu)
{
	size_t r = pb_rec(p, PERF_RECORD_ITRACE_START, 0);

	pb_u32(p, (uint32_t)pid);
	pb_u32(p, (uint32_t)pid);
	trailer(p, pid, t, cpu);
	pb_end(p, r);
}

static void aux(struct pb *p, uint64_t off, uint64_t size, uint64_t t,
		uint32_t cpu)
{
	size_t r = pb_rec(p, PERF_RECORD_AUX, 0);

	pb_u64(p, off);
	pb_u64(p, size);
	pb_u64(p, 0); /* flags */
	trailer(p, PID, t, cpu);
	pb_end(p, r);
}

static void auxtrace_info(struct pb *p, const struct variant *v)
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
	priv[QPT_INTEL_PT_PER_CPU_MMAPS] = v->per_cpu;
	for (i = 0; i < QPT_INTEL_PT_PRIV_NR; i++)
		pb_u64(p, priv[i]);
	pb_end(p, r);
}

static void auxtrace(struct pb *p, const struct fx *fx, const struct variant *v)
{
	size_t r = pb_rec(p, QPT_RECORD_AUXTRACE, 0), pad;

	pad = (8 - fx->len % 8) % 8;
	pb_u64(p, fx->len + pad);
	pb_u64(p, 0); /* offset */
	pb_u64(p, 0); /* reference */
	pb_u32(p, 0); /* idx */
	pb_u32(p, v->per_cpu ? (uint32_t)-1 : PID);
	pb_u32(p, v->per_cpu ? 0 : (uint32_t)-1);
	pb_u32(p, 0);
	pb_end(p, r);
	pb_bytes(p, fx->trace, fx->len);
	while (pad--)
		pb_u8(p, 0); /* PAD packets */
}

/*
 * The sideband: the process maps A, runs (AUX up to len1 at 1500),
 * execs at 2000 and maps B (2100), runs again (AUX to the end at 3500).
 * Another process has B at the same place all along.  Per-cpu: the MMAP2
 * of B arrives before the COMM (another cpu's ring drained first).
 */
static void sideband(struct fx *fx, const struct variant *v)
{
	struct pb *p = &fx->pb;
	uint32_t cpu = v->per_cpu ? 0 : (uint32_t)-1;

	mmap2(p, OTHER, fx->b, 10, cpu);
	if (!v->exec || !v->per_cpu)
		comm_exec(p, 20, cpu); /* the first exec: nothing mapped */
	mmap2(p, PID, fx->a, 30, cpu);
	itrace_start(p, PID, 500, cpu);
	if (v->aux_marks)
		aux(p, 0, fx->len1, 1500, cpu);
	if (v->exec && v->per_cpu) {
		mmap2(p, PID, fx->b, 2100, 1);
		comm_exec(p, 2000, cpu);
	} else {
		if (v->exec)
			comm_exec(p, 2000, cpu);
		mmap2(p, PID, fx->b, 2100, cpu);
	}
	if (v->aux_marks)
		aux(p, fx->len1, fx->len - fx->len1, 3500, cpu);
	auxtrace(p, fx, v);
}

static void build(struct fx *fx, const struct variant *v)
{
	struct pb *p = &fx->pb;
	size_t sect, data_at;

	memset(p, 0, sizeof(*p));
	with_times = v->times;
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 104);
	pb_u64(p, PERF_ATTR_SIZE_VER5 + 16u);
	sect = p->n;
	p->n = 104;
	/* one attr and its ids section (one id: 1) */
	pb_u32(p, PT_TYPE);
	pb_u32(p, PERF_ATTR_SIZE_VER5);
	pb_u64(p, 1u | (v->per_cpu ? 1u << 10 : 0)); /* pt, tsc */
	pb_u64(p, 1);				     /* sample_period */
	pb_u64(p, v->times ? ST : ST & ~(uint64_t)PERF_SAMPLE_TIME);
	pb_u64(p, 0); /* read_format */
	/* exclude_kernel, mmap, comm, task, sample_id_all, mmap2,
	 * comm_exec */
	pb_attr_flags(p, (1ull << 5) | (1ull << 8) | (1ull << 9) |
			     (1ull << 13) | (1ull << 18) | (1ull << 23) |
			     (1ull << 24));
	while (p->n < 104 + PERF_ATTR_SIZE_VER5)
		pb_u8(p, 0);
	pb_u64(p, 104 + PERF_ATTR_SIZE_VER5 + 16);
	pb_u64(p, 8);
	pb_u64(p, 1);
	data_at = p->n;
	auxtrace_info(p, v);
	sideband(fx, v);
	pb_set_u64(p, sect, 104);
	pb_set_u64(p, sect + 8, PERF_ATTR_SIZE_VER5 + 16u);
	pb_set_u64(p, sect + 16, data_at);
	pb_set_u64(p, sect + 24, p->n - data_at);
	write_file(fx->data, p->b, p->n);
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
	write_file(fx->a, code_a, sizeof(code_a));
	write_file(fx->b, code_b, sizeof(code_b));
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
