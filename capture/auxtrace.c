// SPDX-License-Identifier: MIT
/* The table of AUX-area tracers this library knows. */
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "capture/auxtrace.h"

static const struct qpt_auxtrace_ops *const auxtrace_pmus[] = {
    &qpt_intel_pt_ops,
    &qpt_intel_bts_ops,
    NULL,
};

const struct qpt_auxtrace_ops *qpt_auxtrace_ops_find(const char *name)
{
	const struct qpt_auxtrace_ops *const *o;

	for (o = auxtrace_pmus; name && *o; o++)
		if (!strcmp((*o)->pmu_name, name))
			return *o;
	return NULL;
}

uint64_t qpt_auxtrace_tsc(void *ctx)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
