/* SPDX-License-Identifier: MIT */
/*
 * Per-PMU knowledge of AUX-area tracers, as an ops table: perf's default
 * configuration, the AUXTRACE_INFO record, the AUXTRACE reference clock.
 * The generic capture code looks a PMU up by name and never switches on it.
 */
#ifndef QPT_CAPTURE_AUXTRACE_H
#define QPT_CAPTURE_AUXTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "capture/pmu.h"
#include "qpt/perf_format.h"

/* What an AUXTRACE_INFO record may be built from. */
struct qpt_auxtrace_ctx {
	const struct qpt_pmu *pmu; /* the PMU as found in sysfs */
	const struct perf_event_attr *attr;
	/* The first event's control page (time conversion); may be NULL. */
	const struct perf_event_mmap_page *page;
	bool snapshot;	       /* snapshot (overwrite) mode */
	bool per_cpu;	       /* per-CPU mmaps (-a, -C) */
	int have_sched_switch; /* perf's encoding, 0: none */
	const char *filter;    /* address filter or NULL */
};

struct qpt_auxtrace_ops {
	const char *pmu_name;
	uint32_t type; /* QPT_AUXTRACE_* */
	/* Set perf's default terms into @attr (before the user's terms). */
	void (*default_config)(const struct qpt_pmu *pmu,
			       struct perf_event_attr *attr);
	/* Fill the AUXTRACE_INFO record into @buf (@cap bytes).  Returns
	 * its size, -ENOSPC if @cap is too small, or another error. */
	int (*info)(const struct qpt_auxtrace_ctx *ctx, void *buf, size_t cap);
	/* The AUXTRACE reference of a new buffer (perf: the TSC). */
	uint64_t (*reference)(void *ctx);
};

/* The ops of PMU @name, or NULL (not an AUX-area tracer known here). */
const struct qpt_auxtrace_ops *qpt_auxtrace_ops_find(const char *name);

/* The TSC (or, off x86, CLOCK_MONOTONIC_RAW): perf's AUXTRACE reference. */
uint64_t qpt_auxtrace_tsc(void *ctx);

extern const struct qpt_auxtrace_ops qpt_intel_pt_ops;
extern const struct qpt_auxtrace_ops qpt_intel_bts_ops;

/*
 * Intel PT's AUXTRACE_INFO from explicit parameters, so that a source
 * without the PMU (the emulated one) writes the very same words.  The
 * *_bit members are masks of config bits (perf: the config a term set to 1
 * gives), mtc_freq_bits the mask of the mtc_period field.
 */
struct qpt_intel_pt_params {
	uint32_t pmu_type;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	bool cap_user_time_zero;
	uint64_t tsc_bit, noretcomp_bit, mtc_bit, cyc_bit, mtc_freq_bits;
	int have_sched_switch;
	bool snapshot_mode;
	bool per_cpu_mmaps;
	uint32_t tsc_ctc_n, tsc_ctc_d; /* CPUID leaf 0x15: EBX, EAX */
	uint32_t max_nonturbo_ratio;
	const char *filter; /* NULL: none */
};

/*
 * Defaults for a source without sysfs: the masks of the Linux intel_pt
 * PMU's format files (tsc config:10, noretcomp config:11, mtc config:9,
 * cyc config:1, mtc_period config:14-17), time fields zero, TSC:CTC from
 * this CPU's CPUID leaf 0x15 when it has one, no filter.  pmu_type is 0:
 * set it to the attr.type of the event the records belong to (perf finds
 * the Intel PT event by it).
 */
void qpt_intel_pt_params_default(struct qpt_intel_pt_params *p);

/* Build the record: header, type 1, the 17 words, the filter string padded
 * with NULs to 8.  Returns the size, or -ENOSPC when @cap is too small. */
int qpt_intel_pt_info_fill(const struct qpt_intel_pt_params *p, void *buf,
			   size_t cap);

/* The largest AUXTRACE_INFO this library makes, filter excluded. */
#define QPT_AUXTRACE_INFO_MAX 256

#endif /* QPT_CAPTURE_AUXTRACE_H */
