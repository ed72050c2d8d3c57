// SPDX-License-Identifier: MIT
/*
 * The breakpoint engine: a thread runs natively from a block's entry to
 * its end (emulate/fast.h), where a breakpoint stops it before a branch or
 * the kernel stops it at a system call's entry.  What ran is the block's
 * path, retired at once; the branch is emulated from the registers of the
 * stop (the condition from RFLAGS, an indirect target from its operand, a
 * return address from the stack; a call's push written to the stack), and
 * the thread goes on to the next block's end without being stepped.  A
 * conditional jump whose ways run to different stops (emu_fast_ways) runs
 * natively too: the block and the way the stop lies on are retired then.  A
 * system call, an instruction no block runs over, and a branch whose
 * emulation would fault are single-stepped by the stepping engine, so that
 * the kernel does what it does (signals, faults, exec, clone).
 *
 * The program's memory is read and written for emulation as its own
 * accesses would (process_vm_readv/writev honour page protections); a
 * branch that would fault there runs for real, its breakpoint lifted for
 * the step.  Breakpoint stops do not depend on the trap flag: a host that
 * swallows single-step traps touches only the stepped instructions.
 */
#include "capture/emulate/trace_priv.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/uio.h>

#include "capture/emulate/trigger.h"
#include "capture/task.h"

#define EMULATE_MAX 64		   /* branches emulated in a row at a stop */
#define USER_END 0x7ffffffff000ull /* user code lies below */

/* ---- the thread's code, for the block builder ---- */

static int code_insn(void *ctx, uint64_t ip, struct emu_insn *out)
{
	return emu_tr_insn_at(ctx, ip, out);
}

static bool code_fixed(void *ctx, uint64_t ip, size_t len)
{
	struct emu_thread *t = ctx;

	return emu_proc_fixed(t->proc, ip, len);
}

static bool code_stop_at(void *ctx, uint64_t ip)
{
	struct emu_thread *t = ctx;
	const struct emu_trigger *trig = t->tr->opts->trigger;

	return trig && emu_trigger_hit(trig, ip);
}

static int code_peek(void *ctx, uint64_t addr, uint64_t *val)
{
	struct emu_thread *t = ctx;

	return t->tr->ops->peek(t->tr->ops_ctx, t->tid, addr, val);
}

static int code_poke(void *ctx, uint64_t addr, uint64_t val)
{
	struct emu_thread *t = ctx;

	return t->tr->ops->poke(t->tr->ops_ctx, t->tid, addr, val);
}

void emu_run_code(struct emu_thread *t, struct emu_code *c)
{
	c->insn = code_insn;
	c->fixed = code_fixed;
	c->stop_at = code_stop_at;
	c->peek = code_peek;
	c->poke = code_poke;
	c->ctx = t;
}

/* ---- memory as the program's own accesses see it ---- */

static int mem_read(void *ctx, uint64_t addr, uint64_t *val)
{
	struct emu_thread *t = ctx;
	struct iovec local = {val, 8};
	struct iovec remote = {(void *)(uintptr_t)addr, 8};

	return process_vm_readv(t->tid, &local, 1, &remote, 1, 0) == 8
		   ? 0
		   : -EFAULT;
}

static int mem_write(struct emu_thread *t, uint64_t addr, uint64_t val)
{
	struct iovec local = {&val, 8};
	struct iovec remote = {(void *)(uintptr_t)addr, 8};

	return process_vm_writev(t->tid, &local, 1, &remote, 1, 0) == 8
		   ? 0
		   : -EFAULT;
}

/* ---- resuming ---- */

static int flush_regs(struct emu_thread *t)
{
	int err = 0;

	if (t->regs_dirty)
		err = t->tr->ops->setregs(t->tr->ops_ctx, t->tid, &t->regs);
	t->regs_dirty = false;
	return err == -ESRCH ? 0 : err;
}

/* prev is single-stepped. */
static int step(struct emu_thread *t)
{
	int err = flush_regs(t);

	emu_loop_forget(&t->hops);
	if (err)
		return err;
	emu_tr_predict(t, &t->regs);
	return emu_tr_step(t);
}

int emu_run_step(struct emu_thread *t)
{
	struct emu_code c;
	int err;

	if (emu_fast_planted(t->proc->fast, t->prev_ip)) {
		emu_run_code(t, &c);
		err = emu_fast_lift(t->proc->fast, &c, t->prev_ip);
		if (err)
			return err == -ESRCH ? 0 : err;
		t->lifted = t->prev_ip;
	}
	return step(t);
}

int emu_run_stepped(struct emu_thread *t)
{
	struct emu_code c;
	uint64_t addr = t->lifted;
	int err;

	t->lifted = 0;
	emu_run_code(t, &c);
	err = emu_fast_plant(t->proc->fast, &c, addr);
	/* gone (killed), or its memory is no longer there: nothing to do */
	return err == -ESRCH || err == -EIO || err == -EFAULT || err == -EAGAIN
		   ? 0
		   : err;
}

int emu_run_go(struct emu_thread *t)
{
	int err = flush_regs(t);

	if (!err)
		err = t->tr->ops->cont(t->tr->ops_ctx, t->tid, 0);
	return err == -ESRCH ? 0 : err;
}

void emu_run_drop(struct emu_thread *t)
{
	emu_block_put(t->run);
	emu_block_put(t->way[0]);
	emu_block_put(t->way[1]);
	t->run = t->way[0] = t->way[1] = NULL;
}

/*
 * Where @b's end, a conditional jump, has no breakpoint and can run
 * natively (emu_fast_ways), the ends of its two ways planted instead: 1
 * with the ways the thread's, 0 when the end is to be planted, or an
 * error.
 */
static int plant_ways(struct emu_thread *t, const struct emu_code *c,
		      struct emu_block *b)
{
	struct emu_fast *f = t->proc->fast;
	struct emu_block *way[2];
	int i, err;

	if (emu_fast_planted(f, b->insn[b->n - 1].ip))
		return 0;
	err = emu_fast_ways(f, c, b, way);
	if (err <= 0)
		return err == -ENOMEM || err == -ESRCH ? err : 0;
	for (err = 0, i = 0; i < 2 && !err; i++)
		if (way[i]->end == EMU_END_BRANCH)
			err = emu_fast_plant(f, c,
					     way[i]->insn[way[i]->n - 1].ip);
	if (err) {
		emu_block_put(way[0]);
		emu_block_put(way[1]);
		return err == -ENOMEM || err == -ESRCH ? err : 0;
	}
	t->way[0] = way[0];
	t->way[1] = way[1];
	return 1;
}

/* Run natively from prev_ip, the entry of @b (its reference is the
 * thread's while it runs). */
static int run(struct emu_thread *t, struct emu_block *b)
{
	const struct emu_block_insn *end = &b->insn[b->n - 1];
	struct emu_code c;
	int err = 0;

	if (b->end == EMU_END_BRANCH) {
		emu_run_code(t, &c);
		err = plant_ways(t, &c, b);
		if (err == 0)
			err = emu_fast_plant(t->proc->fast, &c, end->ip);
		else if (err == 1)
			err = 0;
		if (err == -ENOMEM || err == -ESRCH) {
			emu_block_put(b);
			return err == -ESRCH ? 0 : err;
		}
		if (err) { /* no breakpoint there: step */
			emu_block_put(b);
			return step(t);
		}
	}
	err = emu_run_go(t);
	t->run = b;
	if (err) {
		emu_run_drop(t);
		return err;
	}
	t->have_prev = false;
	return 0;
}

/*
 * prev, a branch, as the CPU would run it from t->regs: 1 when done
 * (retired, the registers updated), 0 when it must run for real (its
 * memory access would fault, or it leaves user space), or an error.
 */
static int emulate(struct emu_thread *t)
{
	struct user_regs_struct *r = &t->regs;
	const struct emu_insn *in = &t->prev;
	uint64_t ip = t->prev_ip, next;
	int n;

	n = emu_insn_next(in, ip, r, mem_read, t, &next);
	if (n <= 0)
		return n == -EFAULT ? 0 : n;
	if (next >= USER_END)
		return 0;
	if (in->cls == EMU_INSN_CALL || in->cls == EMU_INSN_CALL_IND) {
		if (mem_write(t, r->rsp - 8, ip + in->x.len))
			return 0;
		r->rsp -= 8;
	} else if (in->cls == EMU_INSN_RET) {
		r->rsp += 8 + in->x.imm;
	}
	r->rip = next;
	t->regs_dirty = true;
	t->have_prev = false;
	n = emu_tr_retire(t, ip, in, next, NR_NONE);
	return n < 0 ? n : 1;
}

int emu_run_resume(struct emu_thread *t)
{
	struct emu_block *b;
	struct emu_code c;
	uint64_t at;
	int i, err, end, cls;

	emu_run_code(t, &c);
	for (i = 0; i < EMULATE_MAX; i++) {
		/* at a breakpoint (a block's end, maybe a direct jump that
		 * starts this block): the branch there first */
		if (!emu_fast_planted(t->proc->fast, t->prev_ip)) {
			err = emu_fast_block(t->proc->fast, &c, t->prev_ip, &b);
			if (err)
				return err;
			if (b->n > 1 && b->end != EMU_END_STEP)
				return run(t, b);
			end = b->end;
			emu_block_put(b);
			if (end != EMU_END_BRANCH)
				return step(t);
		}
		at = t->prev_ip;
		cls = t->prev.cls;
		err = emulate(t);
		if (err < 0)
			return err;
		if (!err)
			return emu_run_step(t);
		err = emu_tr_at(t, &t->regs);
		if (err)
			return err;
		if (cls != EMU_INSN_JCC) {
			emu_loop_forget(&t->hops);
			continue;
		}
		/* a loop closed by this jump runs natively to its exit */
		emu_loop_hop(&t->hops, at, t->regs.rip);
		err = emu_loop_try(t);
		if (err)
			return err < 0 ? err : 0;
	}
	return emu_run_step(t);
}

/* ---- address spaces ---- */

/* The breakpoint engine: the process of @t has a new address space
 * (exec), with no breakpoint in it. */
int emu_run_new_space(struct emu_thread *t)
{
	struct emu_thread *o;

	for (o = t->tr->threads; o; o = o->next)
		if (o->proc == t->proc) {
			o->lifted = 0;
			emu_loop_forget(&o->hops);
			emu_run_drop(o);
		}
	emu_fast_put(t->proc->fast);
	t->proc->fast = emu_fast_new();
	return t->proc->fast ? 0 : -ENOMEM;
}

/*
 * The breakpoint engine follows every child, for its breakpoints are in
 * the memory the child starts with.  A forked one that is not to be
 * traced gets its copy back as the program wrote it, to be let go (1).  One
 * that shares its parent's memory (vfork) shares its breakpoints: it is
 * traced, silently where it is not followed, until its exec or exit.
 */
int emu_run_fork(struct emu_tracer *tr, struct emu_thread *t, pid_t ppid)
{
	struct emu_proc *parent = emu_tr_find_proc(tr, ppid);
	struct emu_code c;
	int err;

	if (!parent || !parent->fast)
		return 0;
	emu_run_code(t, &c);
	if (task_same_vm(ppid, t->tid) > 0) {
		t->silent = !tr->opts->inherit;
		t->proc->fast = emu_fast_get(parent->fast);
		return 0;
	}
	if (tr->opts->inherit) {
		t->proc->fast = emu_fast_fork(parent->fast, &c);
		return t->proc->fast ? 0 : -ENOMEM;
	}
	err = emu_fast_strip(parent->fast, &c);
	return err ? err : 1;
}

/* ---- stops of a running thread ---- */

int emu_run_path(struct emu_thread *t, const struct emu_block *b, uint32_t k)
{
	struct emu_insn in;
	uint32_t i;
	int err;

	t->tr->res->insns += k;
	memset(&in, 0, sizeof(in));
	for (i = 0; i < k; i++) {
		const struct emu_block_insn *e = &b->insn[i];

		/* straight-line code makes no packet but the first (a
		 * TIP.PGE where tracing was off) */
		if (i && e->cls == EMU_INSN_OTHER)
			continue;
		in.cls = e->cls;
		in.x.len = e->len;
		err = emu_pt_insn(t->pt, e->ip, &in, b->insn[i + 1].ip);
		if (err)
			return err;
	}
	return 0;
}

/* What ran from @from up to @to cannot be told (a breakpoint taken out
 * while the thread ran to it): an overflow in the trace. */
static int gap(struct emu_thread *t, uint64_t from, uint64_t to)
{
	t->tr->res->gaps++;
	return emu_pt_gap(t->pt, from, to);
}

/* @t stopped at a system call's entry: the call, at @regs->rip minus its
 * length, is prev, to be stepped (the registers as before it ran). */
static int at_syscall(struct emu_thread *t, const struct emu_block *b,
		      const struct user_regs_struct *regs)
{
	const struct emu_block_insn *end = &b->insn[b->n - 1];
	int err = 0;

	if (b->end == EMU_END_SYSCALL && regs->rip == end->ip + end->len) {
		err = emu_run_path(t, b, b->n - 1);
		t->prev = b->last;
		t->prev_ip = end->ip;
	} else { /* a system call past the block's end */
		err = gap(t, b->entry, regs->rip - 2);
		if (!err)
			err = emu_tr_insn_at(t, regs->rip - 2, &t->prev);
		t->prev_ip = regs->rip - 2;
	}
	t->regs = *regs;
	t->regs.rip = t->prev_ip;
	t->regs.rax = t->regs.orig_rax;
	t->regs_dirty = false; /* the thread is in the call: not written */
	t->have_prev = true;
	return err;
}

/* Where @t stopped on @b's path: the place of @ip, or, at a system call's
 * stop (@sc), the place of the call @ip ends; b->n where it is not on it. */
static uint32_t place(const struct emu_block *b, uint64_t ip, bool sc)
{
	const struct emu_block_insn *end = &b->insn[b->n - 1];
	uint32_t i;

	if (sc)
		return b->end == EMU_END_SYSCALL && ip == end->ip + end->len
			   ? b->n - 1
			   : b->n;
	for (i = 0; i < b->n && b->insn[i].ip != ip; i++)
		;
	return i;
}

/*
 * The block @t stopped in at @ip (@sc: as place's), to *@in (the reference
 * the caller's) with the place there in *@at: the block it ran, or the way
 * that block's end went when the end ran natively (plant_ways; what ran up
 * to the way is retired).  Where the stop lies on none, the block it ran
 * (*@at its length).  0 or an error.
 */
static int stopped_in(struct emu_thread *t, uint64_t ip, bool sc,
		      struct emu_block **in, uint32_t *at)
{
	struct emu_block *b = t->run, *way[2] = {t->way[0], t->way[1]};
	const struct emu_block_insn *end;
	uint32_t k, i;
	int err = 0;

	t->run = t->way[0] = t->way[1] = NULL;
	*in = b;
	*at = b ? place(b, ip, sc) : 0;
	for (k = 0; way[0] && *at == b->n && k < 2; k++) {
		i = place(way[k], ip, sc);
		if (i == way[k]->n)
			continue;
		end = &b->insn[b->n - 1];
		err = emu_run_path(t, b, b->n - 1);
		if (!err)
			err = emu_tr_retire(t, end->ip, &b->last, way[k]->entry,
					    NR_NONE);
		emu_loop_hop(&t->hops, end->ip, way[k]->entry);
		*in = way[k];
		*at = i;
		way[k] = b;
		break;
	}
	emu_block_put(way[0]);
	emu_block_put(way[1]);
	return err;
}

int emu_run_stop(struct emu_thread *t, int sig, struct user_regs_struct *regs,
		 bool *done)
{
	struct emu_block *b;
	bool at_bp, left;
	uint32_t i;
	int err = 0;

	*done = true;
	if (t->loop.plan) {
		err = emu_loop_stop(t, sig, regs, &left);
		if (err || left)
			return err;
	}
	if (sig == (SIGTRAP | 0x80) && t->run) {
		err = stopped_in(t, regs->rip, true, &b, &i);
		emu_loop_forget(&t->hops);
		if (!err)
			err = at_syscall(t, b, regs);
		emu_block_put(b);
		return err;
	}
	/* At a breakpoint (the block's end, or one another block planted
	 * on a direct jump this path runs over), the branch there has not
	 * run: the thread is there.  Otherwise it stopped inside the path:
	 * a signal, a fault, an exit.  (No block: a loop's stop whose path
	 * is told already.) */
	at_bp = (sig == SIGTRAP || !sig) &&
		emu_fast_planted(t->proc->fast, regs->rip - 1);
	if (at_bp)
		regs->rip--;
	err = stopped_in(t, regs->rip, false, &b, &i);
	if (!at_bp)
		emu_loop_forget(&t->hops);
	if (b && !err)
		err = i < b->n ? emu_run_path(t, b, i)
			       : gap(t, b->entry, regs->rip);
	emu_block_put(b);
	t->regs = *regs;
	t->regs_dirty = at_bp;
	if (err)
		return err;
	if (at_bp && sig)
		return emu_tr_at(t, &t->regs);
	*done = false;
	t->prev_ip = regs->rip;
	t->have_prev = true;
	return emu_tr_insn_at(t, regs->rip, &t->prev);
}
