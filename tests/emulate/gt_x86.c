// SPDX-License-Identifier: MIT
/* Instruction semantics for the ground truth, on Zydis. */
#include "gt_x86.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

static const char *const names[GT_NKINDS] = {
    "other",	"cpuid", "jcc",	    "jmp", "jmp-ind", "call",
    "call-ind", "ret",	 "syscall", "far", "bad",
};

const char *gt_kind_name(enum gt_kind k)
{
	return k < GT_NKINDS ? names[k] : "?";
}

int gt_kinds(const char *list)
{
	char buf[256], *t, *save = NULL;
	int mask = 0, k;

	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < GT_NKINDS && strcmp(t, names[k]); k++)
			;
		if (!strcmp(t, "all"))
			mask |= (1 << GT_NKINDS) - 1;
		else if (k == GT_NKINDS)
			return -1;
		else
			mask |= 1 << k;
	}
	return mask;
}

static bool peek(pid_t tid, uint64_t addr, uint64_t *v)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)addr, NULL);
	*v = (uint64_t)w;
	return !(w == -1 && errno);
}

static enum gt_kind kind_of(const struct gt_insn *in)
{
	const ZydisDecodedInstruction *z = &in->zi;
	bool rel = in->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;

	if (z->mnemonic == ZYDIS_MNEMONIC_CPUID)
		return GT_CPUID;
	if (z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return GT_FAR;
	switch (z->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return GT_JCC;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return rel ? GT_JMP : GT_JMP_IND;
	case ZYDIS_CATEGORY_CALL:
		return rel ? GT_CALL : GT_CALL_IND;
	case ZYDIS_CATEGORY_RET:
		return z->mnemonic == ZYDIS_MNEMONIC_RET ? GT_RET : GT_FAR;
	case ZYDIS_CATEGORY_SYSCALL:
		return z->mnemonic == ZYDIS_MNEMONIC_SYSCALL ? GT_SYSCALL
							     : GT_FAR;
	case ZYDIS_CATEGORY_INTERRUPT:
		return z->mnemonic == ZYDIS_MNEMONIC_INT &&
			       in->op[0].imm.value.u == 0x80
			   ? GT_SYSCALL
			   : GT_FAR;
	default:
		return GT_OTHER;
	}
}

void gt_decode(pid_t tid, uint64_t ip, struct gt_insn *in)
{
	static ZydisDecoder dec;
	static bool init;
	uint8_t b[16];
	struct iovec l = {b, sizeof(b)}, r = {(void *)(uintptr_t)ip, sizeof(b)};
	ssize_t n;

	if (!init) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		init = true;
	}
	memset(in, 0, sizeof(*in));
	in->ip = ip;
	in->kind = GT_BAD;
	n = process_vm_readv(tid, &l, 1, &r, 1, 0);
	if (n <= 0 || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(
			  &dec, b, (ZyanUSize)n, &in->zi, in->op)))
		return;
	in->kind = kind_of(in);
	in->rep =
	    (in->zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				  ZYDIS_ATTRIB_HAS_REPNE)) &&
	    (in->zi.meta.category == ZYDIS_CATEGORY_STRINGOP ||
	     in->zi.meta.category == ZYDIS_CATEGORY_IOSTRINGOP);
}

static void context(const struct user_regs_struct *r, ZydisRegisterContext *c)
{
	static const ZydisRegister r64[16] = {
	    ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RDX,
	    ZYDIS_REGISTER_RBX, ZYDIS_REGISTER_RSP, ZYDIS_REGISTER_RBP,
	    ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_R8,
	    ZYDIS_REGISTER_R9,	ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
	    ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14,
	    ZYDIS_REGISTER_R15,
	};
	static const ZydisRegister r32[16] = {
	    ZYDIS_REGISTER_EAX,	 ZYDIS_REGISTER_ECX,  ZYDIS_REGISTER_EDX,
	    ZYDIS_REGISTER_EBX,	 ZYDIS_REGISTER_ESP,  ZYDIS_REGISTER_EBP,
	    ZYDIS_REGISTER_ESI,	 ZYDIS_REGISTER_EDI,  ZYDIS_REGISTER_R8D,
	    ZYDIS_REGISTER_R9D,	 ZYDIS_REGISTER_R10D, ZYDIS_REGISTER_R11D,
	    ZYDIS_REGISTER_R12D, ZYDIS_REGISTER_R13D, ZYDIS_REGISTER_R14D,
	    ZYDIS_REGISTER_R15D,
	};
	const unsigned long long v[16] = {
	    r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
	    r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < 16; i++) {
		c->values[r64[i]] = v[i];
		c->values[r32[i]] = v[i] & 0xffffffffu;
	}
}

/* The value of an indirect branch's operand (the target). */
static bool target(pid_t tid, const struct gt_insn *in,
		   const struct user_regs_struct *regs, uint64_t *t)
{
	const ZydisDecodedOperand *o = &in->op[0];
	ZydisRegisterContext ctx;
	ZyanU64 a;

	context(regs, &ctx);
	if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		*t = ctx.values[o->reg.value];
		return true;
	}
	if (o->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    !ZYAN_SUCCESS(
		ZydisCalcAbsoluteAddressEx(&in->zi, o, in->ip, &ctx, &a)))
		return false;
	if (o->mem.segment == ZYDIS_REGISTER_FS)
		a += regs->fs_base;
	else if (o->mem.segment == ZYDIS_REGISTER_GS)
		a += regs->gs_base;
	return peek(tid, a, t);
}

static bool taken(const struct gt_insn *in, const struct user_regs_struct *r)
{
	uint64_t f = r->eflags, cx = r->rcx;
	bool cf = f & 0x1, pf = f & 0x4, zf = f & 0x40, sf = f & 0x80;
	bool of = f & 0x800;

	if (in->zi.address_width == 32)
		cx = (uint32_t)cx;
	switch (in->zi.mnemonic) {
	case ZYDIS_MNEMONIC_JO:
		return of;
	case ZYDIS_MNEMONIC_JNO:
		return !of;
	case ZYDIS_MNEMONIC_JB:
		return cf;
	case ZYDIS_MNEMONIC_JNB:
		return !cf;
	case ZYDIS_MNEMONIC_JZ:
		return zf;
	case ZYDIS_MNEMONIC_JNZ:
		return !zf;
	case ZYDIS_MNEMONIC_JBE:
		return cf || zf;
	case ZYDIS_MNEMONIC_JNBE:
		return !cf && !zf;
	case ZYDIS_MNEMONIC_JS:
		return sf;
	case ZYDIS_MNEMONIC_JNS:
		return !sf;
	case ZYDIS_MNEMONIC_JP:
		return pf;
	case ZYDIS_MNEMONIC_JNP:
		return !pf;
	case ZYDIS_MNEMONIC_JL:
		return sf != of;
	case ZYDIS_MNEMONIC_JNL:
		return sf == of;
	case ZYDIS_MNEMONIC_JLE:
		return zf || sf != of;
	case ZYDIS_MNEMONIC_JNLE:
		return !zf && sf == of;
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
		return cx == 0;
	case ZYDIS_MNEMONIC_LOOP:
		return cx - 1 != 0;
	case ZYDIS_MNEMONIC_LOOPE:
		return cx - 1 != 0 && zf;
	case ZYDIS_MNEMONIC_LOOPNE:
		return cx - 1 != 0 && !zf;
	default:
		return false;
	}
}

static uint64_t rel_target(const struct gt_insn *in)
{
	ZyanU64 a = 0;

	ZydisCalcAbsoluteAddress(&in->zi, &in->op[0], in->ip, &a);
	return a;
}

static uint16_t ret_imm(const struct gt_insn *in)
{
	return in->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE
		   ? (uint16_t)in->op[0].imm.value.u
		   : 0;
}

int gt_next(pid_t tid, const struct gt_insn *in,
	    const struct user_regs_struct *regs, uint64_t *next)
{
	uint64_t fall = in->ip + in->zi.length, nr = regs->rax;

	switch (in->kind) {
	case GT_JCC:
		*next = taken(in, regs) ? rel_target(in) : fall;
		return 1;
	case GT_JMP:
	case GT_CALL:
		*next = rel_target(in);
		return 1;
	case GT_JMP_IND:
	case GT_CALL_IND:
		return target(tid, in, regs, next);
	case GT_RET:
		return peek(tid, regs->rsp, next);
	case GT_SYSCALL:
		/* rt_sigreturn goes where the ucontext at the stack pointer
		 * says; sigreturn and rt_sigreturn of i386: not known */
		if (in->zi.mnemonic == ZYDIS_MNEMONIC_SYSCALL && nr == 15)
			return peek(tid,
				    regs->rsp +
					offsetof(ucontext_t,
						 uc_mcontext.gregs[REG_RIP]),
				    next);
		if (in->zi.mnemonic != ZYDIS_MNEMONIC_SYSCALL &&
		    ((uint32_t)nr == 119 || (uint32_t)nr == 173))
			return 0;
		*next = fall;
		return 1;
	case GT_OTHER:
	case GT_CPUID:
		*next = fall;
		return 1;
	default:
		return 0;
	}
}

int gt_only_next(const struct gt_insn *in, uint64_t *next)
{
	if (in->rep)
		return 0;
	switch (in->kind) {
	case GT_OTHER:
	case GT_CPUID:
		*next = in->ip + in->zi.length;
		return 1;
	case GT_JMP:
	case GT_CALL:
		*next = rel_target(in);
		return 1;
	default:
		return 0;
	}
}

bool gt_ran_last(pid_t tid, const struct gt_insn *in,
		 const struct user_regs_struct *regs)
{
	uint64_t fall = in->ip + in->zi.length, v, rip = regs->rip;
	struct user_regs_struct before = *regs;

	switch (in->kind) {
	case GT_JCC:
		return rip == rel_target(in) || rip == fall;
	case GT_JMP:
		return rip == rel_target(in);
	case GT_CALL:
		return rip == rel_target(in) && peek(tid, regs->rsp, &v) &&
		       v == fall;
	case GT_CALL_IND:
		if (!peek(tid, regs->rsp, &v) || v != fall)
			return false;
		before.rsp += 8;
		/* fall through */
	case GT_JMP_IND:
		return target(tid, in, &before, &v) && v == rip;
	case GT_RET:
		return peek(tid, regs->rsp - 8 - ret_imm(in), &v) && v == rip;
	case GT_SYSCALL:
		return in->zi.mnemonic != ZYDIS_MNEMONIC_SYSCALL ||
		       regs->orig_rax == 15 || rip == fall || rip == in->ip;
	case GT_OTHER:
	case GT_CPUID:
		return rip == fall || (in->rep && rip == in->ip);
	case GT_FAR:
		return true;
	default:
		return false;
	}
}

int gt_swallow(pid_t tid, const struct user_regs_struct *regs, bool twice,
	       uint64_t first)
{
	struct gt_insn in, b;
	uint64_t after;

	gt_decode(tid, regs->rip, &in);
	if (in.kind == GT_SYSCALL || in.kind == GT_BAD)
		return -1;
	if (!first)
		return twice && (in.kind == GT_JCC || in.kind == GT_CALL);
	/* the stop after the instruction past @first must show where that
	 * instruction went: after a call, the callee's first instruction
	 * (a plain one or a Jcc: both recovered); after a Jcc, a plain one
	 * going where the Jcc itself could not lead */
	gt_decode(tid, first, &b);
	if (b.kind == GT_CALL)
		return (in.kind == GT_OTHER && !in.rep) || in.kind == GT_JCC
			       ? 0
			       : -1;
	if (in.kind != GT_OTHER || !gt_only_next(&in, &after))
		return -1;
	if (after == first + b.zi.length || after == rel_target(&b))
		return -1;
	return 2; /* after a Jcc: a gap */
}
