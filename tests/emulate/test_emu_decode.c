// SPDX-License-Identifier: MIT
/*
 * The emulated source against the ptrace ground truth, decoded by libipt:
 * each test program runs once under gt_step (an independent single-stepper)
 * and once under the emulator with an in-memory sink; libipt's instruction
 * decoder over each thread's stream, with the images the MMAP2 records name,
 * must give the ground truth's address sequence exactly, without errors.
 * With timing packets (TSC, MTC, CYC), libipt configured as the emulated
 * CPU (CTC ratio, MTC period, nominal ratio) gives each instruction a
 * time that never decreases and lies between host clock reads taken
 * before and after the run, no MTC or CYC is lost (libipt could use them
 * all), and MTC and CYC give more distinct times than TSC alone.
 *
 * argv[1]: gt_step, argv[2]: the folder of the test programs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "capture/emu_pt.h"
#include "capture/emu_trace.h"

#define MAX_T 8

static const char *gt_tool, *prog_dir;

struct seq {
	uint64_t *ip;
	size_t n, cap;
};

static void seq_add(struct seq *s, uint64_t ip)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->ip = realloc(s->ip, s->cap * sizeof(*s->ip));
		assert_non_null(s->ip);
	}
	s->ip[s->n++] = ip;
}

struct mem_thread {
	pid_t tid;
	uint8_t *buf;
	size_t n, cap;
	bool exited;
};

struct mem_map {
	uint64_t addr, len, pgoff;
	char name[4096];
};

struct mem_sink {
	struct mem_thread t[MAX_T];
	int nt;
	struct mem_map maps[128];
	int nmaps;
	int itrace_starts, forks, exits, comms;
};

static struct mem_thread *mem_find(struct mem_sink *s, pid_t tid)
{
	int i;

	for (i = 0; i < s->nt; i++)
		if (s->t[i].tid == tid)
			return &s->t[i];
	return NULL;
}

static int mem_thread_new(void *ctx, pid_t pid, pid_t tid)
{
	struct mem_sink *s = ctx;

	if (s->nt == MAX_T || mem_find(s, tid))
		return -EINVAL;
	s->t[s->nt++].tid = tid;
	return 0;
}

static int mem_aux(void *ctx, pid_t tid, const uint8_t *buf, size_t len)
{
	struct mem_thread *t = mem_find(ctx, tid);

	if (!t || t->exited)
		return -EINVAL;
	if (t->n + len > t->cap) {
		t->cap = (t->n + len) * 2;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			return -ENOMEM;
	}
	memcpy(t->buf + t->n, buf, len);
	t->n += len;
	return 0;
}

static int mem_record(void *ctx, pid_t tid, const struct perf_event_header *h)
{
	struct mem_sink *s = ctx;
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct mem_map *m;

	if (!mem_find(s, tid) || h->size % 8)
		return -EINVAL;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		if (s->nmaps == 128)
			return -ENOSPC;
		m = &s->maps[s->nmaps++];
		memcpy(&m->addr, p + 8, 8);
		memcpy(&m->len, p + 16, 8);
		memcpy(&m->pgoff, p + 24, 8);
		snprintf(m->name, sizeof(m->name), "%s", (const char *)p + 64);
		break;
	case PERF_RECORD_ITRACE_START:
		s->itrace_starts++;
		break;
	case PERF_RECORD_FORK:
		s->forks++;
		break;
	case PERF_RECORD_EXIT:
		s->exits++;
		break;
	case PERF_RECORD_COMM:
		s->comms++;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static int mem_thread_exit(void *ctx, pid_t tid)
{
	struct mem_thread *t = mem_find(ctx, tid);

	if (!t)
		return -EINVAL;
	t->exited = true;
	return 0;
}

static const struct emu_sink_ops mem_ops = {
    mem_thread_new, mem_aux, mem_record, mem_thread_exit, NULL,
};

/* Ground truth: per thread, in order of first appearance. */
static int ground_truth(const char *prog, struct seq *seqs)
{
	char out[] = "/tmp/qpt-gt-XXXXXX", line[128];
	pid_t tids[MAX_T];
	int fd, nt = 0, i, status;
	pid_t pid;
	FILE *f;

	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	pid = fork();
	if (!pid) {
		execl(gt_tool, gt_tool, out, "--", prog, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long ip;
		int tid;

		assert_int_equal(sscanf(line, "%d %llx", &tid, &ip), 2);
		for (i = 0; i < nt; i++)
			if (tids[i] == tid)
				break;
		if (i == nt) {
			assert_true(nt < MAX_T);
			tids[nt++] = tid;
		}
		seq_add(&seqs[i], ip);
	}
	fclose(f);
	unlink(out);
	return nt;
}

/* What the times libipt gives must respect, and what it gave. */
struct tcheck {
	const char *what;
	uint8_t mtc_period;
	uint64_t lo, hi;	/* host clock before and after the run */
	uint64_t distinct;	/* times differing from the one before */
};

static uint64_t host_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void check_time(struct pt_insn_decoder *dec, struct tcheck *tc,
		       uint64_t *last)
{
	uint64_t tsc = 0;
	uint32_t lost_mtc = 0, lost_cyc = 0;

	assert_int_equal(pt_insn_time(dec, &tsc, &lost_mtc, &lost_cyc), 0);
	if (tsc < *last || tsc < tc->lo || tsc > tc->hi)
		fail_msg("%s: libipt time %llu: last %llu, run %llu..%llu",
			 tc->what, (unsigned long long)tsc, (unsigned long long)*last,
			 (unsigned long long)tc->lo,
			 (unsigned long long)tc->hi);
	assert_int_equal(lost_mtc, 0);
	assert_int_equal(lost_cyc, 0);
	if (tsc != *last)
		tc->distinct++;
	*last = tsc;
}

static int decode(const struct mem_sink *s, const struct mem_thread *t,
		  struct seq *seq, struct tcheck *tc)
{
	uint64_t last = 0;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_config cfg;
	struct pt_insn insn;
	struct pt_event ev;
	int status, errors = 0, i;

	image = pt_image_alloc(NULL);
	assert_non_null(image);
	for (i = 0; i < s->nmaps; i++)
		pt_image_add_file(image, s->maps[i].name, s->maps[i].pgoff,
				  s->maps[i].len, NULL, s->maps[i].addr);
	pt_config_init(&cfg);
	cfg.begin = t->buf;
	cfg.end = t->buf + t->n;
	if (tc) {
		cfg.mtc_freq = tc->mtc_period;
		cfg.nom_freq = EMU_PT_CBR;
		cfg.cpuid_0x15_eax = EMU_PT_TSC_CTC_D;
		cfg.cpuid_0x15_ebx = EMU_PT_TSC_CTC_N;
	}
	dec = pt_insn_alloc_decoder(&cfg);
	assert_non_null(dec);
	pt_insn_set_image(dec, image);
	for (;;) {
		status = pt_insn_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			while (status & pts_event_pending) {
				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
			}
			if (status < 0)
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			seq_add(seq, insn.ip);
			if (tc)
				check_time(dec, tc, &last);
		}
		if (status == -pte_eos)
			break;
		print_error("libipt: %s\n", pt_errstr(pt_errcode(status)));
		errors++;
	}
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	return errors;
}

static void compare(const struct seq *want, const struct seq *got, int thr)
{
	size_t i, n = want->n < got->n ? want->n : got->n;

	for (i = 0; i < n; i++)
		if (want->ip[i] != got->ip[i])
			fail_msg("thread %d insn %zu: decoded %#llx, stepped "
				 "%#llx",
				 thr, i, (unsigned long long)got->ip[i],
				 (unsigned long long)want->ip[i]);
	if (want->n != got->n)
		fail_msg("thread %d: decoded %zu insns, stepped %zu", thr,
			 got->n, want->n);
}

static void run_opts(const char *name, struct emu_trace_opts *opts,
		     struct tcheck *tc)
{
	struct seq want[MAX_T], got[MAX_T];
	char prog[4096], vdso[] = "/tmp/qpt-vdso-XXXXXX";
	struct emu_trace_result res;
	struct mem_sink *s;
	int nt, i, fd;
	char *argv[2];

	memset(want, 0, sizeof(want));
	memset(got, 0, sizeof(got));
	snprintf(prog, sizeof(prog), "%s/%s", prog_dir, name);
	fd = mkstemp(vdso);
	assert_true(fd >= 0);
	close(fd);
	opts->vdso_path = vdso;
	nt = ground_truth(prog, want);
	s = calloc(1, sizeof(*s));
	assert_non_null(s);
	argv[0] = prog;
	argv[1] = NULL;
	if (tc)
		tc->lo = host_ns();
	assert_int_equal(emu_trace_run(argv, opts, &mem_ops, s, &res), 0);
	if (tc)
		tc->hi = host_ns();
	assert_int_equal(s->nt, nt);
	assert_int_equal(s->itrace_starts, nt);
	assert_int_equal(s->forks, nt - 1);
	assert_int_equal(s->exits, nt);
	assert_true(s->comms >= 1);
	for (i = 0; i < nt; i++) {
		assert_true(s->t[i].exited);
		assert_int_equal(decode(s, &s->t[i], &got[i], tc), 0);
		compare(&want[i], &got[i], i);
	}
	for (i = 0; i < MAX_T; i++) {
		free(want[i].ip);
		free(got[i].ip);
		if (i < s->nt)
			free(s->t[i].buf);
	}
	free(s);
	unlink(vdso);
}

static void run_prog(const char *name, bool retcomp, uint32_t psb)
{
	struct emu_trace_opts opts = {
	    .no_aslr = true,
	    .retcomp = retcomp,
	    .psb_period = psb,
	    .sample_id = 1,
	};

	run_opts(name, &opts, NULL);
}

/* Distinct libipt times of emu_flow_static with these timing packets. */
static uint64_t run_timed(bool mtc, bool cyc, uint8_t mtc_period)
{
	struct emu_trace_opts opts = {
	    .no_aslr = true,
	    .retcomp = true,
	    .tsc = true,
	    .mtc = mtc,
	    .cyc = cyc,
	    .mtc_period = mtc_period,
	    .sample_id = 1,
	};
	struct tcheck tc = {.mtc_period = mtc_period,
			    .what = mtc ? (cyc ? "mtc+cyc" : "mtc") :
					  (cyc ? "cyc" : "tsc")};

	run_opts("emu_flow_static", &opts, &tc);
	return tc.distinct;
}

static void test_flow_timing(void **state)
{
	uint64_t tsc = run_timed(false, false, 3);
	uint64_t mtc = run_timed(true, false, 3);
	uint64_t cyc = run_timed(false, true, 3);
	uint64_t all = run_timed(true, true, 3);

	print_message("distinct times: tsc %llu, mtc %llu, cyc %llu, "
		      "mtc+cyc %llu\n",
		      (unsigned long long)tsc, (unsigned long long)mtc,
		      (unsigned long long)cyc, (unsigned long long)all);
	assert_true(mtc > tsc);
	assert_true(cyc > tsc);
	assert_true(all > tsc);
}

#define PROG_TEST(n)                                                           \
	static void test_##n(void **state)                                     \
	{                                                                      \
		run_prog("emu_" #n, true, 0);                                  \
	}                                                                      \
	static void test_##n##_static(void **state)                            \
	{                                                                      \
		run_prog("emu_" #n "_static", true, 0);                        \
	}

PROG_TEST(flow)
PROG_TEST(sig)
PROG_TEST(crash)
PROG_TEST(threads)

static void test_flow_noretcomp(void **state)
{
	run_prog("emu_flow_static", false, 0);
}

static void test_flow_small_psb(void **state)
{
	run_prog("emu_flow", true, 256);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow),
	    cmocka_unit_test(test_flow_static),
	    cmocka_unit_test(test_flow_noretcomp),
	    cmocka_unit_test(test_flow_small_psb),
	    cmocka_unit_test(test_flow_timing),
	    cmocka_unit_test(test_sig),
	    cmocka_unit_test(test_sig_static),
	    cmocka_unit_test(test_crash),
	    cmocka_unit_test(test_crash_static),
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_threads_static),
	};

	if (argc < 3)
		return 77;
	gt_tool = argv[1];
	prog_dir = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
