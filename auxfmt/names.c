// SPDX-License-Identifier: MIT
/* perf's names for record types and feature sections. */
#include <stddef.h>

#include "qpt/reader.h"

static const char *const kernel_names[PERF_RECORD_MAX] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_names[QPT_RECORD_USER_MAX -
				    QPT_RECORD_HEADER_ATTR] = {
#define U(n) [QPT_RECORD_##n - QPT_RECORD_HEADER_ATTR] = #n
	U(HEADER_ATTR),
	U(HEADER_EVENT_TYPE),
	U(HEADER_TRACING_DATA),
	U(HEADER_BUILD_ID),
	U(FINISHED_ROUND),
	U(ID_INDEX),
	U(AUXTRACE_INFO),
	U(AUXTRACE),
	U(AUXTRACE_ERROR),
	U(THREAD_MAP),
	U(CPU_MAP),
	U(STAT_CONFIG),
	U(STAT),
	U(STAT_ROUND),
	U(EVENT_UPDATE),
	U(TIME_CONV),
	U(HEADER_FEATURE),
	U(COMPRESSED),
	U(FINISHED_INIT),
	U(COMPRESSED2),
#undef U
};

const char *qpt_record_type_name(uint32_t type)
{
	if (type < PERF_RECORD_MAX)
		return kernel_names[type];
	if (type >= QPT_RECORD_HEADER_ATTR && type < QPT_RECORD_USER_MAX)
		return user_names[type - QPT_RECORD_HEADER_ATTR];
	return NULL;
}

static const char *const feature_names[QPT_FEAT_LAST] = {
#define F(n) [QPT_FEAT_##n] = #n
	F(RESERVED),
	F(TRACING_DATA),
	F(BUILD_ID),
	F(HOSTNAME),
	F(OSRELEASE),
	F(VERSION),
	F(ARCH),
	F(NRCPUS),
	F(CPUDESC),
	F(CPUID),
	F(TOTAL_MEM),
	F(CMDLINE),
	F(EVENT_DESC),
	F(CPU_TOPOLOGY),
	F(NUMA_TOPOLOGY),
	F(BRANCH_STACK),
	F(PMU_MAPPINGS),
	F(GROUP_DESC),
	F(AUXTRACE),
	F(STAT),
	F(CACHE),
	F(SAMPLE_TIME),
	F(MEM_TOPOLOGY),
	F(CLOCKID),
	F(DIR_FORMAT),
	F(BPF_PROG_INFO),
	F(BPF_BTF),
	F(COMPRESSED),
	F(CPU_PMU_CAPS),
	F(CLOCK_DATA),
	F(HYBRID_TOPOLOGY),
	F(PMU_CAPS),
#undef F
};

const char *qpt_feature_name(enum qpt_feature feat)
{
	if ((unsigned)feat >= QPT_FEAT_LAST)
		return NULL;
	return feature_names[feat];
}

bool qpt_feature_is_string(enum qpt_feature feat)
{
	switch (feat) {
	case QPT_FEAT_HOSTNAME:
	case QPT_FEAT_OSRELEASE:
	case QPT_FEAT_VERSION:
	case QPT_FEAT_ARCH:
	case QPT_FEAT_CPUDESC:
	case QPT_FEAT_CPUID:
		return true;
	default:
		return false;
	}
}
