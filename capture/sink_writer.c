// SPDX-License-Identifier: MIT
/* The consumer's sink that writes through the auxfmt writer. */
#include "capture/ring.h"
#include "qpt/writer.h"

static int writer_record(void *ctx, const struct perf_event_header *rec)
{
	return qpt_writer_write(ctx, rec);
}

static int writer_auxtrace(void *ctx, const struct qpt_record_auxtrace *hdr,
			   const struct iovec *iov, int iovcnt)
{
	return qpt_writer_write_auxtrace(ctx, hdr, iov, iovcnt);
}

void qpt_sink_writer(struct qpt_sink *sink, struct qpt_writer *writer)
{
	sink->record = writer_record;
	sink->auxtrace = writer_auxtrace;
	sink->ctx = writer;
}
