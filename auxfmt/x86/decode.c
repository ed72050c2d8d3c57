// SPDX-License-Identifier: MIT
/*
 * One x86 instruction by Zydis: its length, branch class, direct target
 * and indirect operand.  The common instructions of 64-bit code are
 * taken by fast.c first; Zydis runs in its minimal mode (length,
 * mnemonic, category, branch type and the raw parts), and only indirect
 * branches are decoded again in full, for their operand.
 */
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "auxfmt/x86/x86_priv.h"
#include "qpt/qpt.h"

static const struct {
	ZydisMachineMode mode;
	ZydisStackWidth stack;
} modes[QX86_NMODES] = {
	{ ZYDIS_MACHINE_MODE_LEGACY_16, ZYDIS_STACK_WIDTH_16 },
	{ ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32 },
	{ ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64 },
};

int qx86_mode_index(int bits)
{
	return bits == 16 ? 0 : bits == 32 ? 1 : bits == 64 ? 2 : -1;
}

int qx86_init_full(ZydisDecoder *d, int mode)
{
	return ZYAN_SUCCESS(ZydisDecoderInit(d, modes[mode].mode,
					     modes[mode].stack))
		   ? 0
		   : -QPT_E_INVAL;
}

struct qx86 *qx86_new(void)
{
	struct qx86 *x = calloc(1, sizeof(*x));
	int m;

	if (!x)
		return NULL;
	for (m = 0; m < QX86_NMODES; m++) {
		if (qx86_init_full(&x->full[m], m) < 0 ||
		    ZYAN_FAILED(ZydisDecoderInit(&x->min[m], modes[m].mode,
						 modes[m].stack)) ||
		    ZYAN_FAILED(ZydisDecoderEnableMode(
			&x->min[m], ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE))) {
			free(x);
			return NULL;
		}
	}
	return x;
}

void qx86_free(struct qx86 *x)
{
	free(x);
}

int qx86_status(ZyanStatus s)
{
	if (ZYAN_SUCCESS(s))
		return 0;
	return s == ZYDIS_STATUS_NO_MORE_DATA ? -QPT_E_TRUNCATED
					      : -QPT_E_FORMAT;
}

/* Jumps, calls and returns by their far or near, direct or indirect
 * forms; NONE for what is not one. */
static uint8_t transfer_class(const ZydisDecodedInstruction *z, uint8_t near,
			      uint8_t ind, uint8_t far)
{
	if (z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return far;
	if (z->meta.branch_type == ZYDIS_BRANCH_TYPE_NONE)
		return QX86_NONE;
	return z->raw.imm[0].is_relative || near == QX86_RET ? near : ind;
}

static uint8_t class_of(const ZydisDecodedInstruction *z)
{
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		return transfer_class(z, QX86_JMP, QX86_JMP_IND, QX86_FAR_JMP);
	case ZYDIS_MNEMONIC_CALL:
		return transfer_class(z, QX86_CALL, QX86_CALL_IND,
				      QX86_FAR_CALL);
	case ZYDIS_MNEMONIC_RET:
		return transfer_class(z, QX86_RET, QX86_RET, QX86_FAR_RET);
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
		return QX86_LOOP;
	case ZYDIS_MNEMONIC_SYSCALL:
		return QX86_SYSCALL;
	case ZYDIS_MNEMONIC_SYSENTER:
		return QX86_SYSENTER;
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		return QX86_SYSRET;
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return QX86_INT;
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		return QX86_IRET;
	default:
		/* Jcc; not XBEGIN or XEND (no branch type: they branch
		 * only when a transaction aborts) */
		return z->meta.category == ZYDIS_CATEGORY_COND_BR &&
			       z->meta.branch_type != ZYDIS_BRANCH_TYPE_NONE
			   ? QX86_JCC
			   : QX86_NONE;
	}
}

static uint8_t loop_cond(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_LOOPNE: return QX86_COND_LOOPNE;
	case ZYDIS_MNEMONIC_LOOPE: return QX86_COND_LOOPE;
	case ZYDIS_MNEMONIC_LOOP: return QX86_COND_LOOP;
	default: return QX86_COND_CXZ;
	}
}

static bool has_rep(const ZydisDecodedInstruction *z)
{
	unsigned i;

	if (z->meta.category != ZYDIS_CATEGORY_STRINGOP &&
	    z->meta.category != ZYDIS_CATEGORY_IOSTRINGOP)
		return false;
	for (i = 0; i < z->raw.prefix_count; i++)
		if (z->raw.prefixes[i].value == 0xf3 ||
		    z->raw.prefixes[i].value == 0xf2)
			return true;
	return false;
}

/* A relative branch's target: it wraps at the operand size outside
 * 64-bit mode. */
static uint64_t rel_target(const ZydisDecodedInstruction *z, uint64_t ip)
{
	uint64_t t = ip + z->length + (uint64_t)z->raw.imm[0].value.s;

	if (z->machine_mode == ZYDIS_MACHINE_MODE_LONG_64)
		return t;
	return z->operand_width == 16 ? t & 0xffff : t & 0xffffffff;
}

static uint16_t imm_of(const ZydisDecodedInstruction *z, uint8_t cls)
{
	if (cls == QX86_INT && z->mnemonic != ZYDIS_MNEMONIC_INT)
		return z->mnemonic == ZYDIS_MNEMONIC_INT3   ? 3
		       : z->mnemonic == ZYDIS_MNEMONIC_INT1 ? 1
							    : 4;
	if (cls == QX86_INT || cls == QX86_RET || cls == QX86_FAR_RET)
		return (uint16_t)z->raw.imm[0].value.u;
	return 0;
}

/* A general purpose register's number (0..15), or -1. */
static int8_t gpr(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR64:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR16:
		return ZydisRegisterGetId(r);
	default:
		return -1;
	}
}

static void set_mem(const ZydisDecodedInstruction *z,
		    const ZydisDecodedOperand *o, uint64_t ip,
		    struct qx86_opnd *out)
{
	uint64_t amask = z->address_width == 64 ? ~0ull
			 : z->address_width == 32
			     ? 0xffffffffull
			     : 0xffffull;

	out->type = QX86_OPND_MEM;
	out->base = gpr(o->mem.base);
	out->index = gpr(o->mem.index);
	out->scale = out->index >= 0 ? o->mem.scale : 1;
	out->disp = o->mem.disp.has_displacement
			? (uint64_t)o->mem.disp.value
			: 0;
	if (o->mem.base == ZYDIS_REGISTER_RIP ||
	    o->mem.base == ZYDIS_REGISTER_EIP)
		out->disp = (ip + z->length + out->disp) & amask;
	out->seg = o->mem.segment == ZYDIS_REGISTER_FS	 ? QX86_SEG_FS
		   : o->mem.segment == ZYDIS_REGISTER_GS ? QX86_SEG_GS
							 : QX86_SEG_NONE;
}

/* The operand of an indirect branch: the instruction again, in full. */
static int operand(const struct qx86 *x, int m, const uint8_t *p, size_t n,
		   uint64_t ip, struct qx86_opnd *out)
{
	ZydisDecodedInstruction z;
	ZydisDecodedOperand o[ZYDIS_MAX_OPERAND_COUNT];
	int err;

	err = qx86_status(ZydisDecoderDecodeFull(&x->full[m], p, n, &z, o));
	if (err < 0)
		return err;
	out->size = (uint8_t)(o[0].size / 8);
	if (o[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
		out->type = QX86_OPND_REG;
		out->base = gpr(o[0].reg.value);
		out->index = -1;
		out->scale = 1;
	} else if (o[0].type == ZYDIS_OPERAND_TYPE_MEMORY) {
		set_mem(&z, &o[0], ip, out);
	}
	return 0;
}

int qx86_decode_zydis(const struct qx86 *x, const uint8_t *p, size_t n,
		      int bits, uint64_t ip, struct qx86_insn *out)
{
	int m = qx86_mode_index(bits), err;
	ZydisDecodedInstruction z;

	memset(out, 0, sizeof(*out));
	if (m < 0)
		return -QPT_E_INVAL;
	err = qx86_status(ZydisDecoderDecodeInstruction(&x->min[m], NULL, p,
							n, &z));
	if (err < 0)
		return err;
	out->len = z.length;
	out->cls = class_of(&z);
	out->asz = (uint8_t)z.address_width;
	out->imm = imm_of(&z, out->cls);
	if (has_rep(&z))
		out->flags |= QX86_F_REP;
	if (z.mnemonic == ZYDIS_MNEMONIC_CPUID)
		out->flags |= QX86_F_CPUID;
	switch (out->cls) {
	case QX86_JCC:
		out->cond = z.opcode & 15;
		/* fall through */
	case QX86_JMP:
	case QX86_CALL:
		out->target = rel_target(&z, ip);
		break;
	case QX86_LOOP:
		out->cond = loop_cond(z.mnemonic);
		out->target = rel_target(&z, ip);
		break;
	case QX86_JMP_IND:
	case QX86_CALL_IND:
	case QX86_FAR_JMP:
	case QX86_FAR_CALL:
		if (!z.raw.imm[0].size) /* not ptr16:32 */
			err = operand(x, m, p, n, ip, &out->opnd);
		break;
	default:
		break;
	}
	return err < 0 ? err : out->len;
}

int qx86_decode(const struct qx86 *x, const uint8_t *p, size_t n, int bits,
		uint64_t ip, struct qx86_insn *out)
{
	int len;

	if (bits == 64 && (len = qx86_fast(p, n, ip, out)) > 0)
		return len;
	return qx86_decode_zydis(x, p, n, bits, ip, out);
}
