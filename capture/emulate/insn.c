// SPDX-License-Identifier: MIT
/*
 * What an instruction does to the trace, on the x86 layer's decoding: the
 * packet of its branch class, and where it goes from the registers (a
 * condition from the flags, an indirect operand from registers and memory,
 * a return address from the stack).
 */
#include "capture/emulate/insn.h"

#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#define NR32_SIGRETURN 119
#define NR32_RT_SIGRETURN 173

/* The packet each class of the x86 layer makes. */
static const uint8_t packet_class[QX86_NCLASSES] = {
	[QX86_NONE] = EMU_INSN_OTHER,	      [QX86_JCC] = EMU_INSN_JCC,
	[QX86_LOOP] = EMU_INSN_JCC,	      [QX86_JMP] = EMU_INSN_JMP,
	[QX86_JMP_IND] = EMU_INSN_JMP_IND,   [QX86_CALL] = EMU_INSN_CALL,
	[QX86_CALL_IND] = EMU_INSN_CALL_IND, [QX86_RET] = EMU_INSN_RET,
	[QX86_FAR_JMP] = EMU_INSN_FAR,	      [QX86_FAR_CALL] = EMU_INSN_FAR,
	[QX86_FAR_RET] = EMU_INSN_FAR,	      [QX86_SYSCALL] = EMU_INSN_FAR,
	[QX86_SYSENTER] = EMU_INSN_FAR,      [QX86_SYSRET] = EMU_INSN_FAR,
	[QX86_INT] = EMU_INSN_FAR,	      [QX86_IRET] = EMU_INSN_FAR,
};

void emu_insn_classify(const struct qx86_insn *x, struct emu_insn *insn)
{
	memset(insn, 0, sizeof(*insn));
	if (!x || x->cls >= QX86_NCLASSES)
		return;
	insn->x = *x;
	insn->cls = packet_class[x->cls];
}

static uint64_t reg_value(const struct user_regs_struct *r, int n)
{
	const unsigned long long v[16] = {
	    r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
	    r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};

	return n >= 0 && n < 16 ? v[n] : 0;
}

/* JrCXZ and LOOP*: on RCX (ECX, CX with an address-size prefix), which
 * LOOP decrements first. */
static bool count_holds(const struct qx86_insn *x,
			const struct user_regs_struct *regs, bool zf)
{
	uint64_t cx = x->asz == 64   ? regs->rcx
		      : x->asz == 32 ? regs->rcx & 0xffffffffu
				     : regs->rcx & 0xffffu;

	switch (x->cond) {
	case QX86_COND_CXZ:
		return cx == 0;
	case QX86_COND_LOOP:
		return cx != 1;
	case QX86_COND_LOOPE:
		return cx != 1 && zf;
	default: /* LOOPNE */
		return cx != 1 && !zf;
	}
}

static bool cond_holds(const struct qx86_insn *x,
		       const struct user_regs_struct *regs)
{
	uint64_t f = regs->eflags;
	bool cf = f & 1, pf = f >> 2 & 1, zf = f >> 6 & 1, sf = f >> 7 & 1;
	bool of = f >> 11 & 1;
	/* the SDM's conditions by pairs: O, B, Z, BE, S, P, L, LE; the odd
	 * one of each pair negates */
	const bool base[8] = {of, cf, zf,	cf || zf,
			      sf, pf, sf != of, zf || sf != of};

	if (x->cls == QX86_LOOP)
		return count_holds(x, regs, zf);
	return base[(x->cond >> 1) & 7] != (x->cond & 1);
}

/* The target of an indirect jump or call (a near one: 8 bytes). */
static int operand_value(const struct qx86_insn *x,
			 const struct user_regs_struct *regs, emu_read_fn read,
			 void *ctx, uint64_t *v)
{
	const struct qx86_opnd *o = &x->opnd;
	uint64_t ea;

	if (o->type == QX86_OPND_REG) {
		*v = reg_value(regs, o->base);
		return 1;
	}
	ea = (o->base >= 0 ? reg_value(regs, o->base) : 0) + o->disp;
	if (o->index >= 0)
		ea += reg_value(regs, o->index) * o->scale;
	if (x->asz == 32)
		ea &= 0xffffffffu;
	if (o->seg == QX86_SEG_FS)
		ea += regs->fs_base;
	else if (o->seg == QX86_SEG_GS)
		ea += regs->gs_base;
	return read(ctx, ea, v);
}

/*
 * Where a system call returns: to the next instruction (or it restarts on
 * itself, which the caller allows), or for rt_sigreturn where the signal
 * frame says (the kernel finds the frame's ucontext at the stack pointer).
 * 1, 0 when not known (far transfers, i386 signal returns), or an error.
 */
static int far_next(const struct qx86_insn *x, uint64_t ip,
		    const struct user_regs_struct *regs, emu_read_fn read,
		    void *ctx, uint64_t *next)
{
	uint32_t nr32 = (uint32_t)regs->rax;

	*next = ip + x->len;
	if (x->cls == QX86_SYSCALL) {
		if (regs->rax != SYS_rt_sigreturn)
			return 1;
		return read(ctx,
			    regs->rsp + offsetof(ucontext_t,
						 uc_mcontext.gregs[REG_RIP]),
			    next) < 0
			   ? 0
			   : 1;
	}
	if (x->cls == QX86_INT && x->imm == 0x80)
		return nr32 != NR32_SIGRETURN && nr32 != NR32_RT_SIGRETURN;
	return 0;
}

int emu_insn_next(const struct emu_insn *insn, uint64_t ip,
		  const struct user_regs_struct *regs, emu_read_fn read,
		  void *ctx, uint64_t *next)
{
	const struct qx86_insn *x = &insn->x;
	int err;

	if (!x->len)
		return 0;
	switch (insn->cls) {
	case EMU_INSN_JCC:
		*next = cond_holds(x, regs) ? x->target : ip + x->len;
		return 1;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		*next = x->target;
		return 1;
	case EMU_INSN_JMP_IND:
	case EMU_INSN_CALL_IND:
		err = operand_value(x, regs, read, ctx, next);
		return err < 0 ? err : 1;
	case EMU_INSN_RET:
		err = read(ctx, regs->rsp, next);
		return err < 0 ? err : 1;
	case EMU_INSN_FAR:
		return far_next(x, ip, regs, read, ctx, next);
	default:
		*next = ip + x->len;
		return 1;
	}
}

bool emu_insn_may_go(const struct emu_insn *insn, uint64_t ip, uint64_t to)
{
	const struct qx86_insn *x = &insn->x;

	if (!x->len)
		return false;
	switch (insn->cls) {
	case EMU_INSN_JCC:
		return to == x->target || to == ip + x->len;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		return to == x->target;
	case EMU_INSN_OTHER:
		return to == ip + x->len || ((x->flags & QX86_F_REP) && to == ip);
	default:
		return true;
	}
}

int emu_insn_only_next(const struct emu_insn *insn, uint64_t ip, uint64_t *next)
{
	const struct qx86_insn *x = &insn->x;

	if (!x->len || (x->flags & QX86_F_REP))
		return 0;
	switch (insn->cls) {
	case EMU_INSN_OTHER:
		*next = ip + x->len;
		return 1;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		*next = x->target;
		return 1;
	default:
		return 0;
	}
}
