// SPDX-License-Identifier: MIT
/*
 * Signal delivery, which the plugin does not see happen: a thread that
 * goes from a block to an address the block's end cannot reach was
 * interrupted (QEMU delivers a signal between blocks, or a fault stopped
 * the block midway) and runs a handler now.  Intel PT shows that as FUP
 * (where the thread was) + TIP.PGD, then TIP.PGE at the handler.  Where
 * the thread was is known when the block's end has one way on and the
 * signal is one of those that come between blocks; otherwise the trace
 * has a gap there (FUP at the block's start + TIP.PGD, OVF, TIP.PGE):
 * never a wrong flow.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "capture/emulate/qemu/plugin.h"

#define NSIG_MAX 65

/* The handler each signal has (0: none), from rt_sigaction. */
static uint64_t handler[NSIG_MAX];
static unsigned int nr_handlers;

/* Signals a fault raises: they stop a block midway. */
static bool synchronous(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
}

void qp_sig_action(int sig, uint64_t act)
{
	uint64_t h;

	if (sig <= 0 || sig >= NSIG_MAX || qp_guest_read(act, &h, sizeof(h)))
		return;
	if (h <= 1) /* SIG_DFL, SIG_IGN */
		h = 0;
	if (!handler[sig] && h)
		nr_handlers++;
	else if (handler[sig] && !h)
		nr_handlers--;
	handler[sig] = h;
}

bool qp_sig_is_handler(uint64_t pc)
{
	int s;

	if (!nr_handlers)
		return false;
	for (s = 1; s < NSIG_MAX; s++)
		if (handler[s] == pc)
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

void qp_sig_probe(struct qtb *b, struct qemu_plugin_tb *tb)
{
	b->flags |= QTB_HANDLER;
}

void qp_sig_block(struct qthread *t, const struct qtb *b)
{
	t->sig = NULL;
}

void qp_sig_async(struct qthread *t, const struct qtb *p, uint64_t next)
{
	uint64_t x = only_way(p);
	int err;

	if (x && between_blocks(next)) {
		/* the block ran to its end, went on to x: interrupted there */
		err = emu_pt_insn(t->pt, p->last, &p->insn, x);
		if (!err)
			err = emu_pt_async(t->pt, x);
		if (!err) {
			static const struct emu_insn other;

			err = emu_pt_insn(t->pt, next, &other, next);
		}
	} else {
		err = emu_pt_gap(t->pt, p->pc, next);
	}
	if (err)
		t->dead = true;
}
