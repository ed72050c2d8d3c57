// SPDX-License-Identifier: MIT
/*
 * The common instructions of 64-bit code without Zydis: the one-byte and
 * 0F maps with no prefix but 66, FS, GS and REX, whose length follows
 * from the opcode and ModRM alone, and the near direct jumps, calls, Jcc
 * and returns without prefixes.  Anything else (other prefixes, VEX and
 * EVEX, other maps, indirect branches, what may not decode) is left to
 * Zydis.  Each distinct instruction is decoded once per address space
 * (the cache of cache.c), and Zydis's minimal mode costs ~850 host
 * instructions a call, this path ~100: that first decode was most of what
 * qpt decode spent beyond the walk itself.  test_x86_fast checks every
 * form this path takes against Zydis, test_x86_objdump every instruction
 * of the test programs and the C library.
 */
#include <string.h>

#include "auxfmt/x86/x86_priv.h"

/* An opcode's table entry: its immediate, whether a ModRM follows, and
 * which ModRM forms Zydis accepts; 0: left to Zydis. */
enum {
	I_0 = 1, /* no immediate */
	I_B,	 /* imm8 */
	I_Z,	 /* imm16 with 66, else imm32 */
	I_V,	 /* imm64 with REX.W, imm16 with 66, else imm32 */
	I_MASK = 7,
	M = 8,	   /* a ModRM follows */
	MEM = 16,  /* ModRM: memory forms only */
	SPEC = 32, /* ModRM: the reg field decides (fast_reg_ok) */
};

/* the tables in rows of the opcode map */
/* clang-format off */
#define R4(x) x, x, x, x
#define R8(x) R4(x), R4(x)
#define ALU I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_B, I_Z

static const uint8_t one[256] = {
	/* 00-3f: add or adc sbb and sub xor cmp; the rest left */
	ALU, 0, 0, ALU, 0, 0,
	ALU, 0, 0, ALU, 0, 0,
	ALU, 0, 0, ALU, 0, 0,
	ALU, 0, 0, ALU, 0, 0,
	/* 40-4f REX */
	R8(0), R8(0),
	/* 50-5f push, pop */
	R8(I_0), R8(I_0),
	/* 60-6f: movsxd, push imm, imul */
	0, 0, 0, I_0 | M, 0, 0, 0, 0,
	I_Z, I_Z | M, I_B, I_B | M, 0, 0, 0, 0,
	/* 70-7f Jcc: below */
	R8(0), R8(0),
	/* 80-8f: group 1, test, xchg, mov, lea */
	I_B | M, I_Z | M, 0, I_B | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M,
	I_0 | M, I_0 | M, I_0 | M, I_0 | M, 0, I_0 | M | MEM, 0, 0,
	/* 90-9f: nop, xchg, cwde, cdq, pushf, popf */
	R8(I_0), I_0, I_0, 0, 0, I_0, I_0, 0, 0,
	/* a0-af: test imm */
	R8(0), I_B, I_Z, 0, 0, 0, 0, 0, 0,
	/* b0-bf: mov imm */
	R8(I_B), R8(I_V),
	/* c0-cf: shifts by imm, mov imm (reg 0), leave */
	I_B | M, I_B | M, 0, 0, 0, 0, I_B | M | SPEC, I_Z | M | SPEC,
	0, I_0, 0, 0, 0, 0, 0, 0,
	/* d0-df: shifts by 1 and cl */
	I_0 | M, I_0 | M, I_0 | M, I_0 | M, R4(0), R8(0),
	/* e0-ef: branches below */
	R8(0), R8(0),
	/* f0-ff: cmc, groups 3 (test takes an immediate), clc..std, inc,
	 * dec, push (group 5's branches are Zydis's) */
	0, 0, 0, 0, 0, I_0, I_0 | M | SPEC, I_0 | M | SPEC,
	I_0, I_0, I_0, I_0, I_0, I_0, I_0 | M | SPEC, I_0 | M | SPEC,
};

static const uint8_t two[256] = {
	/* 0f 00-0f */
	R8(0), R8(0),
	/* 10-1f: moves of SSE (12 and 16 with 66: memory only), prefetch
	 * and hint nops (1f: nop) */
	I_0 | M, I_0 | M, I_0 | M | MEM, I_0 | M | MEM, I_0 | M, I_0 | M,
	I_0 | M | MEM, I_0 | M | MEM, 0, 0, 0, 0, 0, 0, 0, I_0 | M,
	/* 20-2f: movaps, conversions, comparisons */
	R8(0), I_0 | M, I_0 | M, 0, I_0 | M | MEM, 0, 0, I_0 | M, I_0 | M,
	/* 30-3f */
	R8(0), R8(0),
	/* 40-4f cmovcc */
	R8(I_0 | M), R8(I_0 | M),
	/* 50-5f: 50 movmskps; the arithmetic of SSE */
	0, I_0 | M, 0, 0, I_0 | M, I_0 | M, I_0 | M, I_0 | M,
	R8(I_0 | M),
	/* 60-6f: unpack, pack, compare, movd, movq, movdqa */
	R8(I_0 | M), R4(I_0 | M), 0, 0, I_0 | M, I_0 | M,
	/* 70-7f: pshuf, pcmpeq, movd, movq */
	I_B | M, 0, 0, 0, I_0 | M, I_0 | M, I_0 | M, 0,
	0, 0, 0, 0, 0, 0, I_0 | M, I_0 | M,
	/* 80-8f Jcc: below */
	R8(0), R8(0),
	/* 90-9f setcc */
	R8(I_0 | M), R8(I_0 | M),
	/* a0-af: bt, shld, bts, shrd, imul */
	0, 0, 0, I_0 | M, I_B | M, I_0 | M, 0, 0,
	0, 0, 0, I_0 | M, I_B | M, I_0 | M, 0, I_0 | M,
	/* b0-bf: cmpxchg, btr, movzx, btc, bsf, bsr, movsx */
	I_0 | M, I_0 | M, 0, I_0 | M, 0, 0, I_0 | M, I_0 | M,
	0, 0, 0, I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M,
	/* c0-cf: xadd, cmpps, shufps, bswap */
	I_0 | M, I_0 | M, I_B | M, 0, 0, 0, I_B | M, 0,
	R8(I_0),
	/* d0-ff: the integer SSE but those that need a prefix or a
	 * register or memory form (d0 d6 d7 e6 e7 f0 f7) */
	0, I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M, 0, 0,
	R8(I_0 | M),
	I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M, 0, 0,
	R8(I_0 | M),
	0, I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M, I_0 | M, 0,
	R8(I_0 | M),
};

/* clang-format on */

/* The ModRM forms of the SPEC opcodes that Zydis decodes: mov imm (c6,
 * c7) only as /0; test, not, neg, mul, imul, div, idiv (f6, f7); inc
 * and dec (fe); inc, dec and push (ff). */
static bool fast_reg_ok(uint8_t op, unsigned reg)
{
	switch (op) {
	case 0xc6:
	case 0xc7:
		return reg == 0;
	case 0xfe:
		return reg < 2;
	case 0xff:
		return reg < 2 || reg == 6;
	default:
		return true;
	}
}

/* The bytes of a ModRM and what follows it up to the immediate
 * (SIB, displacement), from @p[0]; 0 when @n is too short. */
static unsigned modrm_len(const uint8_t *p, size_t n)
{
	unsigned mod = p[0] >> 6, rm = p[0] & 7, len = 1;

	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len = 2;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4; /* rip-relative */
	}
	return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* A near direct branch or return without prefixes: its length, or 0. */
static int fast_branch(const uint8_t *p, size_t n, uint64_t ip,
		       struct qx86_insn *out)
{
	int64_t rel;
	unsigned len;

	if ((p[0] & 0xf0) == 0x70 || p[0] == 0xeb) {
		if (n < 2)
			return 0;
		len = 2;
		rel = (int8_t)p[1];
		out->cls = p[0] == 0xeb ? QX86_JMP : QX86_JCC;
		out->cond = p[0] == 0xeb ? 0 : p[0] & 15;
	} else if (p[0] == 0xe8 || p[0] == 0xe9 ||
		   (p[0] == 0x0f && n >= 2 && (p[1] & 0xf0) == 0x80)) {
		unsigned o = p[0] == 0x0f ? 2 : 1;
		len = o + 4;
		if (n < len)
			return 0;
		rel = (int32_t)((uint32_t)p[o] | (uint32_t)p[o + 1] << 8 |
				(uint32_t)p[o + 2] << 16 |
				(uint32_t)p[o + 3] << 24);
		out->cls = p[0] == 0xe8	  ? QX86_CALL
			   : p[0] == 0xe9 ? QX86_JMP
					  : QX86_JCC;
		out->cond = p[0] == 0x0f ? p[1] & 15 : 0;
	} else if (p[0] == 0xc3 || (p[0] == 0xc2 && n >= 3)) {
		out->len = p[0] == 0xc3 ? 1 : 3;
		out->cls = QX86_RET;
		out->imm = p[0] == 0xc3 ? 0 : (uint16_t)(p[1] | p[2] << 8);
		out->asz = 64;
		return out->len;
	} else {
		return 0;
	}
	out->len = (uint8_t)len;
	out->asz = 64;
	out->target = ip + len + (uint64_t)rel;
	return (int)len;
}

int qx86_fast(const uint8_t *p, size_t n, uint64_t ip, struct qx86_insn *out)
{
	bool opsz = false, seg = false, rexw = false;
	const uint8_t *op;
	unsigned i = 0, ml = 0, len, imm;
	uint8_t t;

	memset(out, 0, sizeof(*out));
	for (; i < n; i++) {
		if (p[i] == 0x66 && !opsz)
			opsz = true;
		else if ((p[i] == 0x64 || p[i] == 0x65) && !seg)
			seg = true;
		else
			break;
	}
	if (i == 0 && n) { /* no prefix: a branch? */
		int r = fast_branch(p, n, ip, out);

		if (r)
			return r;
	}
	if (i < n && (p[i] & 0xf0) == 0x40) {
		rexw = p[i] & 8;
		i++;
	}
	if (i >= n)
		return 0;
	op = &p[i];
	if (op[0] == 0x0f) {
		if (++i >= n)
			return 0;
		t = two[p[i]];
	} else {
		t = one[op[0]];
	}
	if (!t)
		return 0;
	i++;
	if (t & M) {
		unsigned mod;

		if (i >= n)
			return 0;
		mod = p[i] >> 6;
		if (((t & MEM) && mod == 3) ||
		    ((t & SPEC) && !fast_reg_ok(op[0], (p[i] >> 3) & 7)))
			return 0;
		ml = modrm_len(p + i, n - i);
		if (!ml)
			return 0;
	}
	switch (t & I_MASK) {
	case I_B:
		imm = 1;
		break;
	case I_Z:
		imm = opsz && !rexw ? 2 : 4;
		break;
	case I_V:
		imm = rexw ? 8 : opsz ? 2 : 4;
		break;
	default:
		imm = 0;
		break;
	}
	/* group 3's test (f6 /0 /1, f7 /0 /1) takes an immediate */
	if ((op[0] == 0xf6 || op[0] == 0xf7) && ((p[i] >> 3) & 7) < 2)
		imm = op[0] == 0xf6 ? 1 : opsz && !rexw ? 2 : 4;
	len = i + ml + imm;
	if (len > n || len > 15)
		return 0;
	out->len = (uint8_t)len;
	out->asz = 64;
	return (int)len;
}
