/* SPDX-License-Identifier: MIT */
/*
 * The on-disk layout of perf.data: file and pipe headers, feature ids, and
 * the record types perf adds to the kernel's (PERF_RECORD_USER_TYPE_START
 * and up).  Kernel record types and struct perf_event_attr come from
 * <linux/perf_event.h>.  All structures are in the byte order of the host
 * that wrote them; the reader converts to host order.
 */
#ifndef QPT_PERF_FORMAT_H
#define QPT_PERF_FORMAT_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QPT_PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little-endian */
#define QPT_PERF_MAGIC2_SW 0x50455246494c4532ULL /* the same, byte-swapped */

/*
 * Where a public struct holds a struct perf_event_attr, it holds it in
 * QPT_ATTR_BYTES bytes of its own, whatever size the <linux/perf_event.h>
 * it is compiled against gives the kernel's struct (64 bytes in Linux
 * 2.6.31, 128 in 6.1, 136 in 6.3, and growing): a union of the attr and
 * these bytes, so that the struct's size and layout are libqpt's, not the
 * kernel header's.  The caller names the fields its header knows; the
 * library fills every byte it has (an attr read from a file: as many as
 * the file has, up to QPT_ATTR_BYTES), zeros after them.
 */
#define QPT_ATTR_BYTES 256u
#ifndef __cplusplus
_Static_assert(sizeof(struct perf_event_attr) <= QPT_ATTR_BYTES,
	       "struct perf_event_attr outgrew QPT_ATTR_BYTES");
#endif

struct qpt_file_section {
	uint64_t offset;
	uint64_t size;
};

#define QPT_HEADER_FEAT_BITS 256

/* The file-mode header: 104 bytes. */
struct qpt_file_header {
	uint64_t magic;
	uint64_t size;	    /* sizeof(struct qpt_file_header) */
	uint64_t attr_size; /* one entry of the attrs section */
	struct qpt_file_section attrs;
	struct qpt_file_section data;
	struct qpt_file_section event_types; /* unused */
	uint64_t adds_features[QPT_HEADER_FEAT_BITS / 64];
};

/* The pipe-mode header: 16 bytes, then records. */
struct qpt_pipe_header {
	uint64_t magic;
	uint64_t size; /* sizeof(struct qpt_pipe_header) */
};

enum qpt_feature {
	QPT_FEAT_RESERVED = 0,
	QPT_FEAT_TRACING_DATA = 1,
	QPT_FEAT_BUILD_ID,
	QPT_FEAT_HOSTNAME,
	QPT_FEAT_OSRELEASE,
	QPT_FEAT_VERSION,
	QPT_FEAT_ARCH,
	QPT_FEAT_NRCPUS,
	QPT_FEAT_CPUDESC,
	QPT_FEAT_CPUID,
	QPT_FEAT_TOTAL_MEM,
	QPT_FEAT_CMDLINE,
	QPT_FEAT_EVENT_DESC,
	QPT_FEAT_CPU_TOPOLOGY,
	QPT_FEAT_NUMA_TOPOLOGY,
	QPT_FEAT_BRANCH_STACK,
	QPT_FEAT_PMU_MAPPINGS,
	QPT_FEAT_GROUP_DESC,
	QPT_FEAT_AUXTRACE,
	QPT_FEAT_STAT,
	QPT_FEAT_CACHE,
	QPT_FEAT_SAMPLE_TIME,
	QPT_FEAT_MEM_TOPOLOGY,
	QPT_FEAT_CLOCKID,
	QPT_FEAT_DIR_FORMAT,
	QPT_FEAT_BPF_PROG_INFO,
	QPT_FEAT_BPF_BTF,
	QPT_FEAT_COMPRESSED,
	QPT_FEAT_CPU_PMU_CAPS,
	QPT_FEAT_CLOCK_DATA,
	QPT_FEAT_HYBRID_TOPOLOGY,
	QPT_FEAT_PMU_CAPS,
	QPT_FEAT_LAST,
};

/* perf's own record types. */
enum qpt_user_record_type {
	QPT_RECORD_HEADER_ATTR = 64,
	QPT_RECORD_HEADER_EVENT_TYPE = 65,
	QPT_RECORD_HEADER_TRACING_DATA = 66,
	QPT_RECORD_HEADER_BUILD_ID = 67,
	QPT_RECORD_FINISHED_ROUND = 68,
	QPT_RECORD_ID_INDEX = 69,
	QPT_RECORD_AUXTRACE_INFO = 70,
	QPT_RECORD_AUXTRACE = 71,
	QPT_RECORD_AUXTRACE_ERROR = 72,
	QPT_RECORD_THREAD_MAP = 73,
	QPT_RECORD_CPU_MAP = 74,
	QPT_RECORD_STAT_CONFIG = 75,
	QPT_RECORD_STAT = 76,
	QPT_RECORD_STAT_ROUND = 77,
	QPT_RECORD_EVENT_UPDATE = 78,
	QPT_RECORD_TIME_CONV = 79,
	QPT_RECORD_HEADER_FEATURE = 80,
	QPT_RECORD_COMPRESSED = 81,
	QPT_RECORD_FINISHED_INIT = 82,
	QPT_RECORD_COMPRESSED2 = 83,
	QPT_RECORD_USER_MAX,
};

/* AUXTRACE_INFO types (the first u32 after the header). */
enum qpt_auxtrace_type {
	QPT_AUXTRACE_UNKNOWN = 0,
	QPT_AUXTRACE_INTEL_PT = 1,
	QPT_AUXTRACE_INTEL_BTS = 2,
	QPT_AUXTRACE_CS_ETM = 3,
	QPT_AUXTRACE_ARM_SPE = 4,
	QPT_AUXTRACE_S390_CPUMSF = 5,
	QPT_AUXTRACE_HISI_PTT = 6,
};

/* The 17 private words of an Intel PT AUXTRACE_INFO, by index. */
enum qpt_intel_pt_priv {
	QPT_INTEL_PT_PMU_TYPE,
	QPT_INTEL_PT_TIME_SHIFT,
	QPT_INTEL_PT_TIME_MULT,
	QPT_INTEL_PT_TIME_ZERO,
	QPT_INTEL_PT_CAP_USER_TIME_ZERO,
	QPT_INTEL_PT_TSC_BIT,
	QPT_INTEL_PT_NORETCOMP_BIT,
	QPT_INTEL_PT_HAVE_SCHED_SWITCH,
	QPT_INTEL_PT_SNAPSHOT_MODE,
	QPT_INTEL_PT_PER_CPU_MMAPS,
	QPT_INTEL_PT_MTC_BIT,
	QPT_INTEL_PT_MTC_FREQ_BITS,
	QPT_INTEL_PT_TSC_CTC_N,
	QPT_INTEL_PT_TSC_CTC_D,
	QPT_INTEL_PT_CYC_BIT,
	QPT_INTEL_PT_MAX_NONTURBO_RATIO,
	QPT_INTEL_PT_FILTER_STR_LEN,
	QPT_INTEL_PT_PRIV_NR, /* 17; the filter string follows */
};

struct qpt_record_auxtrace_info {
	struct perf_event_header header;
	uint32_t type;
	uint32_t reserved__;
	uint64_t priv[];
};

/* header.size is sizeof(this) (0x30); @size payload bytes follow. */
struct qpt_record_auxtrace {
	struct perf_event_header header;
	uint64_t size;
	uint64_t offset;
	uint64_t reference;
	uint32_t idx;
	uint32_t tid;
	uint32_t cpu;
	uint32_t reserved__;
};

#define QPT_AUXTRACE_ERROR_MSG_SIZE 64

struct qpt_record_auxtrace_error {
	struct perf_event_header header;
	uint32_t type;
	uint32_t code;
	uint32_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint32_t fmt;
	uint64_t ip;
	uint64_t time;
	char msg[QPT_AUXTRACE_ERROR_MSG_SIZE];
	uint32_t machine_pid;
	uint32_t vcpu;
};

struct qpt_record_time_conv {
	struct perf_event_header header;
	uint64_t time_shift;
	uint64_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t cap_user_time_zero;
	uint8_t cap_user_time_short;
	uint8_t reserved[6];
};

/* One entry of the HEADER_AUXTRACE index. */
struct qpt_auxtrace_index_entry {
	uint64_t file_offset; /* of the AUXTRACE record */
	uint64_t sz;	      /* 0x30: the AUXTRACE event header, as perf */
};

#ifdef __cplusplus
}
#endif

#endif /* QPT_PERF_FORMAT_H */
