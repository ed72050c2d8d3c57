// SPDX-License-Identifier: MIT
/*
 * Signal delivery, which the plugin does not see happen.  A thread that
 * goes from a block to an address the block's end cannot reach (or by an
 * indirect branch to a signal handler's entry) was interrupted: QEMU
 * delivers a signal between blocks, or a fault stopped the block midway,
 * and the handler runs now.  Intel PT shows that as FUP (where the thread
 * was) + TIP.PGD, then TIP.PGE at the handler.
 *
 * Where the thread was is in the signal frame QEMU wrote on the guest's
 * stack (uc_mcontext.rip), under the handler's return address (the
 * handler's sa_restorer, from rt_sigaction): the first block of a
 * handler, when QEMU translates it, gets a memory callback on its first
 * push or call, whose address gives the stack pointer the handler
 * started with, hence the frame.  Until that callback runs (or the next
 * block starts) the entry is pending and nothing is written.  Without the
 * frame: the block's end has one way on and the handler takes only
 * signals that come between blocks (no fault), so the thread was there;
 * otherwise the trace has a gap (FUP at the block's start + TIP.PGD, OVF,
 * TIP.PGE): never a wrong flow.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/emulate/qemu/plugin.h"
#include "capture/emulate/qemu/qemu_api.h"

#define NSIG_MAX 65
#define SA_RESTORER_FLAG 0x04000000ULL
/* struct rt_sigframe (x86-64): pretcode, then the ucontext, whose
 * uc_mcontext (after uc_flags, uc_link, uc_stack) has rip at 16 words */
#define FRAME_RIP (8 + 40 + 16 * 8)

/* Each signal's handler and the address its frame returns to. */
static uint64_t handler[NSIG_MAX], restorer[NSIG_MAX];
/* The handlers' addresses, each once: looked up at every indirect
 * branch. */
static uint64_t entries[NSIG_MAX];
static unsigned int nr_entries;

/* Where a handler's first block finds its frame: the frame is at the
 * address its probed instruction stores to plus @off. */
struct qsig_probe {
	int64_t off;
};

/* An entry into a handler not told yet. */
struct qsig_pending {
	const struct qtb *from; /* the block the thread was in */
	uint64_t to;		/* the handler */
};

/* Signals a fault raises: they stop a block midway. */
static bool synchronous(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
}

void qp_sig_action(int sig, uint64_t act)
{
	uint64_t k[3]; /* the kernel's sigaction: handler, flags, restorer */

	if (sig <= 0 || sig >= NSIG_MAX || qp_guest_read(act, k, sizeof(k)))
		return;
	if (k[0] <= 1) /* SIG_DFL, SIG_IGN */
		k[0] = 0;
	handler[sig] = k[0];
	restorer[sig] = k[1] & SA_RESTORER_FLAG ? k[2] : 0;
	nr_entries = 0;
	for (sig = 1; sig < NSIG_MAX; sig++)
		if (handler[sig] && !qp_sig_is_handler(handler[sig]))
			entries[nr_entries++] = handler[sig];
}

bool qp_sig_is_handler(uint64_t pc)
{
	unsigned int i;

	for (i = 0; i < nr_entries; i++)
		if (entries[i] == pc)
			return true;
	return false;
}

/* Whether @ret is where a frame of handler @pc returns to. */
static bool restorer_of(uint64_t pc, uint64_t ret)
{
	int s;

	for (s = 1; s < NSIG_MAX; s++)
		if (handler[s] == pc && restorer[s] == ret && ret)
			return true;
	return false;
}

/* Whether @pc handles only signals that come between blocks. */
static bool between_blocks(uint64_t pc)
{
	bool any = false;
	int s;

	for (s = 1; s < NSIG_MAX; s++) {
		if (handler[s] != pc)
			continue;
		if (synchronous(s))
			return false;
		any = true;
	}
	return any;
}

/* The one place @p's end goes on to by its bytes, or 0. */
static uint64_t only_way(const struct qtb *p)
{
	switch (p->insn.cls) {
	case EMU_INSN_OTHER:
		return p->flags & QTB_REP ? 0 : p->end;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		return p->insn.x.target;
	default:
		return 0;
	}
}

static void told(struct qthread *t, int err)
{
	if (err)
		t->dead = true;
}

/* Tracing goes on at @to (TIP.PGE). */
static int enter(struct qthread *t, uint64_t to)
{
	static const struct emu_insn other;

	return emu_pt_insn(t->pt, to, &other, to);
}

/* @p was interrupted with the thread at @x: @p's instructions before @x
 * ran (or all of them, and its end went on to @x), then FUP @x, TIP.PGD,
 * TIP.PGE at @to.  False when @x is no place @p can have been. */
static bool interrupted_at(struct qthread *t, const struct qtb *p, uint64_t x,
			   uint64_t to)
{
	int err = 0;

	if (x < p->pc || x > p->last) {
		if (!emu_insn_may_go(&p->insn, p->last, x) &&
		    !(x == p->last && (p->flags & QTB_REP)))
			return false;
		if (p->insn.cls != EMU_INSN_OTHER)
			err = emu_pt_insn(t->pt, p->last, &p->insn, x);
	}
	if (!err)
		err = emu_pt_async(t->pt, x);
	if (!err)
		err = enter(t, to);
	told(t, err);
	return true;
}

/* What the block's bytes and the handler say, without the frame. */
static void settle(struct qthread *t, const struct qtb *p, uint64_t to)
{
	uint64_t x = only_way(p);

	if (x && between_blocks(to) && interrupted_at(t, p, x, to))
		return;
	told(t, emu_pt_gap(t->pt, p->pc, to));
}

void qp_sig_settle(struct qthread *t)
{
	struct qsig_pending *s = t->sig;

	if (!s)
		return;
	t->sig = NULL;
	settle(t, s->from, s->to);
	free(s);
}

/* The handler's first block stored at @vaddr: the frame says where the
 * thread was. */
static void on_frame_store(unsigned int vcpu, qemu_plugin_meminfo_t info,
			   uint64_t vaddr, void *udata)
{
	const struct qsig_probe *probe = udata;
	struct qthread *t = qp_thread();
	struct qsig_pending *s = t ? t->sig : NULL;
	uint64_t frame = vaddr + (uint64_t)probe->off, ret, rip;
	bool signal;

	if (!s)
		return;
	signal = !qp_guest_read(frame, &ret, sizeof(ret)) &&
		 restorer_of(s->to, ret) &&
		 !qp_guest_read(frame + FRAME_RIP, &rip, sizeof(rip));
	t->sig = NULL;
	if (!signal) {
		/* no signal frame: the branch went there */
		if (s->from->insn.cls == EMU_INSN_OTHER ||
		    !emu_insn_may_go(&s->from->insn, s->from->last, s->to))
			settle(t, s->from, s->to);
		else
			told(t, emu_pt_insn(t->pt, s->from->last,
					    &s->from->insn, s->to));
	} else if (!interrupted_at(t, s->from, rip, s->to)) {
		settle(t, s->from, s->to);
	}
	free(s);
}

void qp_sig_probe(struct qtb *b, struct qemu_plugin_tb *tb)
{
	size_t i, n = b->ninsns;
	struct qx86_gpr_fx fx;
	struct qsig_probe *probe;
	struct qemu_plugin_insn *in;
	int64_t delta = 0;

	for (i = 0; i < n; i++) {
		in = qemu_plugin_tb_get_insn(tb, i);
		if (qx86_gpr_effect(qp.x86, qemu_plugin_insn_data(in),
				    qemu_plugin_insn_size(in), 64,
				    qemu_plugin_insn_vaddr(in), &fx) <= 0)
			return;
		if (fx.pushed) {
			probe = malloc(sizeof(*probe));
			if (!probe)
				return;
			/* it stores at entry rsp + delta - pushed */
			probe->off = fx.pushed - delta;
			b->flags |= QTB_HANDLER;
			qemu_plugin_register_vcpu_mem_cb(
			    in, on_frame_store, QEMU_PLUGIN_CB_NO_REGS,
			    QEMU_PLUGIN_MEM_W, probe);
			return;
		}
		if (fx.step_reg == 4)
			delta += fx.step;
		else if (fx.writes & 1u << 4)
			return; /* the stack pointer as no constant moves it */
	}
}

void qp_sig_async(struct qthread *t, const struct qtb *p, const struct qtb *b)
{
	struct qsig_pending *s;

	if (b && (b->flags & QTB_HANDLER)) {
		s = malloc(sizeof(*s));
		if (s) {
			s->from = p;
			s->to = b->pc;
			t->sig = s;
			return;
		}
	}
	settle(t, p, b ? b->pc : p->end);
}
