/* SPDX-License-Identifier: MIT */
/*
 * Capturing perf AUX-area traces (Intel PT, Intel BTS) and any other perf
 * event into perf.data: PMU discovery, event strings, and the recording
 * session the `qpt record` command drives.
 */
#ifndef QPT_CAPTURE_H
#define QPT_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a capture saw, summed over its rings.  AUX bytes are counted
 * unpadded.  Truncations are PERF_RECORD_AUX records with the TRUNCATED
 * flag: the trace source stopped because the AUX area was full, so trace
 * was lost there (the kernel does not say how many bytes).
 */
struct qpt_capture_stats {
	uint64_t records;	   /* data-ring records handed on */
	uint64_t data_bytes;	   /* their bytes */
	uint64_t aux_bytes;	   /* AUX payload bytes captured */
	uint64_t aux_buffers;	   /* AUXTRACE records written */
	uint64_t aux_records;	   /* PERF_RECORD_AUX seen */
	uint64_t aux_record_bytes; /* sum of their aux_size */
	uint64_t aux_truncated;	   /* ... with PERF_AUX_FLAG_TRUNCATED */
	uint64_t aux_partial;	   /* ... with PERF_AUX_FLAG_PARTIAL */
	uint64_t aux_collision;	   /* ... with PERF_AUX_FLAG_COLLISION */
	uint64_t aux_overwrite;	   /* ... with PERF_AUX_FLAG_OVERWRITE */
	uint64_t itrace_start;	   /* PERF_RECORD_ITRACE_START seen */
	uint64_t lost_events;	   /* PERF_RECORD_LOST seen */
	uint64_t lost_records;	   /* sum of their lost counts */
	uint64_t lost_samples;	   /* sum of PERF_RECORD_LOST_SAMPLES */
	uint64_t snapshots;	   /* snapshots taken */
	uint64_t snapshot_wrapped; /* ... of an AUX area that had wrapped */
	uint64_t aux_overwritten;  /* snapshot mode: bytes written over
				    * between two snapshots (lost) */
};

#ifdef __cplusplus
}
#endif

#endif /* QPT_CAPTURE_H */
