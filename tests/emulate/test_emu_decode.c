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
 * The same engine on a simulated host that swallows single-step traps
 * (inject.h) after each kind of instruction: the decode is still the
 * ground truth (test_emu_swallow, this file built with EMU_SWALLOW_TESTS).
 *
 * argv[1]: gt_step, argv[2]: the folder of the test programs.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "capture/emulate/pt.h"
#include "capture/emulate/trace.h"
#include "gt_x86.h"
#include "inject.h"

#define MAX_T 8
#define GAP UINT64_MAX /* an overflow in the decoded sequence */

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
	char vdso[64]; /* the [vdso] bytes the engine handed on, in a file */
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

static int mem_vdso(void *ctx, pid_t pid, const uint8_t *buf, size_t len,
		    const uint8_t *bid, size_t bid_len)
{
	struct mem_sink *s = ctx;
	FILE *f = fopen(s->vdso, "w");

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

static const struct emu_sink_ops mem_ops = {
    .thread_new = mem_thread_new,
    .aux = mem_aux,
    .record = mem_record,
    .thread_exit = mem_thread_exit,
    .vdso = mem_vdso,
};

/* Ground truth (gt_step with @flag, e.g. "-s" "jcc", or none): per
 * thread, in order of first appearance; *@lost: the single-step traps
 * gt_step saw lost and recovered (without flags, those this host
 * swallows: some hypervisors swallow the trap after CPUID). */
static int step_truth(const char *prog, char *const *flags, struct seq *seqs,
		      unsigned long long *lost)
{
	char *args[8];
	int a = 0;
	char out[] = "/tmp/qpt-gt-XXXXXX", line[128];
	char err[] = "/tmp/qpt-gterr-XXXXXX";
	pid_t tids[MAX_T];
	int fd, efd, nt = 0, i, status;
	pid_t pid;
	FILE *f;

	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	efd = mkstemp(err);
	assert_true(efd >= 0);
	args[a++] = (char *)gt_tool;
	while (flags && *flags && a < 4)
		args[a++] = *flags++;
	args[a++] = out;
	args[a++] = (char *)"--";
	args[a++] = (char *)prog;
	args[a] = NULL;
	pid = fork();
	if (!pid) {
		dup2(efd, 2);
		execv(gt_tool, args);
		_exit(127);
	}
	close(efd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	f = fopen(err, "r");
	assert_non_null(f);
	*lost = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long n;

		if (sscanf(line, "gt_step: %llu lost", &n) == 1)
			*lost = n;
		fputs(line, stderr);
	}
	fclose(f);
	unlink(err);
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

/*
 * Ground truths already stepped in this process, by program and flags:
 * a program stepped again with the same arguments, environment and flags,
 * ASLR off and no install in between, steps the same addresses, so one
 * run serves every case that asks (stepping is most of this file's time).
 */
#define MEMO_MAX 24
static struct memo {
	char key[4200];
	int nt;
	unsigned long long lost;
	struct seq seqs[MAX_T];
} memo[MEMO_MAX];
static int nmemo;

static void memo_key(char *key, size_t size, const char *prog,
		     char *const *flags)
{
	size_t n = (size_t)snprintf(key, size, "%s", prog);

	while (flags && *flags && n < size)
		n += (size_t)snprintf(key + n, size - n, "\x1f%s", *flags++);
	assert_true(n < size);
}

static void seq_copy(struct seq *to, const struct seq *from)
{
	to->n = to->cap = from->n;
	to->ip = malloc((from->n ? from->n : 1) * sizeof(*to->ip));
	assert_non_null(to->ip);
	memcpy(to->ip, from->ip, from->n * sizeof(*to->ip));
}

static int ground_truth_lost(const char *prog, char *const *flags,
			     struct seq *seqs, unsigned long long *lost)
{
	char key[sizeof(memo[0].key)];
	struct memo *m;
	int i;

	memo_key(key, sizeof(key), prog, flags);
	for (m = memo; m < memo + nmemo && strcmp(m->key, key); m++)
		;
	if (m == memo + nmemo) {
		assert_true(nmemo < MEMO_MAX);
		memset(m, 0, sizeof(*m));
		strcpy(m->key, key);
		m->nt = step_truth(prog, flags, m->seqs, &m->lost);
		nmemo++;
	}
	for (i = 0; i < m->nt; i++)
		seq_copy(&seqs[i], &m->seqs[i]);
	if (lost)
		*lost = m->lost;
	return m->nt;
}

static int memo_free(void **state)
{
	int i, t;

	for (i = 0; i < nmemo; i++)
		for (t = 0; t < MAX_T; t++)
			free(memo[i].seqs[t].ip);
	nmemo = 0;
	return 0;
}

static int ground_truth(const char *prog, char *const *flags, struct seq *seqs)
{
	return ground_truth_lost(prog, flags, seqs, NULL);
}

/* What the times libipt gives must respect, and what it gave. */
struct tcheck {
	const char *what;
	uint8_t mtc_period;
	uint64_t lo, hi;	/* host clock before and after the run */
	uint64_t distinct;	/* times differing from the one before */
	uint64_t checks, lossy; /* times read, and those libipt says lost */
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
	/* libipt now and then says a CYC was lost (no calibration yet) in
	 * ASan runs under load, the times still in bounds: cause not found
	 * (see the session note); such times stay rare */
	tc->checks++;
	if (lost_mtc || lost_cyc)
		tc->lossy++;
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
		pt_image_add_file(
		    image,
		    strcmp(s->maps[i].name, "[vdso]") ? s->maps[i].name
						      : s->vdso,
		    s->maps[i].pgoff, s->maps[i].len, NULL, s->maps[i].addr);
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
				if (ev.type == ptev_overflow)
					seq_add(seq, GAP);
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

/* The decoded sequence against the ground truth: equal, but for two
 * instructions the ground truth has at each gap (overflow) the trace
 * shows.  Returns the gaps. */
static uint64_t compare(const struct seq *want, const struct seq *got, int thr)
{
	size_t i = 0, j;
	uint64_t gaps = 0;

	for (j = 0; j < got->n; j++) {
		if (got->ip[j] == GAP) {
			i += 2;
			gaps++;
			continue;
		}
		if (i >= want->n || want->ip[i] != got->ip[j])
			fail_msg("thread %d insn %zu: decoded %#llx, stepped "
				 "%#llx",
				 thr, i, (unsigned long long)got->ip[j],
				 i < want->n ? (unsigned long long)want->ip[i]
					     : 0ULL);
		i++;
	}
	if (i != want->n)
		fail_msg("thread %d: decoded %zu insns (%llu gaps), stepped "
			 "%zu",
			 thr, got->n, (unsigned long long)gaps, want->n);
	return gaps;
}

/*
 * @prog under the engine @opts (through @inj, the simulated host that
 * swallows traps, when not NULL) against the ground truth @want of @nt
 * threads: libipt's decode of each thread is the ground truth, gaps
 * aside, and there are as many gaps as traps swallowed where what ran
 * cannot be told (none on a real host).  @host_lost: the traps this host
 * itself swallows in @prog (gt_step's count), which the engine sees lost
 * too.
 */
static void run_engine(char *prog, const struct seq *want, int nt,
		       struct emu_trace_opts *opts, struct tcheck *tc,
		       struct inject *inj, unsigned long long host_lost)
{
	struct seq got[MAX_T];
	struct emu_trace_result res;
	struct mem_sink *s;
	uint64_t gaps = 0;
	int i, fd;
	char *argv[2];

	memset(got, 0, sizeof(got));
	s = calloc(1, sizeof(*s));
	assert_non_null(s);
	strcpy(s->vdso, "/tmp/qpt-vdso-XXXXXX");
	fd = mkstemp(s->vdso);
	assert_true(fd >= 0);
	close(fd);
	argv[0] = prog;
	argv[1] = NULL;
	if (inj) {
		opts->ptrace = &inject_ops;
		opts->ptrace_ctx = inj;
	}
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
		gaps += compare(&want[i], &got[i], i);
	}
	assert_int_equal(gaps, res.gaps);
	assert_int_equal(res.gaps, inj ? inj->twice_n : 0);
	/* the breakpoint engine runs straight-line code natively: it stops
	 * at branches and system calls, not at every instruction */
	print_message(
	    "%s (%s): %llu instructions, %llu stops, %llu loops "
	    "run natively (%llu trips)\n",
	    prog, opts->step ? "step" : "fast", (unsigned long long)res.insns,
	    (unsigned long long)res.stops, (unsigned long long)res.loops,
	    (unsigned long long)res.loop_trips);
	if (!opts->step)
		assert_true(res.stops * 2 < res.insns);
	else
		assert_int_equal(res.loops, 0);
	/* emu_loops: its loops of 3000, 1000 and 667 trips (one block,
	 * two) run natively, each stopping once or twice: one stop for 8
	 * instructions, where a stop at each jump makes one for 6 */
	if (!opts->step && strstr(prog, "emu_loops")) {
		assert_true(res.loop_trips > 9000);
		assert_true(res.stops * 8 < res.insns);
	}
	/* emu_ways: most of its conditional jumps run natively, no stop at
	 * them (one stop for 8.5 to 9 instructions, where a stop at each
	 * jump makes one for 6) */
	if (!opts->step && strstr(prog, "emu_ways"))
		assert_true(res.stops * 7 < res.insns);
	if (inj) {
		print_message("%s (%s): %lu traps swallowed, %llu seen lost, "
			      "%llu gaps\n",
			      prog, opts->step ? "step" : "fast",
			      inj->swallowed,
			      (unsigned long long)res.lost_traps,
			      (unsigned long long)res.gaps);
		assert_true(res.lost_traps <= inj->swallowed + host_lost);
		if (opts->step)
			assert_true(res.lost_traps > 0);
	}
	for (i = 0; i < MAX_T; i++) {
		free(got[i].ip);
		if (i < s->nt)
			free(s->t[i].buf);
	}
	unlink(s->vdso);
	free(s);
}

/*
 * Run @name under gt_step (with @gt_flags), then under both engines (the
 * breakpoint one, and the single-step one: the reference), each against
 * that ground truth.  With @inj, the engines see a host that swallows the
 * single-step traps of its kinds: the stepping engine meets them (and
 * recovers); where @fast_untouched, the breakpoint engine steps none of
 * those instructions and meets none.
 */
static void run_opts(const char *name, struct emu_trace_opts *opts,
		     struct tcheck *tc, struct inject *inj,
		     char *const *gt_flags, bool fast_untouched)
{
	struct seq want[MAX_T];
	char prog[4096];
	unsigned long long lost = 0;
	int nt, i, pass;

	memset(want, 0, sizeof(want));
	snprintf(prog, sizeof(prog), "%s/%s", prog_dir, name);
	nt = ground_truth_lost(prog, gt_flags, want, &lost);
	if (gt_flags)
		lost = 0; /* the simulated host's too: not this one's alone */
	/* a host that swallows traps itself (after CPUID) and one simulated
	 * on it that swallows the same trap after CPUID: two traps lost in
	 * a row where the simulation planned one (a gap no one can fill);
	 * on such a host test_cpuid is the real thing */
	if (inj && lost && (inj->kinds & gt_kinds("cpuid")) &&
	    inj->kinds != gt_kinds("all")) {
		print_message("skip: this host swallows %llu traps itself in "
			      "%s\n",
			      lost, name);
		for (i = 0; i < MAX_T; i++)
			free(want[i].ip);
		skip();
	}
	for (pass = 0; pass < 2; pass++) {
		opts->step = pass == 1;
		if (inj) {
			inj->swallowed = inj->twice_n = 0;
			inj->nt = 0;
		}
		run_engine(prog, want, nt, opts, tc, inj, lost);
		if (inj && opts->step)
			assert_true(inj->swallowed > 0);
		if (inj && !opts->step && fast_untouched)
			assert_int_equal(inj->swallowed, 0);
	}
	for (i = 0; i < MAX_T; i++)
		free(want[i].ip);
}

static void run_prog(const char *name, bool retcomp, uint32_t psb)
{
	struct emu_trace_opts opts = {
	    .no_aslr = true,
	    .retcomp = retcomp,
	    .psb_period = psb,
	    .sample_id = 1,
	};

	run_opts(name, &opts, NULL, NULL, NULL, false);
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

	run_opts("emu_flow_static", &opts, &tc, NULL, NULL, false);
	if (tc.lossy * 100 > tc.checks)
		fail_msg("%s: libipt lost timing packets at %llu of %llu times",
			 tc.what, (unsigned long long)tc.lossy,
			 (unsigned long long)tc.checks);
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

#define PROG_TEST_STATIC(n)                                                    \
	static void test_##n##_static(void **state)                            \
	{                                                                      \
		run_prog("emu_" #n "_static", true, 0);                        \
	}
#define PROG_TEST(n)                                                           \
	static void test_##n(void **state)                                     \
	{                                                                      \
		run_prog("emu_" #n, true, 0);                                  \
	}                                                                      \
	PROG_TEST_STATIC(n)

/* emu_flow linked both ways: ld.so's start, the PLT and a library's
 * calls.  The others static only: their subjects (signals, a crash,
 * threads, the breakpoint engine's native loops) are the engines' own
 * code, and emulate_perf_vs_gt, emulate_fast_vs_step, emulate_loops and
 * emulate_ways run their dynamic builds against the ground truth too. */
PROG_TEST(flow)
PROG_TEST_STATIC(sig)
PROG_TEST_STATIC(crash)
PROG_TEST_STATIC(threads)
PROG_TEST_STATIC(loops)
PROG_TEST_STATIC(ways)

/* Bound to the CPU it starts on, the run is as exact (the ground truth
 * unbound), and the tracing thread's affinity is put back after it. */
static void test_bound(void **state)
{
	struct emu_trace_opts opts = {
	    .no_aslr = true,
	    .retcomp = true,
	    .sample_id = 1,
	    .bind = true,
	    .cpu = -1,
	};
	cpu_set_t before, after;

	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	run_opts("emu_loops_static", &opts, NULL, NULL, NULL, false);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
}

static void test_flow_noretcomp(void **state)
{
	run_prog("emu_flow_static", false, 0);
}

static void test_flow_small_psb(void **state)
{
	run_prog("emu_flow_static", true, 256);
}

/* CPUID right before each kind of branch: on a host that swallows the trap
 * after CPUID this is the real thing; here as any program (the dynamic
 * one: emulate_perf_vs_gt's, and test_swallow_cpuid's where the host
 * does not swallow that trap itself). */
PROG_TEST_STATIC(cpuid)

/* The engine on a simulated host that swallows the trap after each
 * instruction of @kinds: the decode is still the ground truth. */
static void run_swallow(const char *name, const char *kinds, bool twice)
{
	struct emu_trace_opts opts = {
	    .no_aslr = true,
	    .retcomp = true,
	    .sample_id = 1,
	};
	/* not on the heap: run_opts may skip() out of here */
	static struct inject inj_mem;
	struct inject *inj = &inj_mem;

	memset(inj, 0, sizeof(*inj));
	inj->kinds = gt_kinds(kinds);
	assert_true(inj->kinds > 0);
	inj->twice = twice;
	run_opts(name, &opts, NULL, inj, NULL,
		 strcmp(kinds, "other") && strcmp(kinds, "all"));
	if (twice) { /* of the last pass: the stepping engine */
		assert_true(inj->twice_n > 0);
	}
}

#define SWALLOW_TEST(n, prog, kinds)                                           \
	static void test_swallow_##n(void **state)                             \
	{                                                                      \
		run_swallow(prog, kinds, false);                               \
	}

SWALLOW_TEST(jcc, "emu_flow_static", "jcc")
SWALLOW_TEST(jmp_ind, "emu_flow_static", "jmp-ind")
SWALLOW_TEST(call, "emu_flow_static", "call")
SWALLOW_TEST(call_ind, "emu_flow_static", "call-ind")
SWALLOW_TEST(ret, "emu_flow_static", "ret")
SWALLOW_TEST(other, "emu_flow_static", "other")
SWALLOW_TEST(cpuid, "emu_cpuid", "cpuid")
SWALLOW_TEST(cpuid_static, "emu_cpuid_static", "cpuid")
SWALLOW_TEST(all_threads, "emu_threads", "all")
SWALLOW_TEST(all_sig, "emu_sig_static", "all")
SWALLOW_TEST(all_crash, "emu_crash", "all")

/* Two traps in a row lost, the second after a Jcc: what ran cannot be
 * told: an overflow, and the trace goes on right after. */
static void test_swallow_gaps(void **state)
{
	run_swallow("emu_flow_static", "other", true);
}

/* Two traps in a row lost after CPUID, the second after a call (whose
 * callee starts with a Jcc): recovered through the call. */
static void test_swallow_chain(void **state)
{
	run_swallow("emu_cpuid_static", "cpuid", true);
}

/* gt_step on the same simulated host gives what it gives on this one. */
static void test_gt_swallow(void **state)
{
	static const char *const kinds[] = {"jcc",	"jmp-ind", "call",
					    "call-ind", "ret",	   "all"};
	struct seq want[MAX_T], got[MAX_T];
	char prog[4096], *flags[3] = {(char *)"-s", NULL, NULL};
	size_t k;
	int nt, i;

	snprintf(prog, sizeof(prog), "%s/emu_threads_static", prog_dir);
	memset(want, 0, sizeof(want));
	nt = ground_truth(prog, NULL, want);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		memset(got, 0, sizeof(got));
		flags[1] = (char *)kinds[k];
		assert_int_equal(ground_truth(prog, flags, got), nt);
		for (i = 0; i < nt; i++) {
			assert_int_equal(compare(&want[i], &got[i], i), 0);
			free(got[i].ip);
		}
	}
	for (i = 0; i < MAX_T; i++)
		free(want[i].ip);
}

/* The address emu_clone prints: its new thread's first instruction. */
static uint64_t clone_child_start(const char *prog)
{
	unsigned long long a = 0;
	char line[128];
	int pfd[2], status;
	pid_t pid;
	FILE *f;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		personality(ADDR_NO_RANDOMIZE);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "child %llx", &a);
	fclose(f);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(a != 0);
	return a;
}

/* A new thread's (and, with inherit, a forked or vforked child's) trace
 * starts at its first instruction, the one after the clone system call:
 * by the program's own label, in the ground truth and in the decode. */
static void test_clone_first(void **state)
{
	static const char *const progs[] = {"emu_clone", "emu_clone_static",
					    "emu_clone_fork",
					    "emu_clone_vfork"};
	char prog[4096], *flags[2] = {(char *)"-f", NULL};
	struct emu_trace_opts opts;
	struct seq want[MAX_T];
	uint64_t start;
	size_t p;
	int i;

	for (p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
		snprintf(prog, sizeof(prog), "%s/%s", prog_dir, progs[p]);
		start = clone_child_start(prog);
		memset(want, 0, sizeof(want));
		assert_int_equal(ground_truth(prog, flags, want), 2);
		assert_true(want[1].n > 5);
		assert_int_equal(want[1].ip[0], start);
		for (i = 0; i < MAX_T; i++)
			free(want[i].ip);
		/* and the engine's, decoded, is that ground truth */
		memset(&opts, 0, sizeof(opts));
		opts.no_aslr = true;
		opts.inherit = true;
		opts.retcomp = true;
		opts.sample_id = 1;
		run_opts(progs[p], &opts, NULL, NULL, flags, false);
	}
}

int main(int argc, char **argv)
{
	/* two programs of this file (CMakeLists.txt), run side by side */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow),
	    cmocka_unit_test(test_flow_static),
	    cmocka_unit_test(test_flow_noretcomp),
	    cmocka_unit_test(test_flow_small_psb),
	    cmocka_unit_test(test_flow_timing),
	    cmocka_unit_test(test_sig_static),
	    cmocka_unit_test(test_crash_static),
	    cmocka_unit_test(test_threads_static),
	    cmocka_unit_test(test_cpuid_static),
	    cmocka_unit_test(test_loops_static),
	    cmocka_unit_test(test_ways_static),
	    cmocka_unit_test(test_bound),
	    cmocka_unit_test(test_clone_first),
	};
	const struct CMUnitTest swallow[] = {
	    cmocka_unit_test(test_gt_swallow),
	    cmocka_unit_test(test_swallow_jcc),
	    cmocka_unit_test(test_swallow_jmp_ind),
	    cmocka_unit_test(test_swallow_call),
	    cmocka_unit_test(test_swallow_call_ind),
	    cmocka_unit_test(test_swallow_ret),
	    cmocka_unit_test(test_swallow_other),
	    cmocka_unit_test(test_swallow_cpuid),
	    cmocka_unit_test(test_swallow_cpuid_static),
	    cmocka_unit_test(test_swallow_all_threads),
	    cmocka_unit_test(test_swallow_all_sig),
	    cmocka_unit_test(test_swallow_all_crash),
	    cmocka_unit_test(test_swallow_gaps),
	    cmocka_unit_test(test_swallow_chain),
	};

	if (argc < 3)
		return 77;
	gt_tool = argv[1];
	prog_dir = argv[2];
#ifdef EMU_SWALLOW_TESTS
	(void)tests;
	return cmocka_run_group_tests(swallow, NULL, memo_free);
#else
	(void)swallow;
	return cmocka_run_group_tests(tests, NULL, memo_free);
#endif
}
