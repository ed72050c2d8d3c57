// SPDX-License-Identifier: MIT
/*
 * x86-64 branch classification.  Only the opcodes that change the flow of
 * control are recognised; every other instruction (including all VEX, EVEX
 * and XOP encoded ones) is "other", whose length nobody needs: the stepped
 * next IP says where execution went.
 */
#include "capture/emu_insn.h"

#include <stdbool.h>

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26:
	case 0x2e:
	case 0x36:
	case 0x3e:
	case 0x64:
	case 0x65:
	case 0x66:
	case 0x67:
	case 0xf0:
	case 0xf2:
	case 0xf3:
		return true;
	default:
		return false;
	}
}

/* Bytes of ModRM, SIB and displacement at @p (32/64-bit addressing). */
static int modrm_len(const uint8_t *p, size_t avail)
{
	uint8_t modrm, mod, rm;
	int len = 1;

	if (avail < 1)
		return -1;
	modrm = p[0];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (avail < 2)
			return -1;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4; /* RIP-relative */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

static int classify_0f(const uint8_t *p, size_t avail, int pfx,
		       struct emu_insn *insn)
{
	if (avail < 1)
		return -1;
	if (p[0] >= 0x80 && p[0] <= 0x8f) {
		insn->cls = EMU_INSN_JCC;
		insn->len = (uint8_t)(pfx + 6);
		return 0;
	}
	switch (p[0]) {
	case 0x05: /* syscall */
	case 0x07: /* sysret */
	case 0x34: /* sysenter */
	case 0x35: /* sysexit */
		insn->cls = EMU_INSN_FAR;
		break;
	default:
		break;
	}
	insn->len = (uint8_t)(pfx + 2);
	return 0;
}

static int classify_ff(const uint8_t *p, size_t avail, int pfx,
		       struct emu_insn *insn)
{
	int mlen;

	mlen = modrm_len(p, avail);
	if (mlen < 0)
		return -1;
	insn->len = (uint8_t)(pfx + 1 + mlen);
	switch ((p[0] >> 3) & 7) {
	case 2:
		insn->cls = EMU_INSN_CALL_IND;
		break;
	case 4:
		insn->cls = EMU_INSN_JMP_IND;
		break;
	case 3:
	case 5:
		insn->cls = EMU_INSN_FAR;
		break;
	default:
		break;
	}
	return 0;
}

int emu_insn_classify(const uint8_t *buf, size_t avail, struct emu_insn *insn)
{
	size_t i = 0;
	int pfx;
	uint8_t op;

	insn->cls = EMU_INSN_OTHER;
	insn->len = 0;
	while (i < avail && i < 14 &&
	       (is_legacy_prefix(buf[i]) || (buf[i] & 0xf0) == 0x40))
		i++;
	if (i >= avail)
		return -1;
	pfx = (int)i;
	op = buf[i];
	if (op >= 0x70 && op <= 0x7f) {
		insn->cls = EMU_INSN_JCC;
		insn->len = (uint8_t)(pfx + 2);
		return 0;
	}
	switch (op) {
	case 0x0f:
		return classify_0f(buf + i + 1, avail - i - 1, pfx, insn);
	case 0xff:
		return classify_ff(buf + i + 1, avail - i - 1, pfx, insn);
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
		insn->cls = EMU_INSN_JCC;
		insn->len = (uint8_t)(pfx + 2);
		return 0;
	case 0xe8:
		insn->cls = EMU_INSN_CALL;
		insn->len = (uint8_t)(pfx + 5);
		return 0;
	case 0xe9:
		insn->cls = EMU_INSN_JMP;
		insn->len = (uint8_t)(pfx + 5);
		return 0;
	case 0xeb:
		insn->cls = EMU_INSN_JMP;
		insn->len = (uint8_t)(pfx + 2);
		return 0;
	case 0xc2:
	case 0xc3:
		insn->cls = EMU_INSN_RET;
		insn->len = (uint8_t)(pfx + (op == 0xc2 ? 3 : 1));
		return 0;
	case 0xca:
	case 0xcb: /* far ret */
	case 0xcc:
	case 0xcd: /* int3, int n */
	case 0xcf: /* iret */
	case 0x9a:
	case 0xea: /* far call/jmp (invalid in 64-bit mode) */
		insn->cls = EMU_INSN_FAR;
		return 0;
	default:
		return 0;
	}
}
