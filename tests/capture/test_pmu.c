// SPDX-License-Identifier: MIT
/*
 * PMU discovery, event strings and AUXTRACE_INFO against a fake sysfs tree
 * that copies a Skylake's intel_pt PMU.  Oracles: the config perf wrote
 * for "intel_pt//" on such a machine (0x300e601, in the real recording
 * quipper-intel-pt-4.14), that recording's AUXTRACE_INFO record byte for
 * byte, and hand-computed bit layouts.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/auxtrace.h"
#include "capture/event.h"
#include "capture/pmu.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int setup(void **state)
{
	strcpy(root, "/tmp/qpt-sysfs-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	dir("intel_pt");
	dir("intel_pt/format");
	dir("intel_pt/caps");
	put("intel_pt/type", "6\n");
	put("intel_pt/format/pt", "config:0\n");
	put("intel_pt/format/cyc", "config:1\n");
	put("intel_pt/format/pwr_evt", "config:4\n");
	put("intel_pt/format/mtc", "config:9\n");
	put("intel_pt/format/tsc", "config:10\n");
	put("intel_pt/format/noretcomp", "config:11\n");
	put("intel_pt/format/branch", "config:13\n");
	put("intel_pt/format/mtc_period", "config:14-17\n");
	put("intel_pt/format/cyc_thresh", "config:19-22\n");
	put("intel_pt/format/psb_period", "config:24-27\n");
	put("intel_pt/caps/mtc", "1\n");
	put("intel_pt/caps/mtc_periods", "249\n");
	put("intel_pt/caps/psb_cyc", "1\n");
	put("intel_pt/caps/psb_periods", "3f\n");
	put("intel_pt/max_nonturbo_ratio", "12\n");
	dir("intel_bts");
	put("intel_bts/type", "7\n");
	dir("odd");
	dir("odd/format");
	put("odd/type", "42\n");
	put("odd/format/event", "config:0-7,32-35\n");
	put("odd/format/umask", "config1:8-15\n");
	put("odd/format/flag", "config2:63\n");
	dir("broken");
	put("broken/type", "x\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static int parse(const char *s, struct qpt_event **ev, char *err, size_t n)
{
	struct qpt_event_opts o;

	qpt_event_opts_init(&o);
	o.sysfs_root = root;
	o.errbuf = err;
	o.errlen = n;
	if (err)
		err[0] = '\0';
	return qpt_event_parse(s, &o, ev);
}

static void test_format_parse(void **state)
{
	uint64_t mask;
	int word;

	assert_int_equal(qpt_pmu_parse_format("config:0-7,32\n", &word, &mask),
			 0);
	assert_int_equal(word, 0);
	assert_int_equal(mask, 0x1000000ffULL);
	assert_int_equal(qpt_pmu_parse_format("config1:3", &word, &mask), 0);
	assert_int_equal(word, 1);
	assert_int_equal(mask, 8);
	assert_int_equal(qpt_pmu_parse_format("config2:0-63", &word, &mask), 0);
	assert_int_equal(mask, ~0ULL);
	assert_int_equal(qpt_pmu_parse_format("config:7-3", &word, &mask),
			 -QPT_E_FORMAT);
	assert_int_equal(qpt_pmu_parse_format("config:64", &word, &mask),
			 -QPT_E_FORMAT);
	assert_int_equal(qpt_pmu_parse_format("config3:1", &word, &mask),
			 -QPT_E_FORMAT);
	assert_int_equal(qpt_pmu_parse_format("config:1,", &word, &mask),
			 -QPT_E_FORMAT);
	assert_int_equal(qpt_pmu_parse_format("config:", &word, &mask),
			 -QPT_E_FORMAT);
}

static void test_pmu_open(void **state)
{
	struct qpt_pmu *pmu;

	assert_int_equal(qpt_pmu_open(root, "intel_pt", &pmu), 0);
	assert_int_equal(pmu->type, 6);
	assert_int_equal(pmu->nr_formats, 10);
	assert_non_null(qpt_pmu_format(pmu, "psb_period"));
	assert_null(qpt_pmu_format(pmu, "nope"));
	qpt_pmu_free(pmu);
	assert_int_equal(qpt_pmu_open(root, "nothere", &pmu), -QPT_E_NOPMU);
	assert_null(pmu);
	assert_int_equal(qpt_pmu_open(root, "broken", &pmu), -QPT_E_FORMAT);
	assert_int_equal(qpt_pmu_open(root, "../x", &pmu), -QPT_E_INVAL);
	qpt_pmu_free(NULL);
}

/* perf's default for intel_pt// on this PMU: pt, branch, tsc, mtc,
 * mtc_period=3, psb_period=3, as recorded in quipper-intel-pt-4.14. */
static void test_intel_pt_default(void **state)
{
	struct qpt_event *ev;

	assert_int_equal(parse("intel_pt//", &ev, NULL, 0), 0);
	assert_int_equal(qpt_event_attr(ev)->type, 6);
	assert_int_equal(qpt_event_attr(ev)->config, 0x300e601);
	assert_true(qpt_event_is_aux(ev));
	assert_string_equal(qpt_event_pmu(ev), "intel_pt");
	assert_false(qpt_event_attr(ev)->exclude_kernel);
	qpt_event_free(ev);
}

static void test_intel_pt_terms(void **state)
{
	const struct perf_event_attr *a;
	struct qpt_event *ev;
	char err[128];

	assert_int_equal(parse("intel_pt/tsc,noretcomp=1,cyc,psb_period=5/u",
			       &ev, err, sizeof(err)),
			 0);
	a = qpt_event_attr(ev);
	/* 0x300e601 + cyc (bit 1) + noretcomp (bit 11), psb_period 5. */
	assert_int_equal(a->config, 0x500ee03);
	assert_true(a->exclude_kernel);
	assert_true(a->exclude_hv);
	assert_false(a->exclude_user);
	qpt_event_free(ev);
	assert_int_equal(parse("intel_pt/tsc=0,mtc=0/k", &ev, err, sizeof(err)),
			 0);
	assert_int_equal(qpt_event_attr(ev)->config, 0x300e001);
	assert_true(qpt_event_attr(ev)->exclude_user);
	qpt_event_free(ev);
	assert_int_equal(parse("intel_pt/nosuch=1/", &ev, err, sizeof(err)),
			 -QPT_E_INVAL);
	assert_non_null(strstr(err, "nosuch"));
	assert_int_equal(
	    parse("intel_pt/psb_period=16/", &ev, err, sizeof(err)),
	    -QPT_E_INVAL);
	assert_int_equal(parse("intel_pt/tsc", &ev, err, sizeof(err)),
			 -QPT_E_INVAL);
	assert_int_equal(parse("intel_pt//q", &ev, err, sizeof(err)),
			 -QPT_E_INVAL);
	assert_int_equal(parse("intel_pt/mtc=x/", &ev, err, sizeof(err)),
			 -QPT_E_INVAL);
}

static void test_other_pmus(void **state)
{
	const struct perf_event_attr *a;
	struct qpt_event *ev;
	char err[128];

	assert_int_equal(parse("intel_bts//", &ev, err, sizeof(err)), 0);
	assert_int_equal(qpt_event_attr(ev)->type, 7);
	assert_int_equal(qpt_event_attr(ev)->config, 0);
	assert_true(qpt_event_is_aux(ev));
	qpt_event_free(ev);
	assert_int_equal(
	    parse("odd/event=0x1ff,umask=3,flag/", &ev, err, sizeof(err)), 0);
	a = qpt_event_attr(ev);
	assert_int_equal(a->type, 42);
	assert_int_equal(a->config, 0x1000000ffULL);
	assert_int_equal(a->config1, 0x300);
	assert_int_equal(a->config2, 1ULL << 63);
	assert_false(qpt_event_is_aux(ev));
	qpt_event_free(ev);
	assert_int_equal(
	    parse("odd/config=5,period=1000/", &ev, err, sizeof(err)), 0);
	assert_int_equal(qpt_event_attr(ev)->config, 5);
	assert_int_equal(qpt_event_attr(ev)->sample_period, 1000);
	qpt_event_free(ev);
	assert_int_equal(parse("cs_etm//", &ev, err, sizeof(err)),
			 -QPT_E_NOPMU);
	assert_non_null(strstr(err, "cs_etm"));
}

static void test_named_events(void **state)
{
	struct qpt_event *ev;
	char err[128];

	assert_int_equal(parse("task-clock", &ev, err, sizeof(err)), 0);
	assert_int_equal(qpt_event_attr(ev)->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(qpt_event_attr(ev)->config, PERF_COUNT_SW_TASK_CLOCK);
	assert_false(qpt_event_is_aux(ev));
	qpt_event_free(ev);
	assert_int_equal(parse("cycles:u", &ev, err, sizeof(err)), 0);
	assert_int_equal(qpt_event_attr(ev)->type, PERF_TYPE_HARDWARE);
	assert_int_equal(qpt_event_attr(ev)->config, PERF_COUNT_HW_CPU_CYCLES);
	assert_true(qpt_event_attr(ev)->exclude_kernel);
	qpt_event_free(ev);
	assert_int_equal(parse("page-faults", &ev, err, sizeof(err)), 0);
	assert_int_equal(qpt_event_attr(ev)->config, PERF_COUNT_SW_PAGE_FAULTS);
	qpt_event_free(ev);
	/* A PMU by name alone. */
	assert_int_equal(parse("intel_bts", &ev, err, sizeof(err)), 0);
	qpt_event_free(ev);
	assert_int_equal(parse("nosuch", &ev, err, sizeof(err)), -QPT_E_INVAL);
	assert_non_null(strstr(err, "unknown event 'nosuch'"));
	/* ... but a known AUX tracer's name alone is a missing PMU. */
	assert_int_equal(parse("intel_pt", &ev, err, sizeof(err)), 0);
	qpt_event_free(ev);
	assert_int_equal(parse("nosuch:u", &ev, err, sizeof(err)),
			 -QPT_E_INVAL);
	assert_int_equal(parse("", &ev, err, sizeof(err)), -QPT_E_INVAL);
}

/* Without intel_pt in sysfs, the built-in description of the Linux
 * driver's formats: hand-computed configs. */
static void test_builtin_intel_pt(void **state)
{
	struct qpt_auxtrace_ctx ctx;
	struct qpt_event_opts o;
	struct qpt_event *ev;
	uint64_t buf[32];
	char empty[300];

	snprintf(empty, sizeof(empty), "%s/intel_bts", root); /* no PMUs */
	qpt_event_opts_init(&o);
	o.sysfs_root = empty;
	assert_int_equal(qpt_event_parse("intel_pt//u", &o, &ev), -QPT_E_NOPMU);
	o.builtin_intel_pt = true;
	o.builtin_intel_pt_type = 4242;
	assert_int_equal(qpt_event_parse("intel_pt//u", &o, &ev), 0);
	assert_int_equal(qpt_event_attr(ev)->type, 4242);
	/* The emulated source's defaults are perf's: pt (0), mtc (9),
	 * tsc (10), branch (13), mtc_period 3 (14-17), psb_period 3
	 * (24-27). */
	assert_int_equal(qpt_event_attr(ev)->config, 0x300e601);
	assert_true(qpt_event_is_aux(ev));
	/* Its AUXTRACE_INFO: the same bit masks as the real driver's. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.pmu = ev->pmu;
	assert_int_equal(qpt_intel_pt_ops.info(&ctx, buf, sizeof(buf)), 0x98);
	assert_int_equal(buf[2 + QPT_INTEL_PT_PMU_TYPE], 4242);
	assert_int_equal(buf[2 + QPT_INTEL_PT_TSC_BIT], 0x400);
	assert_int_equal(buf[2 + QPT_INTEL_PT_NORETCOMP_BIT], 0x800);
	assert_int_equal(buf[2 + QPT_INTEL_PT_MTC_BIT], 0x200);
	assert_int_equal(buf[2 + QPT_INTEL_PT_MTC_FREQ_BITS], 0x3c000);
	assert_int_equal(buf[2 + QPT_INTEL_PT_CYC_BIT], 0x2);
	assert_int_equal(buf[2 + QPT_INTEL_PT_MAX_NONTURBO_RATIO], 0);
	qpt_event_free(ev);
	assert_int_equal(qpt_event_parse("intel_pt/noretcomp,psb_period=3,"
					 "mtc,mtc_period=6/u",
					 &o, &ev),
			 0);
	assert_int_equal(qpt_event_attr(ev)->config,
			 0x2001 | 0x400 | 0x800 | 0x3000000 | 0x200 |
			     (6 << 14));
	qpt_event_free(ev);
	/* Only intel_pt is built in. */
	assert_int_equal(qpt_event_parse("intel_bts//", &o, &ev), -QPT_E_NOPMU);
	/* A real PMU in sysfs wins. */
	o.sysfs_root = root;
	assert_int_equal(qpt_event_parse("intel_pt//", &o, &ev), 0);
	assert_int_equal(qpt_event_attr(ev)->type, 6);
	qpt_event_free(ev);
}

/*
 * Options of another version (qpt.h's convention): an older caller's
 * smaller struct is read up to its size and the rest defaulted (the
 * bytes after it, which would turn the built-in intel_pt on, are not
 * read); a newer caller's larger struct is taken when its unknown
 * tail is zero and refused when a byte of it is set; a struct smaller
 * than the first version's is refused.
 */
static void test_opts_sized(void **state)
{
	size_t old = offsetof(struct qpt_event_opts, builtin_intel_pt);
	union {
		struct qpt_event_opts o;
		uint8_t b[sizeof(struct qpt_event_opts) + 8];
	} u;
	struct qpt_event *e = NULL;
	char empty[300];

	snprintf(empty, sizeof(empty), "%s/intel_bts", root); /* no PMUs */
	memset(&u, 0xa5, sizeof(u));
	qpt_event_opts_init_sized(&u.o, old);
	u.o.sysfs_root = empty;
	u.o.errbuf = NULL;
	u.o.builtin_intel_pt = true; /* past the old caller's size */
	u.o.builtin_intel_pt_type = 4242;
	assert_int_equal(qpt_event_parse("intel_pt//u", &u.o, &e),
			 -QPT_E_NOPMU);
	/* the same bytes as the whole struct: the built-in PMU answers */
	u.o.size = sizeof(u.o);
	assert_int_equal(qpt_event_parse("intel_pt//u", &u.o, &e), 0);
	assert_int_equal(qpt_event_attr(e)->type, 4242);
	qpt_event_free(e);
	memset(&u, 0xa5, sizeof(u));
	qpt_event_opts_init_sized(&u.o, sizeof(u));
	u.o.sysfs_root = root;
	assert_int_equal(qpt_event_parse("intel_pt//u", &u.o, &e), 0);
	qpt_event_free(e);
	u.b[sizeof(u.o) + 3] = 1;
	assert_int_equal(qpt_event_parse("intel_pt//u", &u.o, &e),
			 -QPT_E_INVAL);
	assert_null(e);
	u.o.size = offsetof(struct qpt_event_opts, errlen);
	assert_int_equal(qpt_event_parse("intel_pt//u", &u.o, &e),
			 -QPT_E_INVAL);
}

/* The words perf wrote in quipper-intel-pt-4.14 (perf report -D shows
 * them); with the real file present, byte for byte against it. */
static void test_intel_pt_info(void **state)
{
	struct perf_event_mmap_page page;
	struct qpt_auxtrace_ctx ctx;
	struct perf_event_attr attr;
	struct qpt_pmu *pmu;
	uint64_t buf[64], real[19];
	const uint64_t *w = buf + 2;
	const char *shared = getenv("QPT_SHARED");
	char path[512];
	int size, fd;

	assert_int_equal(qpt_pmu_open(root, "intel_pt", &pmu), 0);
	memset(&page, 0, sizeof(page));
	page.time_shift = 31;
	page.time_mult = 1789569706;
	page.time_zero = 18446744041015200657ULL;
	page.cap_user_time_zero = 1;
	memset(&attr, 0, sizeof(attr));
	memset(&ctx, 0, sizeof(ctx));
	ctx.pmu = pmu;
	ctx.attr = &attr;
	ctx.page = &page;
	ctx.per_cpu = true;
	ctx.have_sched_switch = 3;
	size = qpt_intel_pt_ops.info(&ctx, buf, sizeof(buf));
	assert_int_equal(size, 0x98);
	assert_int_equal(buf[0] & 0xffffffff, QPT_RECORD_AUXTRACE_INFO);
	assert_int_equal(buf[0] >> 48, 0x98);
	assert_int_equal(buf[1], QPT_AUXTRACE_INTEL_PT);
	assert_int_equal(w[QPT_INTEL_PT_PMU_TYPE], 6);
	assert_int_equal(w[QPT_INTEL_PT_TSC_BIT], 0x400);
	assert_int_equal(w[QPT_INTEL_PT_NORETCOMP_BIT], 0x800);
	assert_int_equal(w[QPT_INTEL_PT_MTC_BIT], 0x200);
	assert_int_equal(w[QPT_INTEL_PT_MTC_FREQ_BITS], 0x3c000);
	assert_int_equal(w[QPT_INTEL_PT_CYC_BIT], 0x2);
	assert_int_equal(w[QPT_INTEL_PT_MAX_NONTURBO_RATIO], 12);
	assert_int_equal(w[QPT_INTEL_PT_PER_CPU_MMAPS], 1);
	assert_int_equal(w[QPT_INTEL_PT_FILTER_STR_LEN], 0);
	if (shared) {
		snprintf(path, sizeof(path),
			 "%s/traces/quipper-intel-pt-4.14/"
			 "perf.data.intel_pt-4.14",
			 shared);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			assert_int_equal(pread(fd, real, 0x98, 0x308), 0x98);
			close(fd);
			/* That machine's CPUID leaf 0x15 is not ours. */
			buf[2 + QPT_INTEL_PT_TSC_CTC_N] = 100;
			buf[2 + QPT_INTEL_PT_TSC_CTC_D] = 2;
			assert_memory_equal(buf, real, 0x98);
		}
	}
	/* A filter string: length, then the string padded to 8. */
	ctx.filter = "filter main @ /bin/ls";
	size = qpt_intel_pt_ops.info(&ctx, buf, sizeof(buf));
	assert_int_equal(size, 0x98 + 24);
	assert_int_equal(w[QPT_INTEL_PT_FILTER_STR_LEN], 21);
	assert_string_equal((const char *)(w + QPT_INTEL_PT_PRIV_NR),
			    ctx.filter);
	assert_int_equal(qpt_intel_pt_ops.info(&ctx, buf, 0x98), -ENOSPC);
	qpt_pmu_free(pmu);
}

/* The parameter-only filler gives the same words without sysfs. */
static void test_intel_pt_params(void **state)
{
	struct qpt_intel_pt_params p;
	uint64_t buf[32];

	qpt_intel_pt_params_default(&p);
	p.pmu_type = 9;
	p.snapshot_mode = true;
	assert_int_equal(qpt_intel_pt_info_fill(&p, buf, sizeof(buf)), 0x98);
	assert_int_equal(buf[2 + QPT_INTEL_PT_PMU_TYPE], 9);
	assert_int_equal(buf[2 + QPT_INTEL_PT_TSC_BIT], 0x400);
	assert_int_equal(buf[2 + QPT_INTEL_PT_NORETCOMP_BIT], 0x800);
	assert_int_equal(buf[2 + QPT_INTEL_PT_MTC_BIT], 0x200);
	assert_int_equal(buf[2 + QPT_INTEL_PT_MTC_FREQ_BITS], 0x3c000);
	assert_int_equal(buf[2 + QPT_INTEL_PT_CYC_BIT], 2);
	assert_int_equal(buf[2 + QPT_INTEL_PT_SNAPSHOT_MODE], 1);
}

static void test_intel_bts_info(void **state)
{
	struct perf_event_mmap_page page;
	struct qpt_auxtrace_ctx ctx;
	struct qpt_pmu *pmu;
	uint64_t buf[16];

	assert_int_equal(qpt_pmu_open(root, "intel_bts", &pmu), 0);
	memset(&page, 0, sizeof(page));
	page.time_shift = 10;
	page.time_mult = 20;
	page.time_zero = 30;
	memset(&ctx, 0, sizeof(ctx));
	ctx.pmu = pmu;
	ctx.page = &page;
	ctx.snapshot = true;
	assert_int_equal(qpt_intel_bts_ops.info(&ctx, buf, sizeof(buf)),
			 16 + 6 * 8);
	assert_int_equal(buf[1], QPT_AUXTRACE_INTEL_BTS);
	assert_int_equal(buf[2], 7);
	assert_int_equal(buf[3], 10);
	assert_int_equal(buf[4], 20);
	assert_int_equal(buf[5], 30);
	assert_int_equal(buf[6], 0);
	assert_int_equal(buf[7], 1);
	assert_ptr_equal(qpt_auxtrace_ops_find("intel_bts"),
			 &qpt_intel_bts_ops);
	assert_null(qpt_auxtrace_ops_find("cpu"));
	qpt_pmu_free(pmu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_parse),
	    cmocka_unit_test(test_pmu_open),
	    cmocka_unit_test(test_intel_pt_default),
	    cmocka_unit_test(test_intel_pt_terms),
	    cmocka_unit_test(test_other_pmus),
	    cmocka_unit_test(test_named_events),
	    cmocka_unit_test(test_builtin_intel_pt),
	    cmocka_unit_test(test_opts_sized),
	    cmocka_unit_test(test_intel_pt_info),
	    cmocka_unit_test(test_intel_pt_params),
	    cmocka_unit_test(test_intel_bts_info),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
