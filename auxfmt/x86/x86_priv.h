/* SPDX-License-Identifier: MIT */
/* Inside the x86 layer: the Zydis decoders of each mode. */
#ifndef QPT_X86_X86_PRIV_H
#define QPT_X86_X86_PRIV_H

#include <Zydis/Zydis.h>

#include "auxfmt/x86/x86.h"

#define QX86_NMODES 3 /* 16, 32 and 64 bits */

struct qx86 {
	ZydisDecoder min[QX86_NMODES];	/* minimal mode: no operands */
	ZydisDecoder full[QX86_NMODES]; /* with operands */
};

/* The mode's index for @bits (16, 32, 64), or -1. */
int qx86_mode_index(int bits);
/* Set up @d to decode in full in mode @mode (an index): 0 or
 * -QPT_E_INVAL. */
int qx86_init_full(ZydisDecoder *d, int mode);
/* qx86_decode by Zydis alone (in 64-bit mode qx86_decode tries
 * qx86_fast first). */
int qx86_decode_zydis(const struct qx86 *x, const uint8_t *p, size_t n,
		      int bits, uint64_t ip, struct qx86_insn *out);
/*
 * qx86_decode of the common instructions of 64-bit code without Zydis
 * (fast.c): the same length and *@out as Zydis gives, or 0 (@out
 * undefined) for one it leaves to Zydis, which includes every one that
 * does not decode.
 */
int qx86_fast(const uint8_t *p, size_t n, uint64_t ip, struct qx86_insn *out);
/* A Zydis status as 0, -QPT_E_TRUNCATED or -QPT_E_FORMAT. */
int qx86_status(ZyanStatus s);

#endif
