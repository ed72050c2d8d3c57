// SPDX-License-Identifier: MIT
/* qpt record's closing summary (see record_summary.h). */
#include <inttypes.h>

#include "cli/record_summary.h"

static void warn_losses(const struct qpt_capture_stats *st,
			void (*warn)(const char *fmt, ...))
{
	if (st->aux_truncated)
		warn("AUX data truncated %" PRIu64 " times out of %" PRIu64
		     ": trace was lost while the AUX area was full "
		     "(try a larger AUX area: -m ,SIZE)",
		     st->aux_truncated, st->aux_records);
	if (st->aux_partial)
		warn("AUX data had gaps in it %" PRIu64
		     " times out of %" PRIu64,
		     st->aux_partial, st->aux_records);
	if (st->aux_collision)
		warn("AUX data collided with another event's %" PRIu64
		     " times out of %" PRIu64,
		     st->aux_collision, st->aux_records);
	if (st->lost_events)
		warn("%" PRIu64 " sideband/sample records lost in %" PRIu64
		     " overruns of the data ring (try -m DATA)",
		     st->lost_records, st->lost_events);
	if (st->lost_samples)
		warn("%" PRIu64 " samples lost", st->lost_samples);
}

void record_summary(FILE *f, const struct qpt_capture_stats *st,
		    uint64_t out_bytes, const char *out, const char *note,
		    void (*warn)(const char *fmt, ...))
{
	char lost[160], recs[64];
	int n;

	warn_losses(st, warn);
	if (st->threads && !st->stops && !st->lost_traps) /* QEMU */
		fprintf(f,
			"[ qpt record --emulate: %" PRIu64 " instructions in "
			"%" PRIu64 " thread(s) ]\n",
			st->insns, st->threads);
	else if (st->threads)
		fprintf(f,
			"[ qpt record --emulate: %" PRIu64 " instructions in "
			"%" PRIu64 " thread(s), %" PRIu64 " stops, %" PRIu64
			" loops run natively (%" PRIu64 " trips), %" PRIu64
			" lost single-step traps recovered ]\n",
			st->insns, st->threads, st->stops, st->loops,
			st->loop_trips, st->lost_traps);
	/* Every byte the PMU wrote is captured or lost: overwritten before
	 * a snapshot took it, or left out of one by its size.  A
	 * truncation's bytes are not counted (the kernel does not say how
	 * many): its places are. */
	if (st->aux_truncated)
		n = snprintf(lost, sizeof(lost),
			     "trace lost at %" PRIu64 " places (the AUX area "
			     "was full), %" PRIu64 " bytes overwritten",
			     st->aux_truncated, st->aux_overwritten);
	else
		n = snprintf(lost, sizeof(lost), "%" PRIu64 " bytes lost",
			     st->aux_overwritten + st->aux_skipped);
	if (st->aux_skipped && n > 0 && (size_t)n < sizeof(lost))
		snprintf(lost + n, sizeof(lost) - (size_t)n,
			 "%s%" PRIu64 " left out of snapshots by their size%s",
			 st->aux_truncated ? ", " : " (", st->aux_skipped,
			 st->aux_truncated ? "" : ")");
	snprintf(recs, sizeof(recs), "%" PRIu64 " records", st->records);
	if (st->lost_records)
		snprintf(recs, sizeof(recs),
			 "%" PRIu64 " records, %" PRIu64 " lost", st->records,
			 st->lost_records);
	fprintf(f,
		"[ qpt record: captured %" PRIu64 " bytes of trace in %" PRIu64
		" buffers, %s; %s; wrote %.3f MB %s%s ]\n",
		st->aux_bytes, st->aux_buffers, lost, recs,
		(double)out_bytes / (1024.0 * 1024.0), out, note);
}
