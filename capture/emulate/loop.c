// SPDX-License-Identifier: MIT
/*
 * Loops run natively (emulate/loop.h).
 *
 * The hops a thread made tell where a cycle may be: the same conditional
 * jump going to the same entry again, one to four blocks later.  The
 * blocks from that entry must then form the cycle: each ends in a
 * conditional jump (the only exits are the jumps' other sides, which no
 * instruction of the cycle lies on); each runs straight-line code and
 * direct jumps only; one register is written by one instruction alone,
 * which adds a constant to it.  That plan is kept with the first block
 * (and a failure, so that it is not looked for again) until the code
 * changes.
 *
 * To run it, the jumps' breakpoints are taken out and breakpoints go on
 * the exits.  At the stop, the register's change and where the thread is
 * give the trips: (change - the step if it ran in the last, partial trip)
 * / step.
 */
#include "capture/emulate/loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "capture/emulate/trace_priv.h"

#define RSP 4
#define EMU_LOOP_CHUNK 65536 /* trips told between checks */

void emu_loop_hop(struct emu_hops *h, uint64_t jcc, uint64_t to)
{
	const unsigned int cap = 2 * EMU_LOOP_BLOCKS;

	if (h->n == cap) {
		memmove(h->jcc, h->jcc + 1, (cap - 1) * sizeof(h->jcc[0]));
		memmove(h->to, h->to + 1, (cap - 1) * sizeof(h->to[0]));
		h->n--;
	}
	h->jcc[h->n] = jcc;
	h->to[h->n] = to;
	h->n++;
}

/* General purpose register @n (numbered as the x86 layer does). */
static uint64_t reg_value(const struct user_regs_struct *r, int n)
{
	switch (n) {
	case 0:
		return r->rax;
	case 1:
		return r->rcx;
	case 2:
		return r->rdx;
	case 3:
		return r->rbx;
	case 4:
		return r->rsp;
	case 5:
		return r->rbp;
	case 6:
		return r->rsi;
	case 7:
		return r->rdi;
	case 8:
		return r->r8;
	case 9:
		return r->r9;
	case 10:
		return r->r10;
	case 11:
		return r->r11;
	case 12:
		return r->r12;
	case 13:
		return r->r13;
	case 14:
		return r->r14;
	default:
		return r->r15;
	}
}

/* ---- finding a cycle ---- */

struct finding {
	struct emu_block *b[EMU_LOOP_BLOCKS];
	unsigned int m;
};

static void finding_put(struct finding *fd)
{
	unsigned int i;

	for (i = 0; i < fd->m; i++)
		emu_block_put(fd->b[i]);
	fd->m = 0;
}

/* How many times @ip is an instruction of the cycle. */
static unsigned int in_cycle(const struct finding *fd, uint64_t ip)
{
	unsigned int i, c = 0;
	uint32_t k;

	for (i = 0; i < fd->m; i++)
		for (k = 0; k < fd->b[i]->n; k++)
			c += fd->b[i]->insn[k].ip == ip;
	return c;
}

/* The blocks' ends and ways: 0 when they form a cycle, -1 when not. */
static int shape(struct emu_thread *t, const struct finding *fd,
		 struct emu_loop_plan *p)
{
	const struct emu_trigger *trig = t->tr->opts->trigger;
	unsigned int i, j, total = 0;
	uint32_t k;

	for (i = 0; i < fd->m; i++) {
		const struct emu_block *b = fd->b[i];
		uint64_t next = p->entry[(i + 1) % fd->m], fall, target;

		if (b->end != EMU_END_BRANCH || b->last.cls != EMU_INSN_JCC ||
		    b->last.x.cls != QX86_JCC)
			return -1;
		for (k = 0; k < b->n; k++) {
			if (k + 1 < b->n && b->insn[k].cls != EMU_INSN_OTHER &&
			    b->insn[k].cls != EMU_INSN_JMP)
				return -1;
			if (trig && emu_trigger_hit(trig, b->insn[k].ip))
				return -1;
		}
		total += b->n;
		p->jcc[i] = b->insn[b->n - 1].ip;
		fall = p->jcc[i] + b->last.x.len;
		target = b->last.x.target;
		if (target == fall || (target != next && fall != next))
			return -1;
		p->stay[i] = next;
		p->exit[i] = target == next ? fall : target;
	}
	if (total > EMU_LOOP_INSNS)
		return -1;
	/* each instruction once; each exit its own and off the cycle, in
	 * code that does not change */
	for (i = 0; i < fd->m; i++) {
		for (k = 0; k < fd->b[i]->n; k++)
			if (in_cycle(fd, fd->b[i]->insn[k].ip) != 1)
				return -1;
		for (j = 0; j < i; j++)
			if (p->exit[j] == p->exit[i])
				return -1;
		if (in_cycle(fd, p->exit[i]) ||
		    !emu_proc_fixed(t->proc, p->exit[i], 1))
			return -1;
	}
	return 0;
}

/* The induction register of the cycle: 0 with it in @p, -1 when none. */
static int induction(struct emu_thread *t, const struct finding *fd,
		     struct emu_loop_plan *p)
{
	unsigned int writes[16] = {0}, at_b[16], at_i[16], i;
	int64_t step[16] = {0};
	struct qx86_gpr_fx fx;
	uint8_t raw[16];
	uint32_t k;
	size_t n;
	int r;

	for (i = 0; i < fd->m; i++)
		for (k = 0; k + 1 < fd->b[i]->n; k++) {
			const struct emu_block_insn *e = &fd->b[i]->insn[k];

			n = emu_proc_code(t->proc, t->tid, e->ip, raw, e->len);
			if (n != e->len ||
			    qx86_gpr_effect(t->proc->insns->x, raw, n, 64,
					    e->ip, &fx) != e->len)
				return -1;
			for (r = 0; r < 16; r++)
				if (fx.writes >> r & 1) {
					writes[r]++;
					step[r] =
					    fx.step_reg == r ? fx.step : 0;
					at_b[r] = i;
					at_i[r] = k;
				}
		}
	for (r = 0; r < 16; r++)
		if (r != RSP && writes[r] == 1 && step[r]) {
			p->reg = r;
			p->step = step[r];
			p->ub = at_b[r];
			p->ui = at_i[r];
			return 0;
		}
	return -1;
}

/* The blocks of the cycle that starts at @entry with the @m hops before
 * the last: 0 with @fd's references, or an error. */
static int blocks_of(struct emu_thread *t, const struct emu_hops *h,
		     unsigned int m, struct finding *fd)
{
	struct emu_code c;
	unsigned int i;
	int err;

	emu_run_code(t, &c);
	fd->m = 0;
	for (i = 0; i < m; i++) {
		uint64_t e = h->to[h->n - 1 - m + i];

		err = emu_fast_block(t->proc->fast, &c, e, &fd->b[i]);
		if (err) {
			finding_put(fd);
			return err;
		}
		fd->m++;
	}
	return 0;
}

/* The plan of the cycle of @m blocks the hops close, kept with its first
 * block (NULL: none, or an error in *@err). */
static struct emu_loop_plan *plan_of(struct emu_thread *t,
				     const struct emu_hops *h, unsigned int m,
				     struct finding *fd, int *err)
{
	struct emu_loop_plan *p;
	unsigned int i;

	*err = blocks_of(t, h, m, fd);
	if (*err)
		return NULL;
	if (fd->b[0]->plan) {
		p = fd->b[0]->plan;
		for (i = 0; i < m && p->m == m; i++)
			if (p->entry[i] != fd->b[i]->entry)
				return NULL;
		return p->m == m ? p : NULL;
	}
	if (fd->b[0]->loop_tried >> (m - 1) & 1)
		return NULL;
	fd->b[0]->loop_tried |= (uint8_t)(1u << (m - 1));
	p = calloc(1, sizeof(*p));
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	p->m = m;
	for (i = 0; i < m; i++)
		p->entry[i] = fd->b[i]->entry;
	if (shape(t, fd, p) || induction(t, fd, p)) {
		free(p);
		return NULL;
	}
	fd->b[0]->plan = p;
	return p;
}

/* ---- running it ---- */

/* Whether no breakpoint but the jumps' lies on the cycle. */
static bool clear_path(const struct emu_thread *t, const struct finding *fd)
{
	unsigned int i;
	uint32_t k;

	for (i = 0; i < fd->m; i++)
		for (k = 0; k + 1 < fd->b[i]->n; k++)
			if (emu_fast_planted(t->proc->fast,
					     fd->b[i]->insn[k].ip))
				return false;
	return true;
}

/* The breakpoints as the loop found them: the jumps' planted again, the
 * exits' of its own taken out (the first @n of each). */
static int restore(struct emu_thread *t, unsigned int n)
{
	struct emu_loop *l = &t->loop;
	struct emu_code c;
	unsigned int i;
	int err = 0, e;

	emu_run_code(t, &c);
	for (i = 0; i < n; i++) {
		if (l->ours[i]) {
			e = emu_fast_lift(t->proc->fast, &c, l->plan->exit[i]);
			err = err ? err : e;
			l->ours[i] = false;
		}
		if (l->lifted[i]) {
			e = emu_fast_plant(t->proc->fast, &c, l->plan->jcc[i]);
			err = err ? err : e;
			l->lifted[i] = false;
		}
	}
	return err == -ESRCH || err == -EIO || err == -EFAULT || err == -EAGAIN
		   ? 0
		   : err;
}

static void release(struct emu_thread *t)
{
	unsigned int i;

	for (i = 0; t->loop.plan && i < t->loop.plan->m; i++)
		emu_block_put(t->loop.b[i]);
	memset(&t->loop, 0, sizeof(t->loop));
}

/* Take out the jumps' breakpoints, plant the exits': 1, or 0 when one
 * cannot be (all as before), or an error. */
static int arm(struct emu_thread *t)
{
	struct emu_loop *l = &t->loop;
	const struct emu_loop_plan *p = l->plan;
	struct emu_code c;
	unsigned int i;
	int err = 0;

	emu_run_code(t, &c);
	for (i = 0; i < p->m && !err; i++) {
		l->ours[i] = !emu_fast_planted(t->proc->fast, p->exit[i]);
		err = emu_fast_plant(t->proc->fast, &c, p->exit[i]);
		if (err) {
			l->ours[i] = false;
			break;
		}
		l->lifted[i] = emu_fast_planted(t->proc->fast, p->jcc[i]);
		err = emu_fast_lift(t->proc->fast, &c, p->jcc[i]);
	}
	if (!err)
		return 1;
	/* as before, for what was done (the jump of a failed exit still
	 * planted) */
	restore(t, i);
	return err == -ENOMEM ? err : 0;
}

/*
 * Whether running @p natively is worth its cost: a breakpoint in and one
 * out for each jump and exit (about half a stop each), against a stop
 * saved for each jump of each trip.  A loop that left after fewer than
 * two trips on average is run only at every 16th chance, to see whether
 * that changed.
 */
static bool pays(struct emu_loop_plan *p)
{
	if (p->runs < 4 || p->trips >= 2 * p->runs)
		return true;
	if (++p->skipped < 16)
		return false;
	p->skipped = 0;
	return true;
}

/* A run of @p made @n whole trips. */
static void paid(struct emu_loop_plan *p, uint64_t n)
{
	p->runs++;
	p->trips += n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
	if (p->runs >= 64 || p->trips >= UINT32_MAX / 2) {
		p->runs /= 2;
		p->trips /= 2;
	}
}

/* Whether the last hop repeats the one @m hops before it. */
static bool closes(const struct emu_hops *h, unsigned int m)
{
	return m < h->n && h->jcc[h->n - 1 - m] == h->jcc[h->n - 1] &&
	       h->to[h->n - 1 - m] == h->to[h->n - 1];
}

int emu_loop_try(struct emu_thread *t)
{
	const struct emu_hops *h = &t->hops;
	struct emu_loop_plan *p = NULL;
	struct finding fd = {.m = 0};
	unsigned int m, i;
	int err = 0;

	/* this runs at every conditional jump: the hops first, the threads
	 * only where they close a cycle */
	for (m = 1; m <= EMU_LOOP_BLOCKS && !closes(h, m); m++)
		;
	if (m > EMU_LOOP_BLOCKS || !emu_tr_alone(t))
		return 0;
	for (; m <= EMU_LOOP_BLOCKS && !p; m++) {
		if (!closes(h, m))
			continue;
		p = plan_of(t, h, m, &fd, &err);
		if (err)
			return err;
		if (!p)
			finding_put(&fd);
	}
	if (!p)
		return 0;
	if (t->regs.rip != p->entry[0] || !clear_path(t, &fd) || !pays(p)) {
		finding_put(&fd);
		return 0;
	}
	t->loop.plan = p;
	for (i = 0; i < p->m; i++)
		t->loop.b[i] = fd.b[i];
	t->loop.start = reg_value(&t->regs, p->reg);
	err = arm(t);
	if (err <= 0) {
		release(t);
		return err;
	}
	err = emu_run_go(t);
	if (err) {
		restore(t, p->m);
		release(t);
		return err;
	}
	t->loop.until = emu_tr_now_ns() + EMU_LOOP_SLICE_NS;
	emu_loop_forget(&t->hops);
	t->tr->res->loops++;
	return 1;
}

/* ---- the stop ---- */

/* Block @i's path and its jump, which went to @to. */
static int retire_block(struct emu_thread *t, unsigned int i, uint64_t to)
{
	const struct emu_block *b = t->loop.b[i];
	int err;

	err = emu_run_path(t, b, b->n - 1);
	if (!err)
		err = emu_tr_retire(t, t->loop.plan->jcc[i], &b->last, to,
				    NR_NONE);
	return err;
}

/*
 * @n whole trips, told in chunks as if each jump had stopped the thread
 * (emu_pt_jccs: the jumps' packets in bulk).  Once a stop request has
 * waited too long (emu_tr_hurry), the trips not told yet but the last
 * chunk's are a gap in the trace.
 */
static int retire_trips(struct emu_thread *t, uint64_t n)
{
	const struct emu_loop_plan *p = t->loop.plan;
	uint64_t insns = 0, k;
	bool taken[EMU_LOOP_BLOCKS];
	unsigned int i;
	int err = 0;

	for (i = 0; i < p->m; i++) {
		const struct emu_block *b = t->loop.b[i];

		insns += b->n;
		taken[i] = p->stay[i] != p->jcc[i] + b->last.x.len;
	}
	while (!err && n) {
		if (n > EMU_LOOP_CHUNK && emu_tr_hurry(t->tr)) {
			t->tr->res->gaps++;
			err = emu_pt_gap(t->pt, p->entry[0], p->entry[0]);
			n = EMU_LOOP_CHUNK;
			continue;
		}
		k = n < EMU_LOOP_CHUNK ? n : EMU_LOOP_CHUNK;
		t->tr->res->insns += k * insns;
		err = emu_pt_jccs(t->pt, p->jcc, taken, p->m, k);
		n -= k;
	}
	return err;
}

/* Where @ip is: block *@bi, instruction *@k (the path up to it ran);
 * false when not on the cycle. */
static bool where(const struct emu_loop *l, uint64_t ip, unsigned int *bi,
		  uint32_t *k)
{
	unsigned int i;

	for (i = 0; i < l->plan->m; i++)
		for (*k = 0; *k < l->b[i]->n; (*k)++)
			if (l->b[i]->insn[*k].ip == ip) {
				*bi = i;
				return true;
			}
	return false;
}

/*
 * The whole trips made, with the last partial one up to block @bi,
 * instruction @k (@k = the block's n: its jump ran too): -1 when the
 * register does not tell (not a whole number of steps).
 */
static int64_t trips(const struct emu_loop *l,
		     const struct user_regs_struct *regs, unsigned int bi,
		     uint32_t k)
{
	const struct emu_loop_plan *p = l->plan;
	uint64_t d = reg_value(regs, p->reg) - l->start;
	uint64_t step = (uint64_t)p->step, mag;

	if (p->ub < bi || (p->ub == bi && p->ui < k))
		d -= step; /* the partial trip stepped it too */
	if (p->step < 0) {
		d = -d;
		mag = -step;
	} else {
		mag = step;
	}
	if (d % mag || d / mag > INT64_MAX)
		return -1;
	return (int64_t)(d / mag);
}

int emu_loop_stop(struct emu_thread *t, int sig, struct user_regs_struct *regs,
		  bool *left)
{
	struct emu_loop *l = &t->loop;
	const struct emu_loop_plan *p = l->plan;
	unsigned int bi = 0, i;
	bool out = false;
	uint32_t k = 0;
	int64_t n;
	int err;

	*left = false;
	/* at a way out: the thread stopped just past its breakpoint, or a
	 * signal stopped it there before the breakpoint ran */
	for (i = 0; i < p->m; i++)
		if (regs->rip - (sig == SIGTRAP) == p->exit[i]) {
			*left = sig == SIGTRAP;
			out = true;
			bi = i;
			k = l->b[i]->n;
			break;
		}
	err = restore(t, p->m);
	if (!out && !where(l, regs->rip, &bi, &k)) {
		/* nowhere on the cycle: what ran cannot be told */
		t->run = l->b[0];
		t->run->refs++;
		release(t);
		return err;
	}
	n = trips(l, regs, bi, k);
	if (n < 0) {
		t->tr->res->gaps++;
		err = err ? err : emu_pt_gap(t->pt, p->entry[0], regs->rip);
	}
	paid(l->plan, n > 0 ? (uint64_t)n : 0);
	if (n > 0)
		t->tr->res->loop_trips += (uint64_t)n;
	if (!err && n > 0)
		err = retire_trips(t, (uint64_t)n);
	for (i = 0; !err && n >= 0 && i < bi; i++)
		err = retire_block(t, i, p->stay[i]);
	if (!err && n >= 0 && out)
		err = retire_block(t, bi, p->exit[bi]);
	if (*left) {
		regs->rip--;
		t->regs = *regs;
		t->regs_dirty = true;
		release(t);
		return err ? err : emu_tr_at(t, &t->regs);
	}
	if (out) { /* at the way out, the signal's to handle: no block */
		release(t);
		return err;
	}
	t->run = l->b[bi];
	t->run->refs++;
	if (n < 0) { /* the gap covers the partial trip too */
		t->run = NULL;
		emu_block_put(l->b[bi]);
	}
	release(t);
	return err;
}

void emu_loop_drop(struct emu_thread *t)
{
	release(t);
}
