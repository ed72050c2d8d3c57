// SPDX-License-Identifier: MIT
/*
 * perf's --itrace=OPTS, the letters qpt decode maps: i[PERIOD[UNIT]]
 * (UNIT: i instructions, ns, us, ms; perf's default 100 us), b, c, r, e,
 * l[N] (perf's default 64 entries), and q (quicker: nothing to change
 * here).  Any other letter perf knows is refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "cli/itrace.h"

/* The last-branch depth perf takes for a bare l, and qpt's limit. */
#define LBR_DEFAULT 64
#define LBR_LIMIT 1024

/* Digits at *@p as a number (none: *@given false); -1 on overflow. */
static int number(const char **p, uint64_t *v, bool *given)
{
	*v = 0;
	*given = false;
	while (**p >= '0' && **p <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(**p - '0');
		(*p)++;
		*given = true;
	}
	return 0;
}

/* i's period and unit at *@p (after the letter). */
static int period(const char **p, struct itrace *t, char *why, size_t size)
{
	static const struct {
		const char *s;
		uint64_t mult;
	} ns_units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 } };
	bool given;
	size_t i;

	if (number(p, &t->period, &given)) {
		snprintf(why, size, "i: the period is too large");
		return -1;
	}
	if (!given) {
		t->period = 100000; /* perf's default: 100 us */
		t->unit = ITRACE_NS;
		return 0;
	}
	if (**p == 'i') {
		(*p)++;
		t->unit = ITRACE_INSNS;
		return 0;
	}
	if (**p == 't') {
		snprintf(why, size, "i: periods in TSC ticks (t) are not "
				    "supported: give ns, us, ms or i");
		return -1;
	}
	t->unit = ITRACE_NS; /* perf: a bare number is nanoseconds */
	for (i = 0; i < sizeof(ns_units) / sizeof(ns_units[0]); i++)
		if (!strncmp(*p, ns_units[i].s, 2)) {
			if (t->period > UINT64_MAX / ns_units[i].mult) {
				snprintf(why, size, "i: the period is too large");
				return -1;
			}
			t->period *= ns_units[i].mult;
			*p += 2;
			break;
		}
	return 0;
}

/* l's depth at *@p. */
static int lbr_depth(const char **p, struct itrace *t, char *why, size_t size)
{
	uint64_t v;
	bool given;

	if (number(p, &v, &given) || (given && (v < 1 || v > LBR_LIMIT))) {
		snprintf(why, size, "l: the number of last branches is 1 to %d",
			 LBR_LIMIT);
		return -1;
	}
	t->lbr = given ? (unsigned)v : LBR_DEFAULT;
	return 0;
}

int itrace_parse(const char *s, struct itrace *t, char *why, size_t size)
{
	const char *p = s;

	memset(t, 0, sizeof(*t));
	if (!*p) {
		snprintf(why, size, "no letter");
		return -1;
	}
	while (*p) {
		char c = *p++;

		switch (c) {
		case 'i':
			t->insn = true;
			if (period(&p, t, why, size))
				return -1;
			break;
		case 'b': t->branches = true; break;
		case 'c': t->calls = true; break;
		case 'r': t->returns = true; break;
		case 'e': t->errors = true; break;
		case 'q': break;
		case 'l':
			if (lbr_depth(&p, t, why, size))
				return -1;
			break;
		default:
			if (strchr("xwpofmtagGLsdZT", c))
				snprintf(why, size, "'%c' is not one qpt maps "
					 "(i, b, c, r, e, l, q)", c);
			else
				snprintf(why, size, "'%c' is no itrace letter", c);
			return -1;
		}
	}
	if (t->insn + t->branches + (t->calls || t->returns) > 1) {
		snprintf(why, size, "one view at a time: i, b, or c and r");
		return -1;
	}
	if (t->lbr && !t->insn) {
		snprintf(why, size, "l goes with i (the last branches of each "
				    "instruction sample)");
		return -1;
	}
	if (!t->insn && !t->branches && !t->calls && !t->returns && !t->lbr &&
	    !t->errors) {
		snprintf(why, size, "nothing to show: i, b, c, r or e");
		return -1;
	}
	return 0;
}
