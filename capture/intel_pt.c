// SPDX-License-Identifier: MIT
/*
 * Intel PT: perf's default configuration and the AUXTRACE_INFO record with
 * its 17 private words (enum qpt_intel_pt_priv), as perf's
 * arch/x86/util/intel-pt.c writes them.
 */
#include <errno.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "capture/auxtrace.h"

static void cpu_tsc_ctc(uint32_t *n, uint32_t *d)
{
	*n = 0;
	*d = 0;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int eax, ebx, ecx, edx;

		if (__get_cpuid(0x15, &eax, &ebx, &ecx, &edx)) {
			*n = ebx;
			*d = eax;
		}
	}
#endif
}

void qpt_intel_pt_params_default(struct qpt_intel_pt_params *p)
{
	memset(p, 0, sizeof(*p));
	p->tsc_bit = 1ULL << 10;
	p->noretcomp_bit = 1ULL << 11;
	p->mtc_bit = 1ULL << 9;
	p->cyc_bit = 1ULL << 1;
	p->mtc_freq_bits = 0xfULL << 14;
	cpu_tsc_ctc(&p->tsc_ctc_n, &p->tsc_ctc_d);
}

int qpt_intel_pt_info_fill(const struct qpt_intel_pt_params *p, void *buf,
			   size_t cap)
{
	struct qpt_record_auxtrace_info *info = buf;
	size_t flen = p->filter ? strlen(p->filter) : 0;
	size_t fbytes = flen ? (flen + 1 + 7) & ~(size_t)7 : 0;
	size_t size = sizeof(*info) + QPT_INTEL_PT_PRIV_NR * 8 + fbytes;
	uint64_t *w;

	if (size > cap || size > UINT16_MAX)
		return -ENOSPC;
	memset(buf, 0, size);
	info->header.type = QPT_RECORD_AUXTRACE_INFO;
	info->header.size = (uint16_t)size;
	info->type = QPT_AUXTRACE_INTEL_PT;
	w = info->priv;
	w[QPT_INTEL_PT_PMU_TYPE] = p->pmu_type;
	w[QPT_INTEL_PT_TIME_SHIFT] = p->time_shift;
	w[QPT_INTEL_PT_TIME_MULT] = p->time_mult;
	w[QPT_INTEL_PT_TIME_ZERO] = p->time_zero;
	w[QPT_INTEL_PT_CAP_USER_TIME_ZERO] = p->cap_user_time_zero;
	w[QPT_INTEL_PT_TSC_BIT] = p->tsc_bit;
	w[QPT_INTEL_PT_NORETCOMP_BIT] = p->noretcomp_bit;
	w[QPT_INTEL_PT_HAVE_SCHED_SWITCH] = (uint64_t)p->have_sched_switch;
	w[QPT_INTEL_PT_SNAPSHOT_MODE] = p->snapshot_mode;
	w[QPT_INTEL_PT_PER_CPU_MMAPS] = p->per_cpu_mmaps;
	w[QPT_INTEL_PT_MTC_BIT] = p->mtc_bit;
	w[QPT_INTEL_PT_MTC_FREQ_BITS] = p->mtc_freq_bits;
	w[QPT_INTEL_PT_TSC_CTC_N] = p->tsc_ctc_n;
	w[QPT_INTEL_PT_TSC_CTC_D] = p->tsc_ctc_d;
	w[QPT_INTEL_PT_CYC_BIT] = p->cyc_bit;
	w[QPT_INTEL_PT_MAX_NONTURBO_RATIO] = p->max_nonturbo_ratio;
	w[QPT_INTEL_PT_FILTER_STR_LEN] = flen;
	if (flen)
		memcpy(w + QPT_INTEL_PT_PRIV_NR, p->filter, flen);
	return (int)size;
}

/* The config mask a term set to 1 gives, 0 without the term. */
static uint64_t term_bit(const struct qpt_pmu *pmu, const char *term)
{
	const struct qpt_pmu_format *f = qpt_pmu_format(pmu, term);

	return f && !f->word ? qpt_pmu_format_bits(f, 1) : 0;
}

static int intel_pt_info(const struct qpt_auxtrace_ctx *ctx, void *buf,
			 size_t cap)
{
	const struct qpt_pmu_format *f;
	struct qpt_intel_pt_params p;
	uint64_t v;

	qpt_intel_pt_params_default(&p);
	p.pmu_type = ctx->pmu->type;
	if (ctx->page) {
		p.time_shift = ctx->page->time_shift;
		p.time_mult = ctx->page->time_mult;
		p.time_zero = ctx->page->time_zero;
		p.cap_user_time_zero = ctx->page->cap_user_time_zero;
	}
	p.tsc_bit = term_bit(ctx->pmu, "tsc");
	p.noretcomp_bit = term_bit(ctx->pmu, "noretcomp");
	p.mtc_bit = term_bit(ctx->pmu, "mtc");
	p.cyc_bit = term_bit(ctx->pmu, "cyc");
	f = qpt_pmu_format(ctx->pmu, "mtc_period");
	p.mtc_freq_bits = f && !f->word ? f->mask : 0;
	p.have_sched_switch = ctx->have_sched_switch;
	p.snapshot_mode = ctx->snapshot;
	p.per_cpu_mmaps = ctx->per_cpu;
	p.max_nonturbo_ratio = 0;
	if (!qpt_pmu_read_u64(ctx->pmu, "max_nonturbo_ratio", 10, &v))
		p.max_nonturbo_ratio = (uint32_t)v;
	p.filter = ctx->filter;
	return qpt_intel_pt_info_fill(&p, buf, cap);
}

/* perf's intel_pt_pick_bit: the highest set bit at or below @target, else
 * the lowest above it; -1 for no bits. */
static int pick_bit(uint64_t bits, int target)
{
	int pos, pick = -1;

	for (pos = 0; bits && pos < 64; bits >>= 1, pos++) {
		if (!(bits & 1))
			continue;
		if (pos <= target || pick < 0)
			pick = pos;
		if (pos >= target)
			break;
	}
	return pick;
}

static void set_term(const struct qpt_pmu *pmu, const char *term,
		     uint64_t value, struct perf_event_attr *attr)
{
	const struct qpt_pmu_format *f = qpt_pmu_format(pmu, term);

	if (f)
		qpt_pmu_format_set(f, value, attr);
}

/* perf's intel_pt_default_config: pt, branch, tsc; mtc with mtc_period 3
 * (or the nearest supported) unless caps/mtc says no; psb_period 3 (or
 * nearest) when caps/psb_cyc allows choosing it. */
static void intel_pt_default_config(const struct qpt_pmu *pmu,
				    struct perf_event_attr *attr)
{
	uint64_t mtc = 1, periods = 0, psb_cyc = 0;
	int bit;

	set_term(pmu, "pt", 1, attr);
	set_term(pmu, "branch", 1, attr);
	set_term(pmu, "tsc", 1, attr);
	qpt_pmu_read_u64(pmu, "caps/mtc", 0, &mtc);
	if (mtc && !qpt_pmu_read_u64(pmu, "caps/mtc_periods", 16, &periods) &&
	    periods) {
		bit = pick_bit(periods, 3);
		set_term(pmu, "mtc", 1, attr);
		set_term(pmu, "mtc_period", (uint64_t)bit, attr);
	}
	qpt_pmu_read_u64(pmu, "caps/psb_cyc", 0, &psb_cyc);
	periods = 0;
	if (psb_cyc &&
	    !qpt_pmu_read_u64(pmu, "caps/psb_periods", 16, &periods) && periods)
		set_term(pmu, "psb_period", (uint64_t)pick_bit(periods, 3),
			 attr);
}

const struct qpt_auxtrace_ops qpt_intel_pt_ops = {
    .pmu_name = "intel_pt",
    .type = QPT_AUXTRACE_INTEL_PT,
    .default_config = intel_pt_default_config,
    .info = intel_pt_info,
    .reference = qpt_auxtrace_tsc,
};
