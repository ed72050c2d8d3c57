// SPDX-License-Identifier: MIT
/* Intel BTS: the AUXTRACE_INFO record, as perf's arch/x86/util/intel-bts.c
 * writes it. */
#include <errno.h>
#include <string.h>

#include "capture/auxtrace.h"

/* Intel BTS: type 2 and six words (perf's enum intel_bts priv): pmu type,
 * time shift, mult, zero, cap_user_time_zero, snapshot mode. */
enum {
	BTS_PMU_TYPE,
	BTS_TIME_SHIFT,
	BTS_TIME_MULT,
	BTS_TIME_ZERO,
	BTS_CAP_USER_TIME_ZERO,
	BTS_SNAPSHOT_MODE,
	BTS_PRIV_NR,
};

static int intel_bts_info(const struct qpt_auxtrace_ctx *ctx, void *buf,
			  size_t cap)
{
	struct qpt_record_auxtrace_info *info = buf;
	size_t size = sizeof(*info) + BTS_PRIV_NR * 8;

	if (size > cap)
		return -ENOSPC;
	memset(buf, 0, size);
	info->header.type = QPT_RECORD_AUXTRACE_INFO;
	info->header.size = (uint16_t)size;
	info->type = QPT_AUXTRACE_INTEL_BTS;
	info->priv[BTS_PMU_TYPE] = ctx->pmu->type;
	if (ctx->page) {
		info->priv[BTS_TIME_SHIFT] = ctx->page->time_shift;
		info->priv[BTS_TIME_MULT] = ctx->page->time_mult;
		info->priv[BTS_TIME_ZERO] = ctx->page->time_zero;
		info->priv[BTS_CAP_USER_TIME_ZERO] =
		    ctx->page->cap_user_time_zero;
	}
	info->priv[BTS_SNAPSHOT_MODE] = ctx->snapshot;
	return (int)size;
}

const struct qpt_auxtrace_ops qpt_intel_bts_ops = {
    .pmu_name = "intel_bts",
    .type = QPT_AUXTRACE_INTEL_BTS,
    .default_config = NULL,
    .info = intel_bts_info,
    .reference = qpt_auxtrace_tsc,
};
