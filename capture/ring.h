/* SPDX-License-Identifier: MIT */
/*
 * The ring consumer: drains a perf event's data ring (sideband records) and
 * AUX area (trace bytes) the way include/linux/perf_event.h prescribes, and
 * hands what it read to a sink (normally the auxfmt writer).
 *
 * It makes no system calls: the memory is described by struct qpt_ring and
 * every access to the shared head/tail words, and enabling/disabling the
 * event, goes through struct qpt_ring_ops.  The hardware path maps the real
 * buffers and passes ioctl-based ops; the simulated kernel (simkern.h) and
 * the emulated Intel PT source pass in-memory buffers and their own ops.
 *
 * Protocol (perf_event.h):
 *  - data ring: acquire-load data_head; records lie in
 *    [data_tail, data_head) modulo data_size; a record may wrap the end (it
 *    is reassembled in a bounce buffer); release-store data_tail only after
 *    the records were handed on.
 *  - AUX area, full-trace mode (mapped read-write): acquire-load aux_head,
 *    hand [aux_tail, aux_head) on as one AUXTRACE record whose payload is one
 *    or two spans of the mapping (no copy here), release-store aux_tail.
 *  - AUX area, snapshot/overwrite mode (mapped read-only): aux_tail is
 *    ignored by the kernel; qpt_consumer_snapshot() disables the event,
 *    copies the newest bytes and re-enables it.
 *
 * Not thread-safe: one consumer per ring, called from one thread; the
 * producer (kernel or simulator) may run concurrently.
 */
#ifndef QPT_CAPTURE_RING_H
#define QPT_CAPTURE_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/perf_event.h>

#include "qpt/capture.h"
#include "qpt/perf_format.h"

struct qpt_writer;

/*
 * The system seam.  Every member may be NULL: loads/stores then use C11
 * atomics on the mapping (acquire/release), enable/disable do nothing and
 * succeed, reference returns 0.  Return values of enable/disable follow the
 * library convention (0 or -errno); one that fails with -EINTR or -EAGAIN
 * is tried again, a few times at most.
 */
struct qpt_ring_ops {
	uint64_t (*load_acquire)(const uint64_t *word, void *ctx);
	void (*store_release)(uint64_t *word, uint64_t value, void *ctx);
	int (*enable)(void *ctx);
	int (*disable)(void *ctx);
	/* The AUXTRACE "reference" of a new buffer (perf uses the TSC). */
	uint64_t (*reference)(void *ctx);
};

/*
 * What one mmap of a perf event looks like.  All memory is borrowed and
 * must outlive the consumer.  @page is the control page (struct
 * perf_event_mmap_page); @data/@data_size the data ring (a power of two,
 * >= 8 bytes); @aux/@aux_size the AUX area (a power of two; NULL/0 when
 * the event has none).  @aux_overwrite: the AUX area is mapped read-only
 * (snapshot mode), so the kernel ignores aux_tail and wraps over old data.
 * @idx, @tid, @cpu go into each AUXTRACE record (perf: the mmap's index,
 * the thread or -1, the CPU or -1).
 */
struct qpt_ring {
	struct perf_event_mmap_page *page;
	uint8_t *data;
	uint64_t data_size;
	uint8_t *aux;
	uint64_t aux_size;
	bool aux_overwrite;
	uint32_t idx;
	uint32_t tid;
	uint32_t cpu;
	const struct qpt_ring_ops *ops; /* borrowed; NULL: the defaults */
	void *ops_ctx;
};

/*
 * Where the consumer's output goes.  @record gets each data-ring record,
 * contiguous and aligned (@rec->size bytes valid until the callback
 * returns).  @auxtrace gets each AUXTRACE record: @hdr->size is the payload
 * size padded to 8, the @iovcnt (1 or 2) spans hold the unpadded payload
 * and point into the AUX mapping (valid until the callback returns).
 * Callbacks return 0 or a negative error, which stops the drain and is
 * returned by it (tails are then not advanced past what was not handed on).
 */
struct qpt_sink {
	int (*record)(void *ctx, const struct perf_event_header *rec);
	int (*auxtrace)(void *ctx, const struct qpt_record_auxtrace *hdr,
			const struct iovec *iov, int iovcnt);
	void *ctx;
};

/* A sink that writes through @writer (qpt_writer_write and
 * qpt_writer_write_auxtrace); @writer is borrowed. */
void qpt_sink_writer(struct qpt_sink *sink, struct qpt_writer *writer);

struct qpt_consumer;

/*
 * Make a consumer of @ring (copied; its memory is borrowed) writing to
 * @sink (copied).  Returns 0 and *@consumer, -QPT_E_INVAL when the ring
 * description is inconsistent (sizes not powers of two, NULL memory),
 * -ENOMEM.
 */
int qpt_consumer_new(const struct qpt_ring *ring, const struct qpt_sink *sink,
		     struct qpt_consumer **consumer);
void qpt_consumer_free(struct qpt_consumer *consumer);

/*
 * Hand every complete record in the data ring to the sink, then advance
 * data_tail.  Returns the number of records, -QPT_E_FORMAT when a record
 * header is impossible (size < 8, not a multiple of 8, or larger than the
 * filled part) or head or tail is not 8-aligned, -QPT_E_LOST when head ran
 * more than the ring size ahead of tail (overrun: the producer ignored
 * data_tail), or the sink's error.
 */
int qpt_consumer_read_data(struct qpt_consumer *consumer);

/*
 * Full-trace mode: hand [aux_tail, aux_head) to the sink as one AUXTRACE
 * record, then advance aux_tail.  The kernel disables a truncated event;
 * if it may have (a PERF_RECORD_AUX with TRUNCATED was seen, or a
 * PERF_RECORD_LOST that may have hidden one, or the area was full), it is
 * re-enabled through ops->enable after the drain.  Returns the number of
 * payload bytes (0: nothing new), -QPT_E_STATE in overwrite mode or without an
 * AUX area, -QPT_E_LOST on an overrun (head - tail > aux_size), or the sink's /
 * ops' error.
 */
int64_t qpt_consumer_read_aux(struct qpt_consumer *consumer);

/*
 * Snapshot (overwrite mode, or full-trace if asked): ops->disable, read
 * aux_head, hand on the newest min(@size, bytes written since the previous
 * snapshot, aux_size) bytes (@size 0: the whole area) as one AUXTRACE
 * record, ops->enable.  Of the bytes written since, those the area no
 * longer holds count as overwritten, those @size leaves out as skipped.
 * A buffer that has not wrapped yet (it is zero-filled
 * after aux_head) yields only what was written.  Returns the number of
 * payload bytes, -QPT_E_STATE without an AUX area, or an ops/sink error
 * (the event is re-enabled in every case it was disabled).
 */
int64_t qpt_consumer_snapshot(struct qpt_consumer *consumer, uint64_t size);

/* Drain: read_data, then (full-trace mode) read_aux, then read_data again
 * for the records the AUX drain may have let through.  Returns 0 or the
 * first error. */
int qpt_consumer_drain(struct qpt_consumer *consumer);

/* Add this consumer's counters to @stats (which the caller zeroed). */
void qpt_consumer_add_stats(const struct qpt_consumer *consumer,
			    struct qpt_capture_stats *stats);

#endif /* QPT_CAPTURE_RING_H */
