// SPDX-License-Identifier: MIT
/*
 * The crash walk (qpt/crash_walk.h) against a ground truth: a simulated
 * program run by this test emits the items a decoder would (instructions,
 * calls, returns, taken jumps, system calls, signals into a handler and
 * sigreturn back, as trace ends and begins) for two interleaved threads,
 * and keeps what really happened: its call stack with signal frames,
 * every instruction, and every branch an LBR records (the taken ones, a
 * signal's jump into the handler, sigreturn's jump back; not a system
 * call that returns to the next instruction).  The walk's stack, last
 * branches and last instructions must be that truth's, past the wrap of
 * its instruction ring.  Then tables worked out by hand: a window that
 * begins mid-stack (returns below its first frame), a recursion deeper
 * than the window, and the API's sizes, options and errors.  Last, the
 * walk over the decoder's own items: a program of two calls that faults,
 * its trace written by libipt's encoder.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <unistd.h>

#include "pt_packets.h"
#include "qpt/crash_walk.h"

/* ---- the simulated program and its truth ---- */

#define NR_FUNCS 8
#define HANDLER NR_FUNCS /* the signal handler's function */
#define FUNC_BASE(f) (0x400000ull + (uint64_t)(f)*0x100000ull)

static const char *const names[NR_FUNCS + 1] = {
    "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "handler",
};

struct sim_tail {
	bool on;
	uint64_t from, symoff;
	unsigned func;
};

struct sim_frame {
	uint64_t site, symoff, back; /* back: where it resumes */
	unsigned func;		     /* the caller's */
	bool signal;
	struct sim_tail tail; /* how the caller was entered */
};

struct sim_thread {
	int32_t tid;
	uint64_t pc;
	unsigned func;
	struct sim_frame stack[64];
	size_t depth;
	struct qpt_crash_insn *insns; /* every instruction, oldest first */
	size_t nr_insns, cap_insns;
	struct qpt_lbr_entry *lbr; /* every LBR branch, oldest first */
	size_t nr_lbr, cap_lbr;
	uint64_t end_ip; /* the last instruction or trace end */
	unsigned end_func;
	unsigned seed;
	struct sim_tail tail; /* how the current function was entered */
	unsigned longjmps, tails;
};

static unsigned rnd(struct sim_thread *s)
{
	s->seed = s->seed * 1103515245u + 12345u;
	return (s->seed >> 16) & 0x7fff;
}

/* An item of thread @tid at @ip in @sym (which begins at @base). */
static void item_make(struct qpt_item *it, unsigned type, unsigned kind,
		      int32_t tid, uint64_t ip, const char *sym, uint64_t base)
{
	memset(it, 0, sizeof(*it));
	it->struct_size = sizeof(*it);
	it->type = type;
	it->kind = kind;
	it->via = QPT_BR_NR;
	it->flags = QPT_ITEM_HAS_TID;
	it->pid = 7;
	it->tid = tid;
	it->ip = ip;
	it->sym = sym;
	it->symoff = ip - base;
	it->mode = 64;
}

static void item_init(struct qpt_item *it, const struct sim_thread *s,
		      unsigned type, unsigned kind)
{
	item_make(it, type, kind, s->tid, s->pc, names[s->func],
		  FUNC_BASE(s->func));
}

static void feed(struct qpt_crash_walk *w, const struct qpt_item *it)
{
	assert_int_equal(qpt_crash_walk_item(it, w), 0);
}

/* An instruction of @size bytes at the pc. */
static void insn(struct qpt_crash_walk *w, struct sim_thread *s, uint8_t size)
{
	struct qpt_crash_insn *in;
	struct qpt_item it;

	item_init(&it, s, QPT_ITEM_INSN, 0);
	it.size = size;
	memset(it.raw, 0x90, size);
	it.raw[0] = (uint8_t)(s->nr_insns & 0xff);
	feed(w, &it);
	s->end_ip = s->pc;
	s->end_func = s->func;
	if (s->nr_insns == s->cap_insns) {
		s->cap_insns = s->cap_insns ? 2 * s->cap_insns : 1024;
		s->insns = realloc(s->insns, s->cap_insns * sizeof(*in));
		assert_non_null(s->insns);
	}
	in = &s->insns[s->nr_insns++];
	memset(in, 0, sizeof(*in));
	in->ip = it.ip;
	in->sym = it.sym;
	in->symoff = it.symoff;
	in->size = size;
	memcpy(in->raw, it.raw, sizeof(in->raw));
}

static void lbr_push(struct sim_thread *s, uint64_t from, uint64_t to,
		     unsigned kind)
{
	struct qpt_lbr_entry *e;

	if (s->nr_lbr == s->cap_lbr) {
		s->cap_lbr = s->cap_lbr ? 2 * s->cap_lbr : 1024;
		s->lbr = realloc(s->lbr, s->cap_lbr * sizeof(*e));
		assert_non_null(s->lbr);
	}
	e = &s->lbr[s->nr_lbr++];
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	e->kind = (uint16_t)kind;
}

/* A taken branch of @kind from the pc (its instruction of @size bytes
 * executed) to @to in function @func. */
static void branch(struct qpt_crash_walk *w, struct sim_thread *s,
		   unsigned kind, uint8_t size, unsigned func, uint64_t to)
{
	struct qpt_item it;

	insn(w, s, size);
	item_init(&it, s, QPT_ITEM_BRANCH, kind);
	it.to = to;
	feed(w, &it);
	lbr_push(s, s->pc, to, kind);
	s->func = func;
	s->pc = to;
}

/* The trace stops at the pc (@via: why) and resumes at @to in @func. */
static void gap(struct qpt_crash_walk *w, struct sim_thread *s, unsigned via,
		unsigned func, uint64_t to)
{
	struct qpt_item it;
	uint64_t from = s->pc;

	item_init(&it, s, QPT_ITEM_BRANCH, QPT_BR_TRACE_END);
	it.via = via;
	feed(w, &it);
	s->end_ip = s->pc;
	s->end_func = s->func;
	s->func = func;
	s->pc = to;
	item_init(&it, s, QPT_ITEM_BRANCH, QPT_BR_TRACE_BEGIN);
	it.ip = 0;
	it.to = to;
	feed(w, &it);
	if (!(via == QPT_BR_SYSCALL && to == from + 2) &&
	    !(via == QPT_BR_ASYNC && to == from))
		lbr_push(s, from, to, via);
}

static void call(struct qpt_crash_walk *w, struct sim_thread *s)
{
	unsigned g = rnd(s) % NR_FUNCS;
	struct sim_frame *f = &s->stack[s->depth++];

	f->site = s->pc;
	f->symoff = s->pc - FUNC_BASE(s->func);
	f->back = s->pc + 5;
	f->func = s->func;
	f->signal = false;
	f->tail = s->tail;
	memset(&s->tail, 0, sizeof(s->tail));
	branch(w, s, QPT_BR_CALL, 5, g, FUNC_BASE(g));
}

static void ret(struct qpt_crash_walk *w, struct sim_thread *s)
{
	struct sim_frame *f = &s->stack[--s->depth];

	s->tail = f->tail;
	branch(w, s, QPT_BR_RET, 1, f->func, f->back);
}

/* A jump to the start of another function: a tail call. */
static void tail_call(struct qpt_crash_walk *w, struct sim_thread *s)
{
	unsigned g = rnd(s) % NR_FUNCS;

	if (g == s->func)
		return;
	s->tail.on = true;
	s->tail.from = s->pc;
	s->tail.symoff = s->pc - FUNC_BASE(s->func);
	s->tail.func = s->func;
	s->tails++;
	branch(w, s, QPT_BR_JMP, 5, g, FUNC_BASE(g));
}

/* Whether frame @j is the innermost of its (caller) function. */
static bool innermost_of(const struct sim_thread *s, size_t j)
{
	size_t i;

	for (i = j + 1; i < s->depth; i++)
		if (s->stack[i].func == s->stack[j].func)
			return false;
	return true;
}

/* A longjmp (an indirect jump) back into the function of a frame on the
 * stack, the innermost of that function and another than the current
 * one's, mid-function: the frames above it are gone. */
static void long_jump(struct qpt_crash_walk *w, struct sim_thread *s)
{
	size_t j;
	unsigned f;

	if (!s->depth)
		return;
	j = rnd(s) % s->depth;
	f = s->stack[j].func;
	if (f == s->func || !innermost_of(s, j))
		return;
	s->tail = s->stack[j].tail;
	s->depth = j;
	s->longjmps++;
	branch(w, s, QPT_BR_IND_JMP, 2, f, FUNC_BASE(f) + 0x80000);
}

/* A signal interrupts the instruction at the pc: the handler runs. */
static void signal_in(struct qpt_crash_walk *w, struct sim_thread *s)
{
	struct sim_frame *f = &s->stack[s->depth++];

	f->site = s->pc;
	f->symoff = s->pc - FUNC_BASE(s->func);
	f->back = s->pc;
	f->func = s->func;
	f->signal = true;
	f->tail = s->tail;
	memset(&s->tail, 0, sizeof(s->tail));
	gap(w, s, QPT_BR_ASYNC, HANDLER, FUNC_BASE(HANDLER));
}

/* The handler's sigreturn: back to the interrupted instruction. */
static void sigreturn(struct qpt_crash_walk *w, struct sim_thread *s)
{
	struct sim_frame *f = &s->stack[--s->depth];

	s->tail = f->tail;
	insn(w, s, 2);
	gap(w, s, QPT_BR_SYSCALL, f->func, f->back);
}

/*
 * Whether a system call at the pc would return to where a pending signal
 * interrupted: the trace cannot tell that from a sigreturn (the walk
 * takes it as one), so the program makes none there.
 */
static bool like_sigreturn(const struct sim_thread *s)
{
	size_t i;

	for (i = 0; i < s->depth; i++)
		if (s->stack[i].signal && s->stack[i].site == s->pc + 2)
			return true;
	return false;
}

/* One step of the program. */
static void step(struct qpt_crash_walk *w, struct sim_thread *s)
{
	unsigned r = rnd(s) % 100;
	bool top_signal = s->depth && s->stack[s->depth - 1].signal;

	if (r < 40) {
		insn(w, s, 3);
		s->pc += 3;
	} else if (r < 55) {
		branch(w, s, QPT_BR_JCC, 2, s->func, s->pc + 0x10);
	} else if (r < 70 && s->depth < 60) {
		call(w, s);
	} else if (r < 85 && s->depth && !top_signal) {
		ret(w, s);
	} else if (r < 88 && s->depth < 60 && s->func != HANDLER) {
		signal_in(w, s);
	} else if (r < 94 && top_signal) {
		sigreturn(w, s);
	} else if (r < 96) {
		tail_call(w, s);
	} else if (r < 97) {
		long_jump(w, s);
	} else if (!like_sigreturn(s)) {
		insn(w, s, 2); /* a system call returning after itself */
		gap(w, s, QPT_BR_SYSCALL, s->func, s->pc + 2);
	} else {
		insn(w, s, 3);
		s->pc += 3;
	}
}

/* ---- the walk against the truth ---- */

static void check_stack(const struct qpt_crash_walk *w, size_t ti,
			const struct sim_thread *s)
{
	struct qpt_crash_frame f;
	size_t i;

	for (i = 0; i < s->depth; i++) {
		const struct sim_frame *m = &s->stack[s->depth - 1 - i];

		assert_int_equal(qpt_crash_walk_frame(w, ti, i, &f), 0);
		assert_int_equal(f.site, m->site);
		assert_string_equal(f.sym, names[m->func]);
		assert_int_equal(f.symoff, m->symoff);
		assert_int_equal(f.signal, m->signal);
		assert_int_equal(f.tail_call, m->tail.on);
		if (!m->tail.on)
			continue;
		assert_int_equal(f.tail_from, m->tail.from);
		assert_string_equal(f.tail_sym, names[m->tail.func]);
		assert_int_equal(f.tail_symoff, m->tail.symoff);
	}
	assert_int_equal(qpt_crash_walk_frame(w, ti, i, &f), -QPT_E_INVAL);
}

static void check_insns(const struct qpt_crash_walk *w, size_t ti,
			const struct sim_thread *s, size_t kept)
{
	struct qpt_crash_insn in;
	const char *sym;
	uint64_t off;
	size_t i;

	for (i = 0; i < kept; i++) {
		const struct qpt_crash_insn *m = &s->insns[s->nr_insns - 1 - i];

		assert_int_equal(qpt_crash_walk_insn(w, ti, i, &in), 0);
		assert_int_equal(in.ip, m->ip);
		assert_ptr_equal(in.sym, m->sym);
		assert_int_equal(in.symoff, m->symoff);
		assert_int_equal(in.size, m->size);
		assert_memory_equal(in.raw, m->raw, sizeof(in.raw));
		if (i % 997)
			continue;
		assert_int_equal(qpt_crash_walk_sym(w, ti, m->ip, &sym, &off),
				 1);
		assert_string_equal(sym, m->sym);
		assert_int_equal(off, m->symoff);
	}
	assert_int_equal(qpt_crash_walk_insn(w, ti, kept, &in), -QPT_E_INVAL);
}

static void check_branches(const struct qpt_crash_walk *w, size_t ti,
			   const struct sim_thread *s, size_t last)
{
	struct qpt_lbr_entry e;
	size_t i, n = s->nr_lbr < last ? s->nr_lbr : last;

	for (i = 0; i < n; i++) {
		assert_int_equal(qpt_crash_walk_branch(w, ti, i, &e), 0);
		assert_memory_equal(&e, &s->lbr[s->nr_lbr - 1 - i], sizeof(e));
	}
	assert_int_equal(qpt_crash_walk_branch(w, ti, n, &e), -QPT_E_INVAL);
}

static void check_thread(const struct qpt_crash_walk *w,
			 const struct sim_thread *s, size_t last)
{
	struct qpt_crash_thread t;
	size_t kept = s->nr_insns < QPT_CRASH_WALK_KEEP ? s->nr_insns
							: QPT_CRASH_WALK_KEEP;
	int ti = qpt_crash_walk_find(w, s->tid);

	assert_true(ti >= 0);
	assert_int_equal(qpt_crash_walk_thread(w, (size_t)ti, &t), 0);
	assert_int_equal(t.tid, s->tid);
	assert_int_equal(t.pid, 7);
	assert_int_equal(t.insns, s->nr_insns);
	assert_int_equal(t.nr_frames, s->depth);
	assert_int_equal(t.nr_insns, kept);
	assert_int_equal(t.nr_branches, s->nr_lbr < last ? s->nr_lbr : last);
	assert_true(t.began);
	assert_false(t.deeper);
	assert_int_equal(t.below, 0);
	assert_int_equal(t.first_ip, s->insns[0].ip);
	assert_int_equal(t.end_ip, s->end_ip);
	assert_string_equal(t.end_sym, names[s->end_func]);
	assert_int_equal(t.tail_call, s->tail.on);
	if (s->tail.on) {
		assert_int_equal(t.tail_from, s->tail.from);
		assert_string_equal(t.tail_sym, names[s->tail.func]);
	}
	assert_true(t.nr_exits >= s->longjmps);
	check_stack(w, (size_t)ti, s);
	check_insns(w, (size_t)ti, s, kept);
	check_branches(w, (size_t)ti, s, last);
}

static void sim_start(struct qpt_crash_walk *w, struct sim_thread *s,
		      int32_t tid, unsigned seed)
{
	struct qpt_item it;

	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->seed = seed;
	s->pc = FUNC_BASE(0);
	item_init(&it, s, QPT_ITEM_BRANCH, QPT_BR_TRACE_BEGIN);
	it.ip = 0;
	it.to = s->pc;
	feed(w, &it);
}

/*
 * Two threads, 40000 steps each (more instructions than the ring keeps),
 * end in a crash (an async trace end); the stacks are checked on the way
 * too (they need no finish).
 */
static void test_against_simulation(void **state)
{
	static struct sim_thread a, b;
	struct qpt_crash_walk_opts o;
	struct qpt_crash_walk *w;
	struct qpt_item it;
	unsigned i;

	(void)state;
	qpt_crash_walk_opts_init(&o);
	o.last = 100;
	assert_int_equal(qpt_crash_walk_new(&o, &w), 0);
	sim_start(w, &a, 11, 1);
	sim_start(w, &b, 12, 2);
	for (i = 0; i < 40000; i++) {
		step(w, &a);
		step(w, i % 3 ? &b : &a);
		if (i == 5000)
			check_stack(w, 0, &a);
	}
	item_init(&it, &a, QPT_ITEM_BRANCH, QPT_BR_TRACE_END);
	it.via = QPT_BR_ASYNC;
	feed(w, &it);
	a.end_ip = a.pc;
	a.end_func = a.func;
	assert_true(a.nr_insns > QPT_CRASH_WALK_KEEP);
	assert_true(a.longjmps > 50 && a.tails > 1000);
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	assert_int_equal(qpt_crash_walk_nr_threads(w), 2);
	check_thread(w, &a, 100);
	check_thread(w, &b, 100);
	{
		struct qpt_crash_thread t;

		assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
		assert_true(t.ended_async);
	}
	qpt_crash_walk_free(w);
	free(a.insns);
	free(b.insns);
	free(a.lbr);
	free(b.lbr);
}

/* ---- hand-made windows ---- */

static void hand_insn(struct qpt_crash_walk *w, uint64_t ip, const char *sym,
		      uint64_t base)
{
	struct qpt_item it;

	item_make(&it, QPT_ITEM_INSN, 0, 5, ip, sym, base);
	it.size = 1;
	feed(w, &it);
}

static void hand_branch(struct qpt_crash_walk *w, unsigned kind, uint64_t ip,
			uint64_t to, const char *sym, uint64_t base)
{
	struct qpt_item it;

	item_make(&it, QPT_ITEM_BRANCH, kind, 5, ip, sym, base);
	it.to = to;
	feed(w, &it);
}

/* A call (5 bytes, its instruction first) of @callee. */
static void hand_call(struct qpt_crash_walk *w, uint64_t ip, uint64_t to,
		      const char *sym, uint64_t base, const char *callee)
{
	struct qpt_item it;

	item_make(&it, QPT_ITEM_INSN, 0, 5, ip, sym, base);
	it.size = 5;
	feed(w, &it);
	item_make(&it, QPT_ITEM_BRANCH, QPT_BR_CALL, 5, ip, sym, base);
	it.to = to;
	it.to_sym = callee;
	feed(w, &it);
}

static struct qpt_crash_walk *walk_new(unsigned last)
{
	struct qpt_crash_walk_opts o;
	struct qpt_crash_walk *w;

	qpt_crash_walk_opts_init(&o);
	o.last = last;
	assert_int_equal(qpt_crash_walk_new(&o, &w), 0);
	return w;
}

/*
 * A snapshot's window begins inside g (no trace begin), g returns to f
 * (no call of it in the window: below 1, f becomes the base), f returns
 * to main (below 2, base main), main calls h, which crashes:
 *   #1 main+0x5 (the call of h); the window begins mid-stack at main.
 */
static void test_mid_stack(void **state)
{
	struct qpt_crash_walk *w = walk_new(4);
	struct qpt_crash_thread t;
	struct qpt_crash_frame f;
	struct qpt_lbr_entry e;

	(void)state;
	hand_insn(w, 0x3000, "g", 0x3000);
	hand_insn(w, 0x3001, "g", 0x3000);
	hand_branch(w, QPT_BR_RET, 0x3001, 0x2005, "g", 0x3000);
	hand_insn(w, 0x2005, "f", 0x2000);
	hand_branch(w, QPT_BR_RET, 0x2005, 0x1005, "f", 0x2000);
	hand_insn(w, 0x1005, "main", 0x1000);
	hand_branch(w, QPT_BR_CALL, 0x1005, 0x4000, "main", 0x1000);
	hand_insn(w, 0x4000, "h", 0x4000);
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_false(t.began);
	assert_false(t.deeper);
	assert_int_equal(t.below, 2);
	assert_int_equal(t.insns, 5);
	assert_int_equal(t.first_ip, 0x3000);
	assert_string_equal(t.first_sym, "g");
	assert_int_equal(t.base_ip, 0x1005);
	assert_string_equal(t.base_sym, "main");
	assert_int_equal(t.end_ip, 0x4000);
	assert_int_equal(t.nr_frames, 1);
	assert_int_equal(qpt_crash_walk_frame(w, 0, 0, &f), 0);
	assert_int_equal(f.site, 0x1005);
	assert_string_equal(f.sym, "main");
	assert_int_equal(f.symoff, 5);
	assert_false(f.signal);
	/* the LBR: newest first */
	assert_int_equal(t.nr_branches, 3);
	assert_int_equal(qpt_crash_walk_branch(w, 0, 0, &e), 0);
	assert_int_equal(e.from, 0x1005);
	assert_int_equal(e.kind, QPT_BR_CALL);
	assert_int_equal(qpt_crash_walk_branch(w, 0, 2, &e), 0);
	assert_int_equal(e.from, 0x3001);
	assert_int_equal(e.kind, QPT_BR_RET);
	qpt_crash_walk_free(w);
}

/*
 * The window begins inside rec, which calls itself twice and crashes:
 * rec is the base and in both frames and the end: the recursion goes on
 * beyond the window's start.
 */
static void test_deeper(void **state)
{
	struct qpt_crash_walk *w = walk_new(0);
	struct qpt_crash_thread t;
	struct qpt_lbr_entry e;
	const char *sym;
	uint64_t off;

	(void)state;
	hand_insn(w, 0x1010, "rec", 0x1000);
	hand_branch(w, QPT_BR_CALL, 0x1010, 0x1000, "rec", 0x1000);
	hand_insn(w, 0x1000, "rec", 0x1000);
	hand_insn(w, 0x1010, "rec", 0x1000);
	hand_branch(w, QPT_BR_CALL, 0x1010, 0x1000, "rec", 0x1000);
	hand_insn(w, 0x1000, "rec", 0x1000);
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_false(t.began);
	assert_true(t.deeper);
	assert_int_equal(t.nr_frames, 2);
	/* last 0: no branches kept */
	assert_int_equal(t.nr_branches, 0);
	assert_int_equal(qpt_crash_walk_branch(w, 0, 0, &e), -QPT_E_INVAL);
	/* symbols from the instructions kept; an ip not among them */
	assert_int_equal(qpt_crash_walk_sym(w, 0, 0x1010, &sym, &off), 1);
	assert_string_equal(sym, "rec");
	assert_int_equal(off, 0x10);
	assert_int_equal(qpt_crash_walk_sym(w, 0, 0x9999, &sym, &off), 0);
	assert_int_equal(qpt_crash_walk_sym(w, 1, 0x1010, &sym, &off),
			 -QPT_E_INVAL);
	qpt_crash_walk_free(w);
}

/* ---- non-local exits and tail calls, by hand ---- */

/* An instruction of @size bytes @raw (NULL: nops). */
static void hand_insn_raw(struct qpt_crash_walk *w, uint64_t ip,
			  const char *sym, uint64_t base, const uint8_t *raw,
			  uint8_t size)
{
	struct qpt_item it;

	item_make(&it, QPT_ITEM_INSN, 0, 5, ip, sym, base);
	it.size = size;
	memset(it.raw, 0x90, sizeof(it.raw));
	if (raw)
		memcpy(it.raw, raw, size);
	feed(w, &it);
}

/* A branch of @kind (its instruction first) from @ip to @to. */
static void hand_jump(struct qpt_crash_walk *w, unsigned kind, uint64_t ip,
		      uint64_t to, const char *sym, uint64_t base)
{
	hand_insn_raw(w, ip, sym, base, NULL, 2);
	hand_branch(w, kind, ip, to, sym, base);
}

/* The trace stops at @ip (@via) and resumes at @to. */
static void hand_gap(struct qpt_crash_walk *w, unsigned via, uint64_t ip,
		     const char *sym, uint64_t base, uint64_t to)
{
	struct qpt_item it;

	item_make(&it, QPT_ITEM_BRANCH, QPT_BR_TRACE_END, 5, ip, sym, base);
	it.via = via;
	feed(w, &it);
	item_make(&it, QPT_ITEM_BRANCH, QPT_BR_TRACE_BEGIN, 5, 0, NULL, 0);
	it.to = to;
	feed(w, &it);
}

/* A system call (2 bytes at @ip, after "mov eax, @nr") that resumes at
 * @to. */
static void hand_syscall(struct qpt_crash_walk *w, uint64_t ip, const char *sym,
			 uint64_t base, uint32_t nr, uint64_t to)
{
	uint8_t mov[5] = {0xb8};
	static const uint8_t sc[2] = {0x0f, 0x05};

	memcpy(mov + 1, &nr, 4);
	hand_insn_raw(w, ip - 5, sym, base, mov, 5);
	hand_insn_raw(w, ip, sym, base, sc, 2);
	hand_gap(w, QPT_BR_SYSCALL, ip, sym, base, to);
}

/* The trace begins in "start" (0x100), which calls main (0x1000). */
static struct qpt_crash_walk *hand_start(void)
{
	struct qpt_crash_walk *w = walk_new(4);

	hand_gap(w, QPT_BR_NR, 0, NULL, 0, 0x100);
	hand_call(w, 0x100, 0x1000, "start", 0x100, "main");
	hand_insn(w, 0x1000, "main", 0x1000);
	return w;
}

/* The frames' symbols, innermost first, comma-separated ("!": a signal
 * frame, "<-b": the function was entered by a tail call from b). */
static void expect_stack(const struct qpt_crash_walk *w, const char *want)
{
	struct qpt_crash_thread t;
	struct qpt_crash_frame f;
	char got[512] = "";
	size_t i;

	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	if (t.tail_call)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "<-%s",
			 t.tail_sym);
	for (i = 0; i < t.nr_frames; i++) {
		assert_int_equal(qpt_crash_walk_frame(w, 0, i, &f), 0);
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%s%s%s%s", *got ? "," : "", f.signal ? "!" : "",
			 f.sym, f.tail_call ? "<-" : "",
			 f.tail_call ? f.tail_sym : "");
	}
	assert_string_equal(got, want);
}

static struct qpt_crash_exit last_exit(const struct qpt_crash_walk *w,
				       unsigned kind)
{
	struct qpt_crash_exit e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(qpt_crash_walk_exit(w, 0, kind, &e), 1);
	return e;
}

/*
 * main -> parse -> check, whose cold part throws (lea rsi, the type;
 * call __cxa_throw); the unwinder returns into main's cold part (its
 * landing pad): parse, check and the unwinder's frames are gone.
 */
static void test_exception(void **state)
{
	static const uint8_t lea[7] = {0x48, 0x8d, 0x35, 0x10, 0x20, 0, 0};
	struct qpt_crash_walk *w = hand_start();
	struct qpt_crash_throw thr;
	struct qpt_crash_exit e;

	(void)state;
	assert_int_equal(qpt_crash_walk_throw(w, 0, &thr), 0);
	hand_call(w, 0x1010, 0x2000, "main", 0x1000, "parse");
	hand_call(w, 0x2000, 0x3000, "parse", 0x2000, "check");
	hand_jump(w, QPT_BR_JCC, 0x3000, 0x3100, "check", 0x3000);
	hand_insn_raw(w, 0x3100, "check.cold", 0x3100, lea, 7);
	hand_call(w, 0x3107, 0x5000, "check.cold", 0x3100, "__cxa_throw@plt");
	hand_jump(w, QPT_BR_IND_JMP, 0x5000, 0x5100, "__cxa_throw@plt", 0x5000);
	hand_call(w, 0x5100, 0x6000, "__cxa_throw", 0x5100,
		  "_Unwind_RaiseException");
	expect_stack(w, "__cxa_throw,check.cold,parse,main,start");
	hand_insn(w, 0x6000, "_Unwind_RaiseException", 0x6000);
	hand_branch(w, QPT_BR_RET, 0x6000, 0x1120, "_Unwind_RaiseException",
		    0x6000);
	hand_insn(w, 0x1120, "main.cold", 0x1100);
	expect_stack(w, "start");
	hand_call(w, 0x1128, 0x7000, "main.cold", 0x1100, "g");
	expect_stack(w, "main.cold,start");
	e = last_exit(w, QPT_CRASH_EXIT_ANY);
	assert_int_equal(e.kind, QPT_CRASH_EXIT_EXCEPTION);
	assert_int_equal(e.from, 0x3107);
	assert_string_equal(e.from_sym, "check.cold");
	assert_int_equal(e.to, 0x1120);
	assert_int_equal(e.frames, 4);
	assert_false(e.ambiguous || e.outside);
	assert_int_equal(qpt_crash_walk_exit(w, 0, QPT_CRASH_EXIT_LONGJMP, &e),
			 0);
	assert_int_equal(qpt_crash_walk_exit(w, 0, QPT_CRASH_EXIT_NR, &e),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_throw(w, 0, &thr), 1);
	assert_int_equal(thr.site, 0x3107);
	assert_false(thr.rethrow);
	assert_int_equal(thr.nr_insns, 2);
	assert_memory_equal(thr.insns[0].raw, lea, 7);
	assert_int_equal(thr.insns[1].ip, 0x3107);
	qpt_crash_walk_free(w);
}

/*
 * main -> f1 -> f2 -> longjmp@plt -> __longjmp, which jumps into main
 * (setjmp's return): f1, f2 and longjmp's frames are gone; the PLT
 * stub's jump is no tail call.  Then a recursion rec -> rec -> h, and h
 * jumps back into rec: which rec the trace does not say (the innermost
 * is taken).
 */
static void test_longjmp(void **state)
{
	struct qpt_crash_walk *w = hand_start();
	struct qpt_crash_thread t;
	struct qpt_crash_exit e;

	(void)state;
	hand_call(w, 0x1010, 0x2000, "main", 0x1000, "f1");
	hand_call(w, 0x2000, 0x2100, "f1", 0x2000, "f2");
	hand_call(w, 0x2100, 0x9000, "f2", 0x2100, "longjmp@plt");
	hand_jump(w, QPT_BR_IND_JMP, 0x9000, 0xa000, "longjmp@plt", 0x9000);
	hand_call(w, 0xa010, 0xb000, "__libc_siglongjmp", 0xa000, "__longjmp");
	hand_jump(w, QPT_BR_IND_JMP, 0xb000, 0x1050, "__longjmp", 0xb000);
	hand_insn(w, 0x1050, "main", 0x1000);
	expect_stack(w, "start");
	e = last_exit(w, QPT_CRASH_EXIT_LONGJMP);
	assert_int_equal(e.from, 0x2100);
	assert_int_equal(e.to, 0x1050);
	assert_int_equal(e.frames, 4);
	hand_call(w, 0x1060, 0x4000, "main", 0x1000, "rec");
	hand_call(w, 0x4010, 0x4000, "rec", 0x4000, "rec");
	hand_call(w, 0x4010, 0x4000, "rec", 0x4000, "rec");
	hand_call(w, 0x4020, 0x4800, "rec", 0x4000, "h");
	hand_jump(w, QPT_BR_JMP, 0x4800, 0x4030, "h", 0x4800);
	hand_insn(w, 0x4030, "rec", 0x4000);
	expect_stack(w, "rec,rec,main,start");
	e = last_exit(w, QPT_CRASH_EXIT_ANY);
	assert_int_equal(e.kind, QPT_CRASH_EXIT_OTHER);
	assert_true(e.ambiguous);
	assert_int_equal(e.frames, 1);
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_int_equal(t.nr_exits, 2);
	qpt_crash_walk_free(w);
}

/*
 * main -> run -> swapcontext, which returns into the coroutine co (no
 * frame leads there: another stack); co -> yield -> swapcontext returns
 * into run (the first stack, taken back); run returns, main -> run ->
 * swapcontext returns into yield (the coroutine's stack again).
 */
static void test_coroutine(void **state)
{
	struct qpt_crash_walk *w = hand_start();
	struct qpt_crash_thread t;
	struct qpt_crash_exit e;

	(void)state;
	hand_call(w, 0x1010, 0x2000, "main", 0x1000, "run");
	hand_call(w, 0x2000, 0x8000, "run", 0x2000, "swapcontext");
	hand_jump(w, QPT_BR_RET, 0x8000, 0xc000, "swapcontext", 0x8000);
	hand_insn(w, 0xc000, "co", 0xc000);
	expect_stack(w, "");
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_true(t.switched);
	assert_int_equal(t.switch_from, 0x2000);
	assert_int_equal(t.base_ip, 0xc000);
	hand_call(w, 0xc010, 0xd000, "co", 0xc000, "yield");
	hand_call(w, 0xd000, 0x8000, "yield", 0xd000, "swapcontext");
	hand_jump(w, QPT_BR_RET, 0x8000, 0x2005, "swapcontext", 0x8000);
	hand_insn(w, 0x2005, "run", 0x2000);
	expect_stack(w, "main,start");
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_false(t.switched);
	e = last_exit(w, QPT_CRASH_EXIT_CONTEXT);
	assert_int_equal(e.from, 0xd000);
	assert_int_equal(e.to, 0x2005);
	hand_jump(w, QPT_BR_RET, 0x2006, 0x1015, "run", 0x2000);
	hand_insn(w, 0x1015, "main", 0x1000);
	hand_call(w, 0x1020, 0x2000, "main", 0x1000, "run");
	hand_call(w, 0x2000, 0x8000, "run", 0x2000, "swapcontext");
	hand_jump(w, QPT_BR_RET, 0x8000, 0xd005, "swapcontext", 0x8000);
	hand_insn(w, 0xd005, "yield", 0xd000);
	expect_stack(w, "co");
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_true(t.switched);
	assert_int_equal(t.nr_exits, 3);
	qpt_crash_walk_free(w);
}

/*
 * A signal delivered at a system call's return in f: a signal frame
 * where it resumes; the handler calls h.  The handler's return pops the
 * signal frame, the restorer's rt_sigreturn resumes in f at another
 * place (nothing cut), and again after a second signal, into main (f's
 * frame is cut).  An execve's return elsewhere begins a new stack.
 */
static void test_signals(void **state)
{
	static const uint8_t mov15[7] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0};
	static const uint8_t sc[2] = {0x0f, 0x05};
	struct qpt_crash_walk *w = hand_start();
	struct qpt_crash_exit e;

	(void)state;
	hand_call(w, 0x1010, 0x2000, "main", 0x1000, "f");
	hand_syscall(w, 0x2020, "f", 0x2000, 39, 0x7000);
	hand_insn(w, 0x7000, "handler", 0x7000);
	hand_call(w, 0x7000, 0x7100, "handler", 0x7000, "h");
	expect_stack(w, "handler,!f,main,start");
	hand_jump(w, QPT_BR_RET, 0x7100, 0x7005, "h", 0x7100);
	hand_jump(w, QPT_BR_RET, 0x7005, 0x7f00, "handler", 0x7000);
	hand_insn_raw(w, 0x7f00, "restorer", 0x7f00, mov15, 7);
	hand_insn_raw(w, 0x7f07, "restorer", 0x7f00, sc, 2);
	hand_gap(w, QPT_BR_SYSCALL, 0x7f07, "restorer", 0x7f00, 0x2040);
	hand_insn(w, 0x2040, "f", 0x2000);
	expect_stack(w, "main,start");
	e = last_exit(w, QPT_CRASH_EXIT_SIGRETURN);
	assert_int_equal(e.from, 0x2022);
	assert_int_equal(e.to, 0x2040);
	assert_int_equal(e.frames, 0);
	hand_syscall(w, 0x2060, "f", 0x2000, 39, 0x7000);
	hand_jump(w, QPT_BR_RET, 0x7005, 0x7f00, "handler", 0x7000);
	hand_insn_raw(w, 0x7f00, "restorer", 0x7f00, mov15, 7);
	hand_insn_raw(w, 0x7f07, "restorer", 0x7f00, sc, 2);
	hand_gap(w, QPT_BR_SYSCALL, 0x7f07, "restorer", 0x7f00, 0x1080);
	hand_insn(w, 0x1080, "main", 0x1000);
	expect_stack(w, "start");
	e = last_exit(w, QPT_CRASH_EXIT_SIGRETURN);
	assert_int_equal(e.from, 0x2062);
	assert_int_equal(e.frames, 1);
	hand_call(w, 0x1090, 0x2000, "main", 0x1000, "f");
	hand_syscall(w, 0x2020, "f", 0x2000, 59, 0x40000);
	hand_insn(w, 0x40000, "_start", 0x40000);
	expect_stack(w, "");
	qpt_crash_walk_free(w);
}

/*
 * main -> a; a jumps to b's start (a tail call), b to c@plt (one more)
 * and the stub to c (no tail call of its own: c was entered from b); a
 * jump from c into its cold part is none; c calls d.
 */
static void test_tail_calls(void **state)
{
	struct qpt_crash_walk *w = hand_start();

	(void)state;
	hand_call(w, 0x1010, 0x2000, "main", 0x1000, "a");
	hand_jump(w, QPT_BR_JMP, 0x2010, 0x3000, "a", 0x2000);
	hand_insn(w, 0x3000, "b", 0x3000);
	expect_stack(w, "<-a,main,start");
	hand_jump(w, QPT_BR_JMP, 0x3010, 0x9000, "b", 0x3000);
	hand_jump(w, QPT_BR_IND_JMP, 0x9000, 0x4000, "c@plt", 0x9000);
	hand_jump(w, QPT_BR_JCC, 0x4000, 0x4800, "c", 0x4000);
	hand_insn(w, 0x4800, "c.cold", 0x4800);
	hand_call(w, 0x4800, 0x5000, "c.cold", 0x4800, "d");
	hand_insn(w, 0x5000, "d", 0x5000);
	expect_stack(w, "c.cold<-b,main,start");
	hand_jump(w, QPT_BR_RET, 0x5000, 0x4805, "d", 0x5000);
	hand_insn(w, 0x4805, "c.cold", 0x4800);
	expect_stack(w, "<-b,main,start");
	hand_jump(w, QPT_BR_RET, 0x4805, 0x1015, "c.cold", 0x4800);
	hand_insn(w, 0x1015, "main", 0x1000);
	expect_stack(w, "start");
	qpt_crash_walk_free(w);
}

/* ---- over the decoder's items ---- */

/*
 * 0x1000: call 0x1010; 0x1010: call 0x1020; 0x1020: nop; nop;
 * 0x1022: mov eax, [0] (faults: the trace ends there, asynchronously).
 */
/* clang-format off */
static const uint8_t faulting[0x29] = {
	[0x00] = 0xe8, 0x0b, 0x00, 0x00, 0x00,
	[0x10] = 0xe8, 0x0b, 0x00, 0x00, 0x00,
	[0x20] = 0x90, 0x90, 0x8b, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00,
};
/* clang-format on */

/* A raw stream's items have no thread: they are thread 1's here. */
static int as_thread(const struct qpt_item *item, void *w)
{
	struct qpt_item it = *item;

	it.flags |= QPT_ITEM_HAS_TID;
	it.pid = it.tid = 1;
	return qpt_crash_walk_item(&it, w);
}

/* The decoder's items of the program above, against its flow. */
static void test_decoded(void **state)
{
	char path[] = "/tmp/qpt-test-crash-walk-XXXXXX";
	struct qpt_crash_walk *w = walk_new(16);
	struct qpt_decoder_opts o;
	struct qpt_decoder *dec;
	struct qpt_crash_thread t;
	struct qpt_crash_frame f;
	struct qpt_crash_insn in;
	struct qpt_lbr_entry e;
	struct pt_encoder *enc;
	uint8_t trace[64];
	size_t len;

	(void)state;
	pt_code_file(path, faulting, sizeof(faulting));
	enc = pt_begin(trace, sizeof(trace), 0x1000);
	pt_put(enc, ppt_fup, 0x1022);
	pt_put(enc, ppt_tip_pgd, 0);
	len = pt_end(enc);
	qpt_decoder_opts_init(&o);
	o.want = QPT_WANT_INSN | QPT_WANT_BRANCH;
	assert_int_equal(qpt_decoder_new(&o, &dec), 0);
	assert_int_equal(qpt_decoder_add_image(dec, path, 0x1000), 0);
	assert_int_equal(qpt_decoder_run_raw(dec, trace, len, as_thread, w), 0);
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), 0);
	assert_true(t.began);
	assert_true(t.ended_async);
	assert_int_equal(t.insns, 4);
	assert_int_equal(t.end_ip, 0x1022);
	/* the stack: the call at 0x1010, then the one at 0x1000 */
	assert_int_equal(t.nr_frames, 2);
	assert_int_equal(qpt_crash_walk_frame(w, 0, 0, &f), 0);
	assert_int_equal(f.site, 0x1010);
	assert_int_equal(qpt_crash_walk_frame(w, 0, 1, &f), 0);
	assert_int_equal(f.site, 0x1000);
	/* the instructions that retired, the newest first */
	assert_int_equal(t.nr_insns, 4);
	assert_int_equal(qpt_crash_walk_insn(w, 0, 0, &in), 0);
	assert_int_equal(in.ip, 0x1021);
	assert_int_equal(in.size, 1);
	assert_int_equal(qpt_crash_walk_insn(w, 0, 3, &in), 0);
	assert_int_equal(in.ip, 0x1000);
	assert_int_equal(in.size, 5);
	assert_memory_equal(in.raw, faulting, 5);
	/* the two calls, the newest first */
	assert_int_equal(t.nr_branches, 2);
	assert_int_equal(qpt_crash_walk_branch(w, 0, 0, &e), 0);
	assert_int_equal(e.from, 0x1010);
	assert_int_equal(e.to, 0x1020);
	assert_int_equal(e.kind, QPT_BR_CALL);
	assert_int_equal(qpt_crash_walk_branch(w, 0, 1, &e), 0);
	assert_int_equal(e.from, 0x1000);
	assert_int_equal(e.to, 0x1010);
	qpt_crash_walk_free(w);
	qpt_decoder_free(dec);
	unlink(path);
}

/* ---- sizes, options, errors ---- */

/*
 * Options: init writes no byte past the caller's size; a struct of
 * unknown (smaller) size is refused; a larger one whose tail is zero is
 * taken, one with a byte set there is not; values out of range.
 */
static void test_opts(void **state)
{
	struct {
		struct qpt_crash_walk_opts o;
		uint8_t later[8];
	} big;
	struct qpt_crash_walk_opts o;
	struct qpt_crash_walk *w;
	size_t i;

	(void)state;
	memset(&big, 0xa5, sizeof(big));
	qpt_crash_walk_opts_init_sized(
	    &big.o, offsetof(struct qpt_crash_walk_opts, insns));
	for (i = 0; i < sizeof(big.later); i++)
		assert_int_equal(big.later[i], 0xa5);
	assert_int_equal(big.o.size,
			 offsetof(struct qpt_crash_walk_opts, insns));
	assert_int_equal(big.o.last, 16);
	assert_int_equal(qpt_crash_walk_new(&big.o, &w), -QPT_E_INVAL);
	assert_null(w);
	memset(&big, 0xa5, sizeof(big));
	qpt_crash_walk_opts_init_sized(&big.o, sizeof(big));
	assert_int_equal(big.o.size, sizeof(big));
	assert_int_equal(big.o.insns, 16);
	for (i = 0; i < sizeof(big.later); i++)
		assert_int_equal(big.later[i], 0);
	assert_int_equal(qpt_crash_walk_new(&big.o, &w), 0);
	qpt_crash_walk_free(w);
	big.later[5] = 1;
	assert_int_equal(qpt_crash_walk_new(&big.o, &w), -QPT_E_INVAL);
	qpt_crash_walk_opts_init(&o);
	o.last = QPT_LBR_MAX_DEPTH + 1;
	assert_int_equal(qpt_crash_walk_new(&o, &w), -QPT_E_INVAL);
	o.last = QPT_LBR_MAX_DEPTH;
	o.insns = QPT_CRASH_WALK_MAX_INSNS + 1;
	assert_int_equal(qpt_crash_walk_new(&o, &w), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_new(NULL, NULL), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_new(NULL, &w), 0);
	qpt_crash_walk_free(w);
	qpt_crash_walk_free(NULL);
}

/* The getters of the first thread's first frame, instruction, branch. */
static int get_thread(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_thread_sized(w, 0, out, size);
}

static int get_frame(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_frame_sized(w, 0, 0, out, size);
}

static int get_insn(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_insn_sized(w, 0, 0, out, size);
}

static int get_branch(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_branch_sized(w, 0, 0, out, size);
}

static int get_exit(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_exit_sized(w, 0, QPT_CRASH_EXIT_ANY, out, size);
}

static int get_throw(const struct qpt_crash_walk *w, void *out, size_t size)
{
	return qpt_crash_walk_throw_sized(w, 0, out, size);
}

/* Outputs: a larger struct than the library's gets the same bytes as
 * one of its size and zeros past them; one of the first version's size
 * gets its fields; a smaller one is refused. */
static void test_outputs_sized(void **state)
{
	static const struct {
		int (*get)(const struct qpt_crash_walk *, void *, size_t);
		size_t size, v1;
		int ok;
	} getters[] = {
	    {get_thread, sizeof(struct qpt_crash_thread),
	     offsetof(struct qpt_crash_thread, tail_call), 0},
	    {get_frame, sizeof(struct qpt_crash_frame),
	     offsetof(struct qpt_crash_frame, tail_call), 0},
	    {get_insn, sizeof(struct qpt_crash_insn),
	     sizeof(struct qpt_crash_insn), 0},
	    {get_branch, sizeof(struct qpt_lbr_entry),
	     sizeof(struct qpt_lbr_entry), 0},
	    {get_exit, sizeof(struct qpt_crash_exit),
	     sizeof(struct qpt_crash_exit), 1},
	    {get_throw, sizeof(struct qpt_crash_throw),
	     sizeof(struct qpt_crash_throw), 1},
	};
	struct qpt_crash_walk *w = walk_new(4);
	uint8_t big[1024], exact[1024];
	size_t g, i;

	(void)state;
	/* main calls g, which throws: the unwinder lands in main */
	hand_insn(w, 0x1000, "main", 0x1000);
	hand_call(w, 0x1000, 0x2000, "main", 0x1000, "g");
	hand_insn(w, 0x2000, "g", 0x2000);
	hand_call(w, 0x2000, 0x3000, "g", 0x2000, "__cxa_throw");
	hand_insn(w, 0x3000, "_Unwind_RaiseException", 0x3000);
	hand_branch(w, QPT_BR_IND_JMP, 0x3000, 0x1040, "_Unwind_RaiseException",
		    0x3000);
	hand_insn(w, 0x1040, "main", 0x1000);
	hand_call(w, 0x1040, 0x2000, "main", 0x1000, "g");
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	for (g = 0; g < sizeof(getters) / sizeof(getters[0]); g++) {
		size_t n = getters[g].size, v1 = getters[g].v1;
		int ok = getters[g].ok;

		memset(exact, 0x5a, sizeof(exact));
		memset(big, 0xa5, sizeof(big));
		assert_int_equal(getters[g].get(w, exact, n), ok);
		assert_int_equal(getters[g].get(w, big, sizeof(big)), ok);
		assert_memory_equal(big, exact, n);
		for (i = n; i < sizeof(big); i++)
			assert_int_equal(big[i], 0);
		memset(big, 0xa5, sizeof(big));
		assert_int_equal(getters[g].get(w, big, v1), ok);
		assert_memory_equal(big, exact, v1);
		assert_int_equal(big[v1], 0xa5);
		assert_int_equal(getters[g].get(w, big, v1 - 1), -QPT_E_INVAL);
	}
	qpt_crash_walk_free(w);
}

/* Items without a tid are skipped; an item too small, anything after
 * the finish, a second finish, an unknown thread, a decoder that does
 * not want the items are errors. */
static void test_errors(void **state)
{
	struct qpt_crash_walk *w = walk_new(4);
	struct qpt_crash_thread t;
	struct qpt_decoder_opts dopts;
	struct qpt_decoder *dec;
	struct qpt_item it;

	(void)state;
	memset(&it, 0, sizeof(it));
	it.struct_size = sizeof(it);
	it.type = QPT_ITEM_INSN;
	it.ip = 0x1000;
	assert_int_equal(qpt_crash_walk_item(&it, w), 0);
	assert_int_equal(qpt_crash_walk_nr_threads(w), 0);
	it.struct_size = offsetof(struct qpt_item, cycles);
	assert_int_equal(qpt_crash_walk_item(&it, w), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_item(&it, NULL), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_finish(NULL), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_find(w, 1), -QPT_E_INVAL);
	assert_int_equal(qpt_crash_walk_thread(w, 0, &t), -QPT_E_INVAL);
	qpt_decoder_opts_init(&dopts);
	dopts.want = QPT_WANT_INSN;
	assert_int_equal(qpt_decoder_new(&dopts, &dec), 0);
	assert_int_equal(qpt_crash_walk_run_file(w, dec, "/nonexistent"),
			 -QPT_E_INVAL);
	qpt_decoder_free(dec);
	assert_int_equal(qpt_crash_walk_finish(w), 0);
	assert_int_equal(qpt_crash_walk_finish(w), -QPT_E_STATE);
	it.struct_size = sizeof(it);
	assert_int_equal(qpt_crash_walk_item(&it, w), -QPT_E_STATE);
	qpt_crash_walk_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_against_simulation),
	    cmocka_unit_test(test_mid_stack),
	    cmocka_unit_test(test_deeper),
	    cmocka_unit_test(test_exception),
	    cmocka_unit_test(test_longjmp),
	    cmocka_unit_test(test_coroutine),
	    cmocka_unit_test(test_signals),
	    cmocka_unit_test(test_tail_calls),
	    cmocka_unit_test(test_decoded),
	    cmocka_unit_test(test_opts),
	    cmocka_unit_test(test_outputs_sized),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
