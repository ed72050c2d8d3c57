// SPDX-License-Identifier: MIT
/*
 * The LBR parts against tables worked out by hand from the hardware's
 * rules: perf_branch_entry flag words (the kernel's bitfield layout), the
 * tracker's ring and call stack (hw_idx as the TOS slot), how trace ends
 * and begins become branches, and stitching: a recursion deeper than a
 * 4-slot call-stack LBR whose unwinding loses main's frame for good, given
 * back from the thread's memory (where perf's --stitch-lbr, matching only
 * the previous sample, cannot).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <intel-pt.h>
#include <stdio.h>
#include <unistd.h>

#include "pt_packets.h"

#include "qpt/lbr.h"
#include "qpt/reader.h"

/* ---- perf flags ---- */

static void test_perf_flags(void **state)
{
	struct qpt_lbr_entry e = { 0x10, 0x20, 5, QPT_BR_CALL,
				   QPT_LBR_MISPRED | QPT_LBR_IN_TX }, back;
	uint64_t f = qpt_lbr_entry_perf_flags(&e);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* mispred bit 0, in_tx bit 2, cycles bits 4-19, type bits 20-23 */
	assert_int_equal(f, 1 | 4 | (5 << 4) | ((uint64_t)PERF_BR_CALL << 20));
#endif
	qpt_lbr_entry_from_perf(0x10, 0x20, f, &back);
	assert_memory_equal(&e, &back, sizeof(e));
	e.cycles = 100000; /* saturates at 16 bits */
	qpt_lbr_entry_from_perf(1, 2, qpt_lbr_entry_perf_flags(&e), &back);
	assert_int_equal(back.cycles, 0xffff);
	assert_int_equal(qpt_lbr_kind_to_perf(QPT_BR_JCC), PERF_BR_COND);
	assert_int_equal(qpt_lbr_kind_to_perf(QPT_BR_TRACE_END),
			 PERF_BR_UNKNOWN);
	assert_int_equal(qpt_lbr_kind_from_perf(PERF_BR_UNKNOWN), QPT_BR_NR);
	assert_int_equal(qpt_lbr_kind_from_perf(PERF_BR_RET), QPT_BR_RET);
}

/*
 * An entry from perf into the caller's size (see qpt.h): a newer
 * caller's larger struct gets zeros past the library's; a size below the
 * first version's is refused, the struct untouched.
 */
static void test_from_perf_sized(void **state)
{
	struct qpt_lbr_entry e = { 0x10, 0x20, 5, QPT_BR_RET, QPT_LBR_ABORT };
	union {
		struct qpt_lbr_entry e;
		uint8_t b[sizeof(struct qpt_lbr_entry) + 8];
	} u;
	uint64_t f = qpt_lbr_entry_perf_flags(&e);
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	assert_int_equal(qpt_lbr_entry_from_perf_sized(0x10, 0x20, f, &u.e,
						       sizeof(u)),
			 0);
	assert_memory_equal(&u.e, &e, sizeof(e));
	for (i = sizeof(e); i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0);
	memset(&u, 0xa5, sizeof(u));
	assert_int_equal(qpt_lbr_entry_from_perf_sized(
			     0x10, 0x20, f, &u.e,
			     offsetof(struct qpt_lbr_entry, flags)),
			 -QPT_E_INVAL);
	for (i = 0; i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0xa5);
	assert_int_equal(qpt_lbr_entry_from_perf(0x10, 0x20, f, NULL),
			 -QPT_E_INVAL);
}

/* A branch stack with hw_idx and Linux 6.8's counters (a u64 per entry
 * after the entries): the field after them (weight) is found. */
static void test_parse_counters(void **state)
{
	static const uint64_t rec[] = {
		(uint64_t)PERF_RECORD_SAMPLE | (uint64_t)(13 * 8) << 48,
		0x401000,	      /* ip */
		2, 7,		      /* nr, hw_idx */
		0x10, 0x20, 0,	      /* entry 0 */
		0x30, 0x40, 0,	      /* entry 1 */
		0xc0, 0xc1,	      /* counters */
		99,		      /* weight */
	};
	struct qpt_attr a;
	struct qpt_sample s;

	memset(&a, 0, sizeof(a));
	a.attr.size = sizeof(a.attr);
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK |
			     PERF_SAMPLE_WEIGHT;
	a.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				    PERF_SAMPLE_BRANCH_HW_INDEX |
				    QPT_SAMPLE_BRANCH_COUNTERS;
	assert_int_equal(qpt_sample_parse(&a, rec, 13 * 8, &s), 0);
	assert_int_equal(s.branch_nr, 2);
	assert_int_equal(s.branch_hw_idx, 7);
	assert_int_equal(s.branches[1].to, 0x40);
	assert_int_equal(s.weight, 99);
	/* without the counters bit the counters would be the weight */
	a.attr.branch_sample_type &= ~QPT_SAMPLE_BRANCH_COUNTERS;
	assert_int_equal(qpt_sample_parse(&a, rec, 13 * 8, &s), 0);
	assert_int_equal(s.weight, 0xc0);
}

/* ---- CYC cycles on branches ---- */

/* 0x1000: xor eax,eax; jz 0x1008; nop x4; call 0x1010; nop; syscall; ret */
static const uint8_t code[] = {
	0x31, 0xc0, 0x74, 0x04, 0x90, 0x90, 0x90, 0x90,
	0xe8, 0x03, 0x00, 0x00, 0x00, 0x90, 0x0f, 0x05, 0xc3,
};

static int cyc_branch(const struct qpt_item *it, void *ctx)
{
	uint64_t *c = ctx;

	if (it->type == QPT_ITEM_BRANCH && c[0] < 15)
		c[c[0]++ + 1] = it->cycles;
	return 0;
}

/*
 * TIP.PGE, CYC 5, TNT (jz taken), CYC 7, TIP (the ret), CYC 11, TIP.PGD
 * (the syscall): the trace begin gets 0, the jz 5 (the cycles up to its
 * TNT), the direct call (no packet) 0, the ret 7, the trace end 11.  Then
 * CYC 3, TIP.PGE, CYC 2, TNT (jz not taken), CYC 13, TIP (ret), CYC 1,
 * TIP.PGD: the begin 3, the call the 2 of the jz not taken before it, the
 * ret 13, the end 1.
 */
static void test_cyc_cycles(void **state)
{
	uint8_t trace[256];
	char path[] = "/tmp/qpt-test-cyc-XXXXXX";
	struct qpt_decoder_opts o;
	struct qpt_decoder *dec;
	struct pt_encoder *enc;
	uint64_t off, c[16] = { 0 };

	pt_code_file(path, code, sizeof(code));
	enc = pt_begin(trace, sizeof(trace), 0x1000);
	pt_put(enc, ppt_cyc, 5);
	pt_put(enc, ppt_tnt_8, 1);
	pt_put(enc, ppt_cyc, 7);
	pt_put(enc, ppt_tip, 0x100d);
	pt_put(enc, ppt_cyc, 11);
	pt_put(enc, ppt_tip_pgd, 0);
	pt_put(enc, ppt_cyc, 3);
	pt_put(enc, ppt_tip_pge, 0x1000);
	pt_put(enc, ppt_cyc, 2);
	pt_put(enc, ppt_tnt_8, 0);
	pt_put(enc, ppt_cyc, 13);
	pt_put(enc, ppt_tip, 0x100d);
	pt_put(enc, ppt_cyc, 1);
	pt_put(enc, ppt_tip_pgd, 0);
	off = pt_end(enc);
	qpt_decoder_opts_init(&o);
	o.want = QPT_WANT_BRANCH | QPT_WANT_CYCLES;
	assert_int_equal(qpt_decoder_new(&o, &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, path, 0x1000), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, trace, off, cyc_branch, c),
			 0);
	{
		static const uint64_t want[] = { 0, 5, 0, 7, 11, 3, 2, 13, 1 };

		assert_int_equal(c[0], 9);
		assert_memory_equal(c + 1, want, sizeof(want));
	}
	/* without QPT_WANT_CYCLES: none */
	memset(c, 0, sizeof(c));
	o.want = QPT_WANT_BRANCH;
	qpt_decoder_free(dec);
	assert_int_equal(qpt_decoder_new(&o, &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, path, 0x1000), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, trace, off, cyc_branch, c),
			 0);
	assert_int_equal(c[0], 9);
	for (off = 1; off <= 9; off++)
		assert_int_equal(c[off], 0);
	qpt_decoder_free(dec);
	unlink(path);
}

/* ---- the tracker over hand-made items ---- */

struct got {
	struct qpt_lbr_record rec[8];
	struct qpt_lbr_entry ent[8][8];
	int n;
};

static int keep(const struct qpt_lbr_record *r, void *ctx)
{
	struct got *g = ctx;

	assert_true(g->n < 8 && r->nr <= 8);
	assert_int_equal(r->struct_size, sizeof(*r));
	assert_int_equal(r->entry_size, sizeof(*r->entries));
	g->rec[g->n] = *r;
	memcpy(g->ent[g->n], r->entries, r->nr * sizeof(*r->entries));
	g->n++;
	return 0;
}

static void branch(struct qpt_lbr *l, unsigned kind, uint64_t from,
		   uint64_t to, unsigned via)
{
	struct qpt_item it;

	memset(&it, 0, sizeof(it));
	it.struct_size = sizeof(it);
	it.type = QPT_ITEM_BRANCH;
	it.kind = kind;
	it.ip = from;
	it.to = to;
	it.via = via;
	it.tid = 7;
	it.pid = 7;
	it.flags = QPT_ITEM_HAS_TID;
	assert_int_equal(qpt_lbr_item(&it, l), 0);
}

static struct qpt_lbr *tracker(struct got *g, unsigned depth, unsigned mode)
{
	struct qpt_lbr_opts o;
	struct qpt_lbr *l;

	memset(g, 0, sizeof(*g));
	qpt_lbr_opts_init(&o);
	o.depth = depth;
	o.mode = mode;
	assert_int_equal(qpt_lbr_new(&o, keep, g, &l), 0);
	return l;
}

static void test_ring_and_trace_gaps(void **state)
{
	struct got g;
	struct qpt_lbr *l = tracker(&g, 3, QPT_LBR_ANY);

	branch(l, QPT_BR_TRACE_BEGIN, 0, 0x100, QPT_BR_NR);
	branch(l, QPT_BR_JMP, 0x100, 0x110, QPT_BR_NR);
	/* a syscall returning to the next instruction: no branch */
	branch(l, QPT_BR_TRACE_END, 0x110, 0, QPT_BR_SYSCALL);
	branch(l, QPT_BR_TRACE_BEGIN, 0, 0x112, QPT_BR_NR);
	/* a syscall that enters a signal handler: one branch */
	branch(l, QPT_BR_TRACE_END, 0x120, 0, QPT_BR_SYSCALL);
	branch(l, QPT_BR_TRACE_BEGIN, 0, 0x900, QPT_BR_NR);
	/* an interrupt resuming where it stopped: none */
	branch(l, QPT_BR_TRACE_END, 0x904, 0, QPT_BR_ASYNC);
	branch(l, QPT_BR_TRACE_BEGIN, 0, 0x904, QPT_BR_NR);
	branch(l, QPT_BR_RET, 0x908, 0x700, QPT_BR_NR);
	branch(l, QPT_BR_CALL, 0x700, 0x800, QPT_BR_NR);
	/* a fault at 0x810 into a handler, then the end */
	branch(l, QPT_BR_TRACE_END, 0x810, 0, QPT_BR_ASYNC);
	branch(l, QPT_BR_TRACE_BEGIN, 0, 0xa00, QPT_BR_NR);
	branch(l, QPT_BR_TRACE_END, 0xa08, 0, QPT_BR_ASYNC);
	assert_int_equal(qpt_lbr_finish(l), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.rec[0].point, QPT_LBR_AT_CRASH);
	assert_int_equal(g.rec[0].ip, 0xa08);
	assert_int_equal(g.rec[0].nr, 3);
	assert_int_equal(g.ent[0][0].from, 0x810);
	assert_int_equal(g.ent[0][0].to, 0xa00);
	assert_int_equal(g.ent[0][0].kind, QPT_BR_ASYNC);
	assert_int_equal(g.ent[0][1].from, 0x700);
	assert_int_equal(g.ent[0][2].from, 0x908);
	/* 5 entries went into 3 slots: the newest in slot 4 % 3 */
	assert_int_equal(g.rec[0].hw_idx, 1);
	qpt_lbr_free(l);
}

static void test_call_stack_mode(void **state)
{
	struct got g;
	struct qpt_lbr *l = tracker(&g, 2, QPT_LBR_CALL_STACK);

	branch(l, QPT_BR_CALL, 0x10, 0x100, QPT_BR_NR);	    /* slot 0 */
	branch(l, QPT_BR_JCC, 0x104, 0x108, QPT_BR_NR);	    /* not kept */
	branch(l, QPT_BR_IND_CALL, 0x110, 0x200, QPT_BR_NR); /* slot 1 */
	branch(l, QPT_BR_CALL, 0x210, 0x300, QPT_BR_NR);    /* slot 0 */
	branch(l, QPT_BR_RET, 0x310, 0x214, QPT_BR_NR);	    /* pops slot 0 */
	assert_int_equal(qpt_lbr_finish(l), 0);
	assert_int_equal(g.rec[0].hw_idx, 1);
	/* the call in slot 0 was overwritten, then popped: one left */
	assert_int_equal(g.rec[0].nr, 1);
	assert_int_equal(g.ent[0][0].from, 0x110);
	qpt_lbr_free(l);
}

static void test_points(void **state)
{
	struct got g;
	struct qpt_lbr_opts o;
	struct qpt_lbr *l;
	struct qpt_item it;
	int i;

	memset(&g, 0, sizeof(g));
	qpt_lbr_opts_init(&o);
	o.period = 2;
	o.no_end = true;
	assert_int_equal(qpt_lbr_new(&o, keep, &g, &l), 0);
	assert_int_equal(qpt_lbr_add_point(l, 7, 1500, 0x55), 0);
	memset(&it, 0, sizeof(it));
	it.type = QPT_ITEM_INSN;
	it.tid = 7;
	it.flags = QPT_ITEM_HAS_TID | QPT_ITEM_HAS_TIME;
	/* an item of no known size is refused */
	assert_int_equal(qpt_lbr_item(&it, l), -QPT_E_INVAL);
	it.struct_size = sizeof(it);
	for (i = 0; i < 5; i++) {
		it.ip = 0x1000 + i;
		it.time = 1000 * (uint64_t)i;
		assert_int_equal(qpt_lbr_item(&it, l), 0);
	}
	assert_int_equal(qpt_lbr_finish(l), 0);
	/* periods before instructions 2 and 4, the sample before 2000 */
	assert_int_equal(g.n, 3);
	assert_int_equal(g.rec[0].point, QPT_LBR_AT_SAMPLE);
	assert_int_equal(g.rec[0].ip, 0x55);
	assert_int_equal(g.rec[1].point, QPT_LBR_AT_PERIOD);
	assert_int_equal(g.rec[1].ip, 0x1002);
	assert_int_equal(g.rec[2].ip, 0x1004);
	qpt_lbr_free(l);
	o.depth = 0;
	assert_int_equal(qpt_lbr_new(&o, keep, &g, &l), -QPT_E_INVAL);
	o.depth = QPT_LBR_MAX_DEPTH + 1;
	assert_int_equal(qpt_lbr_new(&o, keep, &g, &l), -QPT_E_INVAL);
}

/* A malformed sample file: the tracker's error is the reader's (the
 * oracle: the same file through qpt_reader_open), kept in the tracker. */
static void test_file_samples_error(void **state)
{
	char path[] = "/tmp/qpt-test-lbrerr-XXXXXX";
	/* PERFILE2 with a header size that is not 104 */
	static const uint8_t bad[16] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2',
					0xff, 0xff};
	struct qpt_reader *r = NULL;
	struct qpt_lbr *l;
	struct got g;
	int fd, err, rerr;

	memset(&g, 0, sizeof(g));
	assert_int_equal(qpt_lbr_new(NULL, keep, &g, &l), 0);
	assert_string_equal(qpt_lbr_errmsg(l), "");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bad, sizeof(bad)), (int)sizeof(bad));
	close(fd);
	rerr = qpt_reader_open(path, NULL, &r);
	assert_true(rerr < 0);
	assert_non_null(r);
	err = qpt_lbr_add_file_samples(l, path);
	assert_int_equal(err, rerr);
	assert_string_not_equal(qpt_reader_errmsg(r), "");
	assert_string_equal(qpt_lbr_errmsg(l), qpt_reader_errmsg(r));
	assert_int_equal(qpt_lbr_errpos(l), qpt_reader_errpos(r));
	qpt_reader_free(r);
	unlink(path);
	/* a missing file: -ENOENT, and the earlier message is gone */
	assert_int_equal(qpt_lbr_add_file_samples(l, path), -ENOENT);
	assert_string_equal(qpt_lbr_errmsg(l), "");
	qpt_lbr_free(l);
	assert_string_equal(qpt_lbr_errmsg(NULL), "");
}

/*
 * Options of another version (libipt's convention): init writes no byte
 * past the caller's size and records that size; the tracker takes an
 * older (smaller) struct with defaults for the rest, and a newer (larger)
 * one whose bytes it does not know are zero, but not one with them set.
 */
static void test_opts_sized(void **state)
{
	size_t old = offsetof(struct qpt_lbr_opts, period);
	struct {
		struct qpt_lbr_opts o;
		uint8_t later[8];
	} big;
	union {
		struct qpt_lbr_opts o;
		uint8_t b[sizeof(struct qpt_lbr_opts)];
	} u;
	struct qpt_lbr *l;
	struct got g;
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	qpt_lbr_opts_init_sized(&u.o, old);
	assert_int_equal(u.o.size, old);
	assert_int_equal(u.o.depth, 32);
	for (i = old; i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0xa5);
	u.o.depth = 4;
	memset(&g, 0, sizeof(g));
	assert_int_equal(qpt_lbr_new(&u.o, keep, &g, &l), 0);
	qpt_lbr_free(l);
	memset(&big, 0xa5, sizeof(big));
	qpt_lbr_opts_init_sized(&big.o, sizeof(big));
	assert_int_equal(big.o.size, sizeof(big));
	for (i = 0; i < sizeof(big.later); i++)
		assert_int_equal(big.later[i], 0);
	assert_int_equal(qpt_lbr_new(&big.o, keep, &g, &l), 0);
	qpt_lbr_free(l);
	big.later[3] = 1;
	assert_int_equal(qpt_lbr_new(&big.o, keep, &g, &l), -QPT_E_INVAL);
}

/* ---- stitching ---- */

/* Calls of the program below: _start->main, main->rec, rec->rec,
 * main->f, f->g. */
static const struct qpt_lbr_entry A = { 0x100, 0x200, 0, QPT_BR_CALL, 0 },
				  B = { 0x210, 0x300, 0, QPT_BR_CALL, 0 },
				  R = { 0x310, 0x300, 0, QPT_BR_CALL, 0 },
				  F = { 0x220, 0x400, 0, QPT_BR_CALL, 0 },
				  G = { 0x410, 0x500, 0, QPT_BR_CALL, 0 };

struct sample {
	struct qpt_lbr_entry e[4];
	size_t nr;
	uint64_t hw_idx;
	/* want */
	size_t frames, stitched;
};

/*
 * A 4-slot call-stack LBR, the first call in slot 0 (depth d in slot
 * (d + 3) % 4).  The samples and what a whole stack is at each:
 *  depth 2  [B A]
 *  depth 5  [R R R B] + A
 *  depth 7  [R R R R] + R B A (the depth-4 frame was seen at depth 5)
 *  the recursion unwinds to main (depth 1; every slot popped or lost),
 *  main calls f and f calls g:
 *  depth 3  [G F] + A: A's slot was overwritten at depth 5; only the
 *           memory has it
 *  depth 3 again, the same.
 */
static const struct sample samples[] = {
	{ { B, A }, 2, 1, 2, 0 },
	{ { R, R, R, B }, 4, 0, 5, 1 },
	{ { R, R, R, R }, 4, 2, 7, 3 },
	{ { G, F }, 2, 2, 3, 1 },
	{ { G, F }, 2, 2, 3, 1 },
};

static void test_stitch_recursion(void **state)
{
	const struct qpt_lbr_entry *fr;
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st;
	size_t i, stitched;
	int n;

	qpt_lbr_stitch_opts_init(&o);
	o.max_lbr = 4;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), 0);
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];

		n = qpt_lbr_stitch_sample(st, 1, s->e, s->nr, s->hw_idx, &fr,
					  &stitched);
		assert_int_equal(n, s->frames);
		assert_int_equal(stitched, s->stitched);
		assert_memory_equal(fr, s->e, s->nr * sizeof(*fr));
		/* the outermost frame is always _start -> main */
		assert_int_equal(fr[n - 1].from, A.from);
	}
	/* [G F] at depth 3: F, then A from memory */
	assert_int_equal(fr[2].from, A.from);
	/* another thread has its own memory: nothing to stitch */
	n = qpt_lbr_stitch_sample(st, 2, samples[3].e, 2, 2, &fr, &stitched);
	assert_int_equal(n, 2);
	assert_int_equal(stitched, 0);
	qpt_lbr_stitch_free(st);
}

/*
 * A caller built against a later, larger struct qpt_lbr_entry (a field
 * added at its end): the same samples give the same frames, at the
 * caller's stride, with the unknown field zero.  The oracle: the
 * library's own struct through qpt_lbr_stitch_sample.
 */
struct later_entry {
	struct qpt_lbr_entry e;
	uint64_t later;
};

static void test_stitch_sized(void **state)
{
	const struct qpt_lbr_entry *fr, *got;
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st, *st2;
	struct later_entry in[4];
	size_t i, j, stitched, stitched2;
	int n;

	qpt_lbr_stitch_opts_init(&o);
	o.max_lbr = 4;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), 0);
	assert_int_equal(qpt_lbr_stitch_new(&o, &st2), 0);
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];

		for (j = 0; j < s->nr; j++) {
			in[j].e = s->e[j];
			in[j].later = 0xdeadbeef;
		}
		n = qpt_lbr_stitch_sample(st, 1, s->e, s->nr, s->hw_idx, &fr,
					  &stitched);
		assert_int_equal(qpt_lbr_stitch_sample_sized(
				     st2, 1, &in[0].e, s->nr, s->hw_idx, &got,
				     &stitched2, sizeof(in[0])),
				 n);
		assert_int_equal(stitched2, stitched);
		for (j = 0; j < (size_t)n; j++) {
			const struct later_entry *le =
			    (const struct later_entry *)got + j;

			assert_memory_equal(&le->e, &fr[j], sizeof(fr[j]));
			assert_int_equal(le->later, 0);
		}
	}
	assert_int_equal(qpt_lbr_stitch_sample_sized(st2, 1, &in[0].e, 1, 0,
						     &got, &stitched2, 8),
			 -QPT_E_INVAL);
	qpt_lbr_stitch_free(st);
	qpt_lbr_stitch_free(st2);
}

/* A full first sample cannot tell depths: nothing is stitched until a
 * sample that fits the LBR comes. */
static void test_stitch_full_first(void **state)
{
	const struct qpt_lbr_entry *fr;
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st;
	size_t stitched;

	qpt_lbr_stitch_opts_init(&o);
	o.max_lbr = 4;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), 0);
	assert_int_equal(qpt_lbr_stitch_sample(st, 1, samples[2].e, 4, 2, &fr,
					       &stitched), 4);
	assert_int_equal(stitched, 0);
	assert_int_equal(qpt_lbr_stitch_sample(st, 1, samples[3].e, 2, 2, &fr,
					       &stitched), 2);
	assert_int_equal(stitched, 0);
	qpt_lbr_stitch_free(st);
	o.max_lbr = 0;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), -QPT_E_INVAL);
	o.max_lbr = 32;
	o.size = 3;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), -QPT_E_INVAL);
}

/* With a link function that says no frame links (as symbols could say
 * of a tail call), the depth-3 sample has no evidence for any depth: it
 * is left as the LBR has it, and the memory as it was. */
static bool never(uint64_t to, uint64_t from, void *ctx)
{
	(*(int *)ctx)++;
	return false;
}

static void test_stitch_link_fn(void **state)
{
	const struct qpt_lbr_entry *fr;
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st;
	size_t i, stitched;
	int calls = 0, n = 0;

	qpt_lbr_stitch_opts_init(&o);
	o.max_lbr = 4;
	o.link = never;
	o.link_ctx = &calls;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), 0);
	for (i = 0; i < 4; i++)
		n = qpt_lbr_stitch_sample(st, 1, samples[i].e, samples[i].nr,
					  samples[i].hw_idx, &fr, &stitched);
	assert_true(calls > 0);
	assert_int_equal(n, 2);
	assert_int_equal(stitched, 0);
	/* the memory still has the depth-7 stack: the next depth-7 sample
	 * is stitched by it */
	n = qpt_lbr_stitch_sample(st, 1, samples[2].e, 4, 2, &fr, &stitched);
	assert_int_equal(n, 7);
	assert_int_equal(stitched, 3);
	qpt_lbr_stitch_free(st);
}

/*
 * The depth from links alone: [B A] at depth 2, then [R R R R] at depth
 * 6 (the depth-3 frame never seen: R links to B's callee), then [R R R R]
 * at depth 8 (depths 4 and 12 are congruent too: depth 4 would make R the
 * outermost call although R's function is entered by calls, depth 12
 * needs frames never seen), then an empty LBR (no evidence: not stitched,
 * the memory kept), then [G F] at depth 3.
 */
static void test_stitch_links_and_empty(void **state)
{
	static const struct sample seq[] = {
		{ { B, A }, 2, 1, 2, 0 },
		{ { R, R, R, R }, 4, 1, 6, 2 },
		{ { R, R, R, R }, 4, 3, 8, 4 },
		{ { A }, 0, 0, 0, 0 },
		{ { G, F }, 2, 2, 3, 1 },
	};
	const struct qpt_lbr_entry *fr;
	struct qpt_lbr_stitch_opts o;
	struct qpt_lbr_stitch *st;
	size_t i, stitched;

	qpt_lbr_stitch_opts_init(&o);
	o.max_lbr = 4;
	assert_int_equal(qpt_lbr_stitch_new(&o, &st), 0);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		assert_int_equal(qpt_lbr_stitch_sample(st, 1, seq[i].e,
						       seq[i].nr,
						       seq[i].hw_idx, &fr,
						       &stitched),
				 seq[i].frames);
		assert_int_equal(stitched, seq[i].stitched);
	}
	assert_int_equal(fr[2].from, A.from);
	qpt_lbr_stitch_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_flags),
		cmocka_unit_test(test_from_perf_sized),
		cmocka_unit_test(test_parse_counters),
		cmocka_unit_test(test_cyc_cycles),
		cmocka_unit_test(test_ring_and_trace_gaps),
		cmocka_unit_test(test_call_stack_mode),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_file_samples_error),
		cmocka_unit_test(test_opts_sized),
		cmocka_unit_test(test_stitch_recursion),
		cmocka_unit_test(test_stitch_sized),
		cmocka_unit_test(test_stitch_full_first),
		cmocka_unit_test(test_stitch_link_fn),
		cmocka_unit_test(test_stitch_links_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
