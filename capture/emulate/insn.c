// SPDX-License-Identifier: MIT
/*
 * x86-64 branch classification on top of the x86 layer's length decoder:
 * the opcodes that change the flow of control, their targets and
 * conditions, and the operand of indirect jumps and calls.  Every other
 * instruction (VEX, EVEX and XOP encoded ones included) is "other" and goes
 * to the next one.
 */
#include "capture/emulate/insn.h"

#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "auxfmt/x86/ild.h"

#define NR32_SIGRETURN 119
#define NR32_RT_SIGRETURN 173

/* ModRM (+ SIB + displacement) of an indirect jump or call at @m. */
static void parse_operand(const uint8_t *m, uint8_t rex, const struct qd_ild *d,
			  struct emu_operand *o)
{
	uint8_t mod = m[0] >> 6, rm = m[0] & 7, sib;
	const uint8_t *disp = m + 1;

	memset(o, 0, sizeof(*o));
	o->base = (int8_t)(rm | (rex & 1) << 3);
	o->index = -1;
	if (mod == 3)
		return;
	o->mem = true;
	o->seg = d->seg == 0x64 || d->seg == 0x65 ? d->seg : 0;
	o->addr32 = d->addr_size;
	o->scale = 1;
	if (rm == 4) {
		sib = m[1];
		disp++;
		o->scale = (uint8_t)(1u << (sib >> 6));
		o->index = (int8_t)(((sib >> 3) & 7) | (rex & 2) << 2);
		if (o->index == 4)
			o->index = -1;
		o->base = (int8_t)((sib & 7) | (rex & 1) << 3);
		if (mod == 0 && (sib & 7) == 5)
			o->base = -1;
	} else if (mod == 0 && rm == 5) {
		o->base = EMU_REG_RIP;
	}
	if (mod == 1)
		o->disp = (int8_t)disp[0];
	else if (mod == 2 ||
		 (mod == 0 && (o->base == -1 || o->base == EMU_REG_RIP)))
		o->disp = (int32_t)((uint32_t)disp[0] | (uint32_t)disp[1] << 8 |
				    (uint32_t)disp[2] << 16 |
				    (uint32_t)disp[3] << 24);
}

static void classify_1b(const uint8_t *buf, const struct qd_ild *d,
			struct emu_insn *insn)
{
	uint8_t op = d->op, reg;

	if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
	    (op >= 0x6c && op <= 0x6f))
		insn->rep = d->rep != 0;
	if (d->kind == QD_ILD_JCC) {
		insn->cls = EMU_INSN_JCC;
		insn->cond = op >= 0x70 && op <= 0x7f
				 ? op & 15
				 : EMU_COND_LOOPNE + (op - 0xe0);
		insn->addr32 = d->addr_size;
	} else if (d->kind == QD_ILD_JMP || d->kind == QD_ILD_CALL) {
		insn->cls =
		    d->kind == QD_ILD_JMP ? EMU_INSN_JMP : EMU_INSN_CALL;
	}
	insn->target = d->target;
	switch (op) {
	case 0xc2:
		insn->ret_imm =
		    (uint16_t)(buf[d->len - 2] | buf[d->len - 1] << 8);
		/* fall through */
	case 0xc3:
		insn->cls = EMU_INSN_RET;
		break;
	case 0xff:
		reg = (buf[d->modrm_off] >> 3) & 7;
		if (reg == 2 || reg == 4) {
			insn->cls =
			    reg == 2 ? EMU_INSN_CALL_IND : EMU_INSN_JMP_IND;
			parse_operand(buf + d->modrm_off, d->rex, d,
				      &insn->opnd);
		} else if (reg == 3 || reg == 5) {
			insn->cls = EMU_INSN_FAR;
		}
		break;
	case 0xcd:
		insn->raw[1] = buf[d->len - 1];
		/* fall through */
	case 0xca:
	case 0xcb: /* far ret */
	case 0xcc: /* int3 */
	case 0xcf: /* iret */
	case 0x9a:
	case 0xea: /* far call/jmp (invalid in 64-bit mode) */
		insn->cls = EMU_INSN_FAR;
		insn->raw[0] = op;
		break;
	default:
		break;
	}
}

int emu_insn_classify(const uint8_t *buf, size_t avail, uint64_t ip,
		      struct emu_insn *insn)
{
	struct qd_ild d;

	memset(insn, 0, sizeof(*insn));
	if (qd_ild_decode(buf, avail, 64, ip, &d) < 0)
		return -1;
	insn->len = d.len;
	if (d.vex)
		return 0;
	if (d.map == 0) {
		classify_1b(buf, &d, insn);
	} else if (d.map == 1 && d.kind == QD_ILD_JCC) {
		insn->cls = EMU_INSN_JCC;
		insn->cond = d.op & 15;
		insn->target = d.target;
	} else if (d.map == 1 && (d.op == 0x05 || d.op == 0x07 ||
				  d.op == 0x34 || d.op == 0x35)) {
		/* syscall, sysret, sysenter, sysexit */
		insn->cls = EMU_INSN_FAR;
		insn->raw[0] = 0x0f;
		insn->raw[1] = d.op;
	}
	return 0;
}

static uint64_t reg_value(const struct user_regs_struct *r, int n)
{
	const unsigned long long v[16] = {
	    r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
	    r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};

	return n >= 0 && n < 16 ? v[n] : 0;
}

/* JrCXZ and LOOP*: on RCX (ECX with an address-size prefix), which LOOP
 * decrements first. */
static bool count_holds(const struct emu_insn *insn,
			const struct user_regs_struct *regs, bool zf)
{
	uint64_t cx = insn->addr32 ? regs->rcx & 0xffffffffu : regs->rcx;

	switch (insn->cond) {
	case EMU_COND_JRCXZ:
		return cx == 0;
	case EMU_COND_LOOP:
		return cx != 1;
	case EMU_COND_LOOPE:
		return cx != 1 && zf;
	default: /* LOOPNE */
		return cx != 1 && !zf;
	}
}

static bool cond_holds(const struct emu_insn *insn,
		       const struct user_regs_struct *regs)
{
	uint64_t f = regs->eflags;
	bool cf = f & 1, pf = f >> 2 & 1, zf = f >> 6 & 1, sf = f >> 7 & 1;
	bool of = f >> 11 & 1;
	/* the SDM's conditions by pairs: O, B, Z, BE, S, P, L, LE; the odd
	 * one of each pair negates */
	const bool base[8] = {of, cf, zf,	cf || zf,
			      sf, pf, sf != of, zf || sf != of};

	if (insn->cond >= EMU_COND_LOOPNE)
		return count_holds(insn, regs, zf);
	return base[insn->cond >> 1] != (insn->cond & 1);
}

/* The target of an indirect jump or call. */
static int operand_value(const struct emu_insn *insn, uint64_t ip,
			 const struct user_regs_struct *regs, emu_read_fn read,
			 void *ctx, uint64_t *v)
{
	const struct emu_operand *o = &insn->opnd;
	uint64_t ea;

	if (!o->mem) {
		*v = reg_value(regs, o->base);
		return 1;
	}
	ea = o->base == EMU_REG_RIP ? ip + insn->len : reg_value(regs, o->base);
	if (o->index >= 0)
		ea += reg_value(regs, o->index) * o->scale;
	ea += (uint64_t)(int64_t)o->disp;
	if (o->addr32)
		ea &= 0xffffffffu;
	if (o->seg == 0x64)
		ea += regs->fs_base;
	else if (o->seg == 0x65)
		ea += regs->gs_base;
	return read(ctx, ea, v);
}

/*
 * Where a system call returns: to the next instruction (or it restarts on
 * itself, which the caller allows), or for rt_sigreturn where the signal
 * frame says (the kernel finds the frame's ucontext at the stack pointer).
 * 1, 0 when not known (far transfers, i386 signal returns), or an error.
 */
static int far_next(const struct emu_insn *insn, uint64_t ip,
		    const struct user_regs_struct *regs, emu_read_fn read,
		    void *ctx, uint64_t *next)
{
	uint32_t nr32 = (uint32_t)regs->rax;

	*next = ip + insn->len;
	if (insn->raw[0] == 0x0f && insn->raw[1] == 0x05) {
		if (regs->rax != SYS_rt_sigreturn)
			return 1;
		return read(ctx,
			    regs->rsp + offsetof(ucontext_t,
						 uc_mcontext.gregs[REG_RIP]),
			    next) < 0
			   ? 0
			   : 1;
	}
	if (insn->raw[0] == 0xcd && insn->raw[1] == 0x80)
		return nr32 != NR32_SIGRETURN && nr32 != NR32_RT_SIGRETURN;
	return 0;
}

int emu_insn_next(const struct emu_insn *insn, uint64_t ip,
		  const struct user_regs_struct *regs, emu_read_fn read,
		  void *ctx, uint64_t *next)
{
	int err;

	if (!insn->len)
		return 0;
	switch (insn->cls) {
	case EMU_INSN_JCC:
		*next = cond_holds(insn, regs) ? insn->target : ip + insn->len;
		return 1;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		*next = insn->target;
		return 1;
	case EMU_INSN_JMP_IND:
	case EMU_INSN_CALL_IND:
		err = operand_value(insn, ip, regs, read, ctx, next);
		return err < 0 ? err : 1;
	case EMU_INSN_RET:
		err = read(ctx, regs->rsp, next);
		return err < 0 ? err : 1;
	case EMU_INSN_FAR:
		return far_next(insn, ip, regs, read, ctx, next);
	default:
		*next = ip + insn->len;
		return 1;
	}
}

bool emu_insn_may_go(const struct emu_insn *insn, uint64_t ip, uint64_t to)
{
	if (!insn->len)
		return false;
	switch (insn->cls) {
	case EMU_INSN_JCC:
		return to == insn->target || to == ip + insn->len;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		return to == insn->target;
	case EMU_INSN_OTHER:
		return to == ip + insn->len || (insn->rep && to == ip);
	default:
		return true;
	}
}

int emu_insn_only_next(const struct emu_insn *insn, uint64_t ip, uint64_t *next)
{
	if (!insn->len || insn->rep)
		return 0;
	switch (insn->cls) {
	case EMU_INSN_OTHER:
		*next = ip + insn->len;
		return 1;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		*next = insn->target;
		return 1;
	default:
		return 0;
	}
}
