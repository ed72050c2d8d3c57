/* SPDX-License-Identifier: MIT */
/*
 * Capturing perf AUX-area traces (Intel PT, Intel BTS) and any other perf
 * event into perf.data: PMU discovery, event strings, and the recording
 * session the `qpt record` command drives.
 */
#ifndef QPT_CAPTURE_H
#define QPT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

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


/*
 * Events, as perf spells them:
 *   PMU/term,term=value,.../MODS   any PMU in sysfs by name, e.g.
 *       intel_pt/tsc,noretcomp=1,cyc,psb_period=3/u   or   intel_bts//
 *   NAME[:MODS]                    a hardware or software event by perf's
 *       name: cycles, instructions, branches, task-clock, cpu-clock,
 *       page-faults, context-switches, dummy, ...
 * Terms are the PMU's format files (a term without a value is 1), or
 * config, config1, config2, period, freq.  MODS: u (user), k (kernel),
 * h (hypervisor); naming some excludes the others.  An AUX-area tracer
 * known to this library (intel_pt, intel_bts) starts from perf's defaults
 * (intel_pt: pt, branch, tsc, mtc and psb_period as the caps allow).
 */
struct qpt_event;

struct qpt_event_opts {
	size_t size;		/* sizeof(struct qpt_event_opts) */
	const char *sysfs_root;	/* NULL: /sys/bus/event_source/devices */
	char *errbuf;		/* if set: why parsing failed, one line */
	size_t errlen;
};

QPT_API void qpt_event_opts_init(struct qpt_event_opts *opts);

/*
 * Parse @str into *@event (free with qpt_event_free).  Returns 0,
 * -QPT_E_NOPMU (the PMU is not on this machine; errbuf names it),
 * -QPT_E_INVAL (syntax, unknown term or event, value too large; errbuf
 * says which), -QPT_E_FORMAT (a sysfs file that does not parse), -ENOMEM.
 */
QPT_API int qpt_event_parse(const char *str, const struct qpt_event_opts *opts,
			    struct qpt_event **event);
QPT_API void qpt_event_free(struct qpt_event *event);

/* The perf_event_attr the event string gives (type, config*, exclude_*,
 * sample period or frequency); borrowed from @event. */
QPT_API const struct perf_event_attr *qpt_event_attr(const struct qpt_event *event);
/* The PMU's name ("intel_pt", "software", "hardware", ...); borrowed. */
QPT_API const char *qpt_event_pmu(const struct qpt_event *event);
/* Whether the event writes an AUX area (a known AUX-area tracer). */
QPT_API bool qpt_event_is_aux(const struct qpt_event *event);

#ifdef __cplusplus
}
#endif

#endif /* QPT_CAPTURE_H */
