// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the x86 layer (auxfmt/x86/), differential: on any
 * bytes, its opcode tables (fast.c) and Zydis must give the same length,
 * branch class, target and operand wherever the tables decode (at two
 * addresses, one where a target wraps; and the tables must decline every
 * cut of the instruction); then the register effects (regs.c), the decode
 * of each mode and the Intel-syntax text, each checked against the decode.
 * Seeds: fuzz/seeds/fuzz_x86 (see fuzz/seeds/README.md).
 */
#include <stdio.h>
#include <string.h>

#include "auxfmt/x86/x86_priv.h"
#include "fuzz/common.h"

static const struct qx86 *x86(void)
{
	static struct qx86 *x; /* made once for every input */

	if (!x && !(x = qx86_new()))
		fz_fail("out of memory");
	return x;
}

static void differential(const uint8_t *p, size_t n, uint64_t ip)
{
	struct qx86_insn f, z;
	int lf, lz;
	size_t cut;

	lf = qx86_fast(p, n, ip, &f);
	if (lf <= 0)
		return;
	lz = qx86_decode_zydis(x86(), p, n, 64, ip, &z);
	if (lz != lf || memcmp(&f, &z, sizeof(f)))
		fz_fail("the fast path differs from Zydis");
	for (cut = 0; cut < (size_t)lf; cut++)
		if (qx86_fast(p, cut, ip, &f) > 0)
			fz_fail("the fast path decodes a cut instruction");
}

static void effects(const uint8_t *p, size_t n, int bits, uint64_t ip)
{
	struct qx86_gpr_fx fx;
	struct qx86_insn in;
	char text[256]; /* twice the 128 bytes the longest texts take */
	int len, l2;

	len = qx86_decode(x86(), p, n, bits, ip, &in);
	l2 = qx86_gpr_effect(x86(), p, n, bits, ip, &fx);
	if (l2 != len)
		fz_fail("the register effects decode another length");
	if (len > 0 && fx.step_reg >= 0 &&
	    (fx.step_reg > 15 || !fx.step || !(fx.writes >> fx.step_reg & 1)))
		fz_fail("an induction step on a register not written");
	l2 = qx86_format(x86(), p, n, bits, ip, text, sizeof(text));
	if ((len > 0) != (l2 > 0) || (l2 > 0 && strlen(text) != (size_t)l2))
		fz_fail("the text and the decode disagree");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 15)
		size = 15;
	differential(data, size, 0x7ffff7dd1000ull);
	differential(data, size, 0xfffffffffffffff0ull);
	effects(data, size, 64, 0x401000);
	effects(data, size, 32, 0x8048000);
	effects(data, size, 16, 0x100);
	return 0;
}
