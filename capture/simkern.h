/* SPDX-License-Identifier: MIT */
/*
 * A simulated kernel producer for one perf event with an AUX area: the
 * control page (struct perf_event_mmap_page), the data ring and the AUX
 * area live in memory and are written by the rules the kernel follows
 * (kernel/events/ring_buffer.c), so that the ring consumer (ring.h) drains
 * it exactly as it drains a real mmap.  Used by the unit tests and by the
 * emulated Intel PT source, which feeds its encoded bytes in here.
 *
 * Data ring (sideband):
 *  - a record is written at data_head when it fits in the free space
 *    (CIRC_SPACE(head, data_tail, size): at most size - 1 bytes in use);
 *    records may wrap the end of the ring; data_head is published with a
 *    release store after the bytes;
 *  - a record that does not fit is dropped and counted; before the next
 *    record that fits, a PERF_RECORD_LOST {id, lost} is written (both must
 *    fit together, as in perf_output_begin);
 *  - records the simulator makes itself (AUX, ITRACE_START, LOST,
 *    LOST_SAMPLES, and those given to qpt_simkern_output_body) get the
 *    sample_id trailer that @sample_type asks for when @sample_id_all.
 *
 * AUX area, one qpt_simkern_aux_write() = one transaction of the PMU
 * (perf_aux_output_begin ... perf_aux_output_end):
 *  - full-trace mode (!aux_overwrite): the bytes are written at aux_head up
 *    to CIRC_SPACE(aux_head, aux_tail, aux_size).  If everything fits,
 *    PERF_RECORD_AUX {offset = old head, size, flags}.  If not, what fits
 *    is written, the record carries PERF_AUX_FLAG_TRUNCATED, the rest is
 *    lost (counted) and the event is disabled, as the kernel does; a
 *    transaction that begins with no room at all loses everything, writes
 *    no record and disables the event.  While disabled, every byte is lost
 *    (counted) until the consumer calls ops->enable.
 *  - overwrite (snapshot) mode: aux_tail is ignored, the bytes wrap over old
 *    data, aux_head runs free (monotonic; or modulo the size with
 *    @aux_head_modulo, like Intel PT), and the record is
 *    {offset = new head, size, flags | PERF_AUX_FLAG_OVERWRITE}, as
 *    perf_aux_output_end does in overwrite mode.  While disabled (during a
 *    snapshot) bytes are lost as in full-trace mode.
 *  - aux_head is published with a release store after the bytes.
 *
 * Threads: one producer thread calls the qpt_simkern_* writers; one
 * consumer (possibly another thread) uses the ring from qpt_simkern_ring().
 * They share only the head/tail words, accessed with atomics, and the
 * enabled flag.  qpt_simkern_stats() is exact once both have stopped.
 */
#ifndef QPT_CAPTURE_SIMKERN_H
#define QPT_CAPTURE_SIMKERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "capture/ring.h"

struct qpt_simkern_opts {
	size_t size;	    /* sizeof(struct qpt_simkern_opts) */
	uint64_t data_size; /* data ring bytes: a power of two >= 64 */
	uint64_t aux_size;  /* AUX bytes: a power of two, or 0 */
	bool aux_overwrite; /* snapshot mode: AUX mapped read-only */
	/* Overwrite mode: publish aux_head (and AUX offsets) modulo the
	 * area size, as Intel PT's driver does in snapshot mode, instead of
	 * free-running. */
	bool aux_head_modulo;
	bool enabled; /* start enabled (else: on ops->enable) */
	/* The sample_id trailer of the records made here. */
	bool sample_id_all;
	uint64_t sample_type; /* TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
	uint64_t id;	      /* the event id (LOST's id, sample ID) */
	uint32_t pid, tid, cpu;
	/* AUXTRACE identity of the ring (qpt_simkern_ring). */
	uint32_t idx;
	uint32_t ring_tid, ring_cpu;
};

/* Defaults: 64 KiB data, 64 KiB AUX, full-trace, enabled, no sample_id,
 * ring_tid and ring_cpu -1. */
void qpt_simkern_opts_init(struct qpt_simkern_opts *opts);

struct qpt_simkern;

/* Returns 0 and *@sk, -QPT_E_INVAL (sizes), -ENOMEM. */
int qpt_simkern_new(const struct qpt_simkern_opts *opts,
		    struct qpt_simkern **sk);
void qpt_simkern_free(struct qpt_simkern *sk);

/* The bytes of the control page and rings of @opts laid out as the
 * kernel maps them (page, data ring at data_offset, AUX area at
 * aux_offset), for qpt_simkern_new_at; 0 when @opts are bad or a ring is
 * smaller than a page. */
size_t qpt_simkern_mem_size(const struct qpt_simkern_opts *opts);

/*
 * As qpt_simkern_new, with the control page and rings in the caller's
 * @mem (qpt_simkern_mem_size bytes, page-aligned, borrowed until
 * qpt_simkern_free): memory shared with a consumer in another process.
 * @resume: another producer wrote there before (it ended): go on from the
 * heads the control page holds; else start empty (the page is zeroed).
 * Returns 0 and *@sk, -QPT_E_INVAL, -ENOMEM.
 */
int qpt_simkern_new_at(const struct qpt_simkern_opts *opts, void *mem,
		       bool resume, struct qpt_simkern **sk);

/* The bytes a record (sample_id included) may take now and be kept, as
 * the consumer's tail leaves them. */
uint64_t qpt_simkern_data_room(const struct qpt_simkern *sk);
/* The bytes an AUX transaction may write now without truncation
 * (UINT64_MAX in overwrite mode, 0 without an AUX area). */
uint64_t qpt_simkern_aux_room(const struct qpt_simkern *sk);

/* Describe the simulated mmap for qpt_consumer_new: memory owned by @sk,
 * ops that use atomics and toggle the simulated enable bit, and a
 * reference that counts AUXTRACE buffers. */
void qpt_simkern_ring(struct qpt_simkern *sk, struct qpt_ring *ring);

/* The control page, e.g. to fill time_* fields. */
struct perf_event_mmap_page *qpt_simkern_page(struct qpt_simkern *sk);

/* The timestamp written into sample_id TIME from now on. */
void qpt_simkern_set_time(struct qpt_simkern *sk, uint64_t time);

/* Enable/disable as the ioctls would (the producer side may call them). */
void qpt_simkern_enable(struct qpt_simkern *sk, bool on);
bool qpt_simkern_enabled(const struct qpt_simkern *sk);

/*
 * Output one complete record (@rec->size bytes, a multiple of 8, borrowed),
 * as is: the caller wrote any sample_id.  Returns 1 if written, 0 if lost
 * (no room), -QPT_E_INVAL on a bad size.
 */
int qpt_simkern_output(struct qpt_simkern *sk,
		       const struct perf_event_header *rec);

/* Output a record of @type/@misc with body @body/@len (padded to 8) and the
 * sample_id trailer appended.  Returns as qpt_simkern_output. */
int qpt_simkern_output_body(struct qpt_simkern *sk, uint32_t type,
			    uint16_t misc, const void *body, size_t len);

/* The size of the sample_id trailer appended by the simulator. */
size_t qpt_simkern_sample_id_size(const struct qpt_simkern *sk);

/* PERF_RECORD_ITRACE_START {pid, tid}.  Returns as qpt_simkern_output. */
int qpt_simkern_itrace_start(struct qpt_simkern *sk, uint32_t pid,
			     uint32_t tid);
/* PERF_RECORD_LOST_SAMPLES {lost}. */
int qpt_simkern_lost_samples(struct qpt_simkern *sk, uint64_t lost);

/*
 * One AUX transaction of @len bytes (borrowed) with the hardware's extra
 * @flags (PERF_AUX_FLAG_PARTIAL, PERF_AUX_FLAG_COLLISION; others are the
 * simulator's to set).  Returns the bytes written into the area (0..len);
 * the rest were lost.  -QPT_E_STATE without an AUX area.
 */
int64_t qpt_simkern_aux_write(struct qpt_simkern *sk, const void *buf,
			      size_t len, uint64_t flags);

/* The producer's aux_head (free-running): where the next byte goes. */
uint64_t qpt_simkern_aux_head(const struct qpt_simkern *sk);

struct qpt_simkern_stats {
	uint64_t records_written;      /* data-ring records, LOST included */
	uint64_t records_lost;	       /* dropped for want of room */
	uint64_t records_lost_pending; /* not yet reported by a LOST */
	uint64_t aux_offered;	       /* bytes given to aux_write */
	uint64_t aux_written;	       /* bytes put into the area */
	uint64_t aux_lost;	       /* bytes dropped (full or disabled) */
	uint64_t aux_records;	       /* PERF_RECORD_AUX made (or lost) */
	uint64_t aux_truncated;	       /* ... with TRUNCATED */
	uint64_t disables;	       /* times the simulator disabled */
};

void qpt_simkern_stats(const struct qpt_simkern *sk,
		       struct qpt_simkern_stats *stats);

#endif /* QPT_CAPTURE_SIMKERN_H */
