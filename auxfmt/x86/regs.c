// SPDX-License-Identifier: MIT
/*
 * What one x86 instruction does to the general purpose registers: which it
 * writes (any part, named in its operands or implied, as a push writes the
 * stack pointer), and whether all it does to them is add a constant to one
 * (an induction step: add, sub, inc, dec, lea r, [r + d] on a full 64-bit
 * register), and what it pushes.  The emulated source runs a loop natively
 * when one register counts its trips this way; the QEMU plugin finds a
 * signal frame from the first push of a handler.
 */
#include <string.h>
#include <Zydis/Zydis.h>

#include "auxfmt/x86/x86_priv.h"
#include "qpt/qpt.h"

/* The number (0..15) of the 64-bit register that holds @r, or -1 when @r
 * is no general purpose register. */
static int gpr64(ZydisRegister r)
{
	ZydisRegister big;

	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		big = ZydisRegisterGetLargestEnclosing(
		    ZYDIS_MACHINE_MODE_LONG_64, r);
		return ZydisRegisterGetClass(big) == ZYDIS_REGCLASS_GPR64
			   ? ZydisRegisterGetId(big)
			   : -1;
	default:
		return -1;
	}
}

/* The constant @z adds to its 64-bit destination, its only register
 * effect: true with *@reg and *@step set. */
static bool induction(const ZydisDecodedInstruction *z,
		      const ZydisDecodedOperand *op, int *reg, int64_t *step)
{
	const ZydisDecodedOperand *d = &op[0], *s = &op[1];

	if (z->operand_count_visible < 1 ||
	    d->type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    ZydisRegisterGetClass(d->reg.value) != ZYDIS_REGCLASS_GPR64)
		return false;
	*reg = gpr64(d->reg.value);
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_INC:
		*step = 1;
		return z->operand_count_visible == 1;
	case ZYDIS_MNEMONIC_DEC:
		*step = -1;
		return z->operand_count_visible == 1;
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
		if (z->operand_count_visible != 2 ||
		    s->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return false;
		*step =
		    s->imm.is_signed ? s->imm.value.s : (int64_t)s->imm.value.u;
		if (z->mnemonic == ZYDIS_MNEMONIC_SUB)
			*step = -*step;
		return true;
	case ZYDIS_MNEMONIC_LEA:
		if (z->operand_count_visible != 2 ||
		    s->type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    s->mem.base != d->reg.value ||
		    s->mem.index != ZYDIS_REGISTER_NONE ||
		    z->address_width != 64)
			return false;
		*step = s->mem.disp.has_displacement ? s->mem.disp.value : 0;
		return true;
	default:
		return false;
	}
}

int qx86_gpr_effect(const struct qx86 *x, const uint8_t *p, size_t n, int bits,
		    uint64_t ip, struct qx86_gpr_fx *out)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction z;
	int mode = qx86_mode_index(bits), err, r;
	unsigned i;

	(void)ip;
	memset(out, 0, sizeof(*out));
	out->step_reg = -1;
	if (mode < 0)
		return -QPT_E_INVAL;
	err = qx86_status(ZydisDecoderDecodeFull(&x->full[mode], p, n, &z, op));
	if (err)
		return err;
	for (i = 0; i < z.operand_count; i++) {
		if (!(op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ||
		    op[i].type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		r = gpr64(op[i].reg.value);
		if (r >= 0)
			out->writes |= (uint16_t)(1u << r);
	}
	if (z.mnemonic == ZYDIS_MNEMONIC_PUSH ||
	    (z.mnemonic == ZYDIS_MNEMONIC_CALL &&
	     z.meta.branch_type != ZYDIS_BRANCH_TYPE_FAR))
		out->pushed = (uint8_t)(z.mnemonic == ZYDIS_MNEMONIC_CALL
					    ? z.stack_width / 8
					    : z.operand_width / 8);
	if (bits == 64 && induction(&z, op, &r, &out->step) && r >= 0 &&
	    out->writes == 1u << r && out->step) {
		out->step_reg = (int8_t)r;
	} else {
		out->step = 0;
	}
	return z.length;
}
