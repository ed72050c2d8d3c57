/* SPDX-License-Identifier: MIT */
/* x86 instruction lengths and near direct branch targets. */
#ifndef QPT_DECODE_ILD_H
#define QPT_DECODE_ILD_H

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
};

/*
 * Decode the instruction at [p, p + len) executing at @ip in @bits (16, 32,
 * 64) mode.  Returns its length (1..15) or -1 when the bytes end first.
 */
int qd_ild_decode(const uint8_t *p, size_t len, int bits, uint64_t ip,
		  struct qd_ild *out);

#endif
