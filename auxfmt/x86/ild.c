// SPDX-License-Identifier: MIT
/*
 * A small x86 instruction length decoder: enough to walk the instructions
 * of a libipt block (which gives only its first and last ip and a count)
 * and to find the targets of near direct branches.  Bounded by @len.
 */
#include <string.h>

#include "auxfmt/x86/ild.h"

/* One-byte opcodes with a ModRM byte (bit set). */
static const uint8_t modrm_1b[256 / 8] = {
	/* 00-0f: 00-03 08-0b */ 0x0f, 0x0f,
	/* 10-1f */ 0x0f, 0x0f,
	/* 20-2f */ 0x0f, 0x0f,
	/* 30-3f */ 0x0f, 0x0f,
	/* 40-4f */ 0x00, 0x00,
	/* 50-5f */ 0x00, 0x00,
	/* 60-6f: 62 63 69 6b */ 0x0c, 0x0a,
	/* 70-7f */ 0x00, 0x00,
	/* 80-8f: all */ 0xff, 0xff,
	/* 90-9f */ 0x00, 0x00,
	/* a0-af */ 0x00, 0x00,
	/* b0-bf */ 0x00, 0x00,
	/* c0-cf: c0 c1 c4 c5 c6 c7 */ 0xf3, 0x00,
	/* d0-df: d0-d3 d8-df */ 0x0f, 0xff,
	/* e0-ef */ 0x00, 0x00,
	/* f0-ff: f6 f7 fe ff */ 0xc0, 0xc0,
};

static bool bit(const uint8_t *tab, uint8_t op)
{
	return tab[op >> 3] & (1u << (op & 7));
}

/* 0F map opcodes WITHOUT a ModRM byte. */
static bool no_modrm_0f(uint8_t op)
{
	return op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 ||
	       op == 0x09 || op == 0x0b || op == 0x0e || op == 0x77 ||
	       (op >= 0x30 && op <= 0x37) || (op >= 0x80 && op <= 0x8f) ||
	       op == 0xa0 || op == 0xa1 || op == 0xa2 || op == 0xa8 ||
	       op == 0xa9 || op == 0xaa || (op >= 0xc8 && op <= 0xcf);
}

/* 0F map opcodes with an imm8. */
static bool imm8_0f(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
	       op == 0xba || op == 0xc2 || (op >= 0xc4 && op <= 0xc6) ||
	       op == 0x0f;
}

/* Length of ModRM + SIB + displacement at @p; -1 when truncated. */
static int modrm_len(const uint8_t *p, size_t left, int addr16)
{
	uint8_t modrm, mod, rm;
	int n = 1;

	if (left < 1)
		return -1;
	modrm = p[0];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod == 3)
		return 1;
	if (addr16) {
		if (mod == 0 && rm == 6)
			n += 2;
		else if (mod == 1)
			n += 1;
		else if (mod == 2)
			n += 2;
		return (size_t)n <= left ? n : -1;
	}
	if (rm == 4) {
		if (left < 2)
			return -1;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return (size_t)n <= left ? n : -1;
}

static void set_branch(struct qd_ild *out, uint64_t ip, int64_t rel,
		       int bits)
{
	uint64_t t = ip + out->len + (uint64_t)rel;

	if (bits == 32)
		t &= 0xffffffffull;
	else if (bits == 16)
		t &= 0xffffull;
	out->target = t;
	out->direct = true;
}

static int64_t rd_rel(const uint8_t *p, int n)
{
	switch (n) {
	case 1: return (int8_t)p[0];
	case 2: return (int16_t)(p[0] | (p[1] << 8));
	default:
		return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) |
				 ((uint32_t)p[2] << 16) |
				 ((uint32_t)p[3] << 24));
	}
}

int qd_ild_decode(const uint8_t *p, size_t len, int bits, uint64_t ip,
		  struct qd_ild *out)
{
	bool opsz16 = bits == 16, addr16 = bits == 16, rexw = false;
	size_t i = 0, left;
	int map = 0, m, imm = 0, rel = 0;
	bool has_modrm = false, has67 = false;
	uint8_t op;

	memset(out, 0, sizeof(*out));
	if (len > 15)
		len = 15;
	for (; i < len; i++) {
		uint8_t b = p[i];

		if (b == 0x66)
			opsz16 = bits != 16;
		else if (b == 0x67) {
			addr16 = bits == 32;
			has67 = true;
		} else if (b == 0xf2 || b == 0xf3)
			out->rep = b;
		else if (b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
			 b == 0x64 || b == 0x65)
			out->seg = b;
		else if (b != 0xf0)
			break;
	}
	out->addr_size = has67;
	if (bits == 64 && i < len && (p[i] & 0xf0) == 0x40) {
		out->rex = p[i];
		rexw = p[i] & 8;
		i++;
	}
	if (i >= len)
		return -1;
	op = p[i++];
	/* VEX, EVEX and XOP */
	if ((op == 0xc4 || op == 0xc5 || op == 0x62 || op == 0x8f) &&
	    i < len && (bits == 64 || (p[i] & 0xc0) == 0xc0 || op == 0x8f)) {
		if (op == 0xc5) {
			map = 1;
			i += 1;
		} else if (op == 0xc4) {
			map = p[i] & 0x1f;
			i += 2;
		} else if (op == 0x62) {
			map = p[i] & 7;
			i += 3;
		} else {
			if ((p[i] & 0x1f) < 8)
				goto legacy;
			map = 0x100 | (p[i] & 0x1f);
			i += 2;
		}
		if (i >= len)
			return -1;
		op = p[i++];
		out->vex = true;
		if (!(map == 1 && op == 0x77)) { /* vzeroupper/all */
			out->modrm_off = (uint8_t)i;
			m = modrm_len(p + i, len - i, addr16);
			if (m < 0)
				return -1;
			i += (size_t)m;
		}
		if (map == 3 || map == 0x108 ||
		    (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
				  (op >= 0xc4 && op <= 0xc6))))
			imm = 1;
		else if (map == 0x10a)
			imm = 4;
		goto finish;
	}
legacy:
	if (op == 0x0f) {
		if (i >= len)
			return -1;
		op = p[i++];
		if (op == 0x38 || op == 0x3a) {
			map = op == 0x38 ? 2 : 3;
			if (i >= len)
				return -1;
			op = p[i++];
			has_modrm = true;
			imm = map == 3 ? 1 : 0;
		} else {
			map = 1;
			has_modrm = !no_modrm_0f(op);
			if (imm8_0f(op))
				imm = 1;
			if (op >= 0x80 && op <= 0x8f) {
				rel = bits == 64 ? 4 : opsz16 ? 2 : 4;
				out->kind = QD_ILD_JCC;
			}
		}
	} else {
		has_modrm = bit(modrm_1b, op);
		if (op == 0x8f && bits != 64)
			has_modrm = true;
		switch (op) {
		case 0x04: case 0x0c: case 0x14: case 0x1c: case 0x24:
		case 0x2c: case 0x34: case 0x3c: case 0x6a: case 0x6b:
		case 0x80: case 0x82: case 0x83: case 0xa8: case 0xc0:
		case 0xc1: case 0xc6: case 0xcd: case 0xd4: case 0xd5:
		case 0xe4: case 0xe5: case 0xe6: case 0xe7:
			imm = 1;
			break;
		case 0x05: case 0x0d: case 0x15: case 0x1d: case 0x25:
		case 0x2d: case 0x35: case 0x3d: case 0x68: case 0x69:
		case 0x81: case 0xa9: case 0xc7:
			imm = opsz16 ? 2 : 4;
			break;
		case 0xc2: case 0xca:
			imm = 2;
			break;
		case 0xc8:
			imm = 3;
			break;
		case 0x9a: case 0xea:
			imm = (opsz16 ? 2 : 4) + 2;
			break;
		case 0xa0: case 0xa1: case 0xa2: case 0xa3:
			imm = bits == 64 ? (has67 ? 4 : 8) : (addr16 ? 2 : 4);
			break;
		case 0xe8: case 0xe9:
			rel = bits == 64 ? 4 : opsz16 ? 2 : 4;
			out->kind = op == 0xe8 ? QD_ILD_CALL : QD_ILD_JMP;
			break;
		case 0xeb:
			rel = 1;
			out->kind = QD_ILD_JMP;
			break;
		case 0xe0: case 0xe1: case 0xe2: case 0xe3:
			rel = 1;
			out->kind = QD_ILD_JCC;
			break;
		default:
			if (op >= 0x70 && op <= 0x7f) {
				rel = 1;
				out->kind = QD_ILD_JCC;
			} else if (op >= 0xb0 && op <= 0xb7) {
				imm = 1;
			} else if (op >= 0xb8 && op <= 0xbf) {
				imm = rexw ? 8 : opsz16 ? 2 : 4;
			}
			break;
		}
	}
	if (has_modrm) {
		uint8_t reg;

		if (i >= len)
			return -1;
		out->modrm_off = (uint8_t)i;
		reg = (p[i] >> 3) & 7;
		if (map == 0 && (op == 0xf6 || op == 0xf7) && reg <= 1)
			imm = op == 0xf6 ? 1 : opsz16 ? 2 : 4;
		m = modrm_len(p + i, len - i, addr16);
		if (m < 0)
			return -1;
		i += (size_t)m;
	}
finish:
	out->op = op;
	out->map = (uint16_t)map;
	left = len - i;
	if ((size_t)(imm + rel) > left)
		return -1;
	out->len = (uint8_t)(i + (size_t)imm + (size_t)rel);
	if (rel)
		set_branch(out, ip, rd_rel(p + i + imm, rel), bits);
	return out->len;
}
