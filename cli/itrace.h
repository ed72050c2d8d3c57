/* SPDX-License-Identifier: MIT */
/*
 * perf's --itrace=OPTS for qpt decode: the subset that maps onto qpt's
 * views (i with a period, b, c, r, e, l), as perf script reads it.
 */
#ifndef QPT_CLI_ITRACE_H
#define QPT_CLI_ITRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum itrace_unit { ITRACE_NS, ITRACE_INSNS };

struct itrace {
	bool insn;	/* i: instructions, one every @period @unit */
	bool branches;	/* b: every taken branch */
	bool calls;	/* c: calls (and trace starts and ends) */
	bool returns;	/* r: returns (and trace starts) */
	bool errors;	/* e: decoding errors and losses */
	unsigned lbr;	/* l[N]: with i, N last branches (0: none) */
	uint64_t period; /* i: 0 = every instruction */
	enum itrace_unit unit;
};

/*
 * Parse @s (perf's letters, each with its number where perf takes one:
 * "i100ns", "i1000i", "cre", "i1000il16"; perf's default period for a
 * bare i, 100 us).  Returns 0, or -1 with what is wrong (at most @size
 * bytes) in @why.
 */
int itrace_parse(const char *s, struct itrace *t, char *why, size_t size);

#endif
