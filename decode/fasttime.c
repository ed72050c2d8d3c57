// SPDX-License-Identifier: MIT
/*
 * The fast block decoder's time: libipt 2.0's rules (pt_time) for TSC,
 * TMA and MTC, so that the times of its events and ticks are libipt's to
 * the count.  Between a TSC and its TMA an MTC is ignored; the first MTC
 * after a TMA guesses the CTC bits the TMA lacks; each MTC then adds its
 * CTC delta, scaled by CPUID 0x15 (TSC/CTC), to the time.  CYC packets
 * are not here (the fast decoder leaves them to libipt), so the cycle
 * calibration libipt keeps beside this never changes a time.  What libipt
 * calls an error is QD_FAST_BAIL.
 */
#include <string.h>

#include "decode/fastpriv.h"

#define MTC_BITS 8u
#define TMA_CTC_BITS 16u
#define TMA_CTC_MASK 0xffffu

void ft_init(struct fq_time *t)
{
	memset(t, 0, sizeof(*t));
}

bool ft_equal(const struct fq_time *a, const struct fq_time *b)
{
	return a->have_tsc == b->have_tsc && a->have_tma == b->have_tma &&
	       a->have_mtc == b->have_mtc && a->tsc == b->tsc &&
	       a->base == b->base && a->fc == b->fc && a->ctc == b->ctc;
}

void ft_tsc(struct fq_time *t, uint64_t tsc)
{
	memset(t, 0, sizeof(*t)); /* a full time: the losses recovered */
	t->have_tsc = true;
	t->tsc = t->base = tsc;
}

int ft_tma(struct fq_time *t, const struct fq_clock *c, uint32_t ctc,
	   uint32_t fc)
{
	unsigned hi = c->mtc_freq + MTC_BITS;

	if (!t->have_tsc || t->have_tma || t->have_mtc || hi >= 32)
		return QD_FAST_BAIL;
	t->have_tma = true;
	t->base -= fc;
	t->fc += fc;
	if (hi <= TMA_CTC_BITS) /* the TMA's CTC serves as an MTC */
		t->have_mtc = true;
	t->ctc = ctc & ((1u << hi) - 1u);
	return 0;
}

int ft_mtc(struct fq_time *t, const struct fq_clock *c, uint8_t payload)
{
	unsigned hi = c->mtc_freq + MTC_BITS;
	bool had_mtc = t->have_mtc;
	uint32_t last = t->ctc, ctc;

	if (hi >= 32)
		return QD_FAST_BAIL;
	if (t->have_tsc && !t->have_tma)
		return 0;
	ctc = (uint32_t)payload << c->mtc_freq;
	t->have_mtc = true;
	t->fc = 0;
	t->ctc = ctc;
	if (!had_mtc) {
		uint32_t lo = ctc & TMA_CTC_MASK, up = ctc & ~TMA_CTC_MASK;

		if (!t->have_tma)
			return 0; /* no idea where in its period it began */
		if (last & ~TMA_CTC_MASK)
			return QD_FAST_BAIL;
		if (lo < last) {
			up -= 1u << TMA_CTC_BITS;
			up &= 0xffu << c->mtc_freq;
		}
		last |= up;
	}
	if (ctc < last) { /* one wrap-around of the CTC bits MTC gives */
		ctc += 1u << hi;
		if (ctc < last)
			return QD_FAST_BAIL;
	}
	if (!c->ctc_den || !c->ctc_num)
		return 0; /* libipt: a configuration error, ignored */
	t->base += ((uint64_t)(ctc - last) * c->ctc_num) / c->ctc_den;
	t->tsc = t->base;
	return 0;
}
