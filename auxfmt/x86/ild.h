/* SPDX-License-Identifier: MIT */
/* x86 instruction lengths and near direct branch targets. */
#ifndef QPT_X86_ILD_H
#define QPT_X86_ILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qd_ild_kind {
	QD_ILD_OTHER,
	QD_ILD_JCC,  /* conditional, incl. loop/jcxz */
	QD_ILD_JMP,  /* near direct jump */
	QD_ILD_CALL, /* near direct call */
};

struct qd_ild {
	uint8_t len;
	enum qd_ild_kind kind;
	bool direct;	 /* @target is valid */
	uint64_t target; /* near direct branch target */
	/* Where the parts are, for classifiers built on this decoder: */
	uint8_t op;	   /* the opcode byte */
	uint16_t map;	   /* 0: one-byte, 1: 0F, 2: 0F38, 3: 0F3A; VEX and
			    * EVEX: their map, XOP: 0x100 | map */
	bool vex;	   /* VEX, EVEX or XOP encoded */
	uint8_t modrm_off; /* offset of the ModRM byte; 0: none */
	uint8_t rex;	   /* the REX prefix; 0: none */
	uint8_t rep;	   /* the last F2 or F3 prefix; 0: none */
	uint8_t seg;	   /* the last segment override prefix; 0: none */
	bool addr_size;	   /* an address-size (67) prefix */
};

/*
 * Decode the instruction at [p, p + len) executing at @ip in @bits (16, 32,
 * 64) mode.  Returns its length (1..15) or -1 when the bytes end first.
 */
int qd_ild_decode(const uint8_t *p, size_t len, int bits, uint64_t ip,
		  struct qd_ild *out);

#endif
