/* SPDX-License-Identifier: MIT */
/*
 * One perf.data run: session.c reads the records into these tables (the
 * sideband in file order, the AUXTRACE queues, where the AUX data stood
 * against the sideband), replay.c decodes the queues against the address
 * space history.
 */
#ifndef QPT_DECODE_SESSION_H
#define QPT_DECODE_SESSION_H

#include "decode/decoder.h"
#include "qpt/reader.h"

struct qd_run {		     /* contiguous trace bytes of one queue */
	const uint8_t *data; /* borrowed from the mapped input while cap == 0 */
	uint8_t *own;
	size_t len, cap;
	uint64_t start; /* aux offset of data[0] */
};

/* The AUX bytes of a ring before offset @end were out before @w: from a
 * PERF_RECORD_AUX of that ring (@cpu, @tid from its sample id), or an
 * AUXTRACE record of the queue. */
struct qd_mark {
	uint64_t end;
	struct qd_when w;
	int32_t cpu, tid;
	int32_t ring; /* replay.c: @cpu for per-cpu rings, else @tid */
	bool cut;     /* trace was lost at @end (TRUNCATED, COLLISION): the
		       * bytes after it do not continue the bytes before */
	size_t lost;  /* cut: its entry in the session's losses */
};

struct qd_queue {
	uint32_t idx;
	int32_t cpu, tid;
	struct qd_run *runs;
	size_t nr_runs, cap_runs;
	struct qd_mark *marks; /* of its AUXTRACE records */
	size_t nr_marks, cap_marks;
};

struct qd_switch { /* a thread starts running on a cpu */
	uint64_t time, seq;
	int32_t cpu, pid, tid;
};

struct qd_lost {
	uint64_t time;
	bool has_time;
	int32_t cpu, tid;
	uint64_t pos; /* input offset of the record */
	bool at_cut;  /* an AUX record's: told where its ring's data was cut */
	bool told;    /* at_cut: told in the flow */
	char msg[96];
};

enum qd_op_kind { QD_OP_MAP, QD_OP_EXEC, QD_OP_FORK };

struct qd_op { /* an address space change, for the history */
	struct qd_when w;
	enum qd_op_kind kind;
	int32_t pid, ppid;
	uint64_t start, len, pgoff;
	struct qd_file *file;
};

/* What one AUXTRACE record added to its queue: the bytes [from, to) of
 * run @run (aux offsets) hold its payload, or bytes equal to it. */
struct qd_put {
	bool valid;
	size_t queue, run;
	uint64_t from, to;
};

struct qd_session {
	const struct qpt_reader *reader;
	const struct qpt_features *feat;
	struct qpt_decoder *dec;
	struct qd_hist hist;
	struct qd_op *ops;
	size_t nr_ops, cap_ops;
	struct qd_queue *queues; /* in the order they first appear */
	size_t nr_queues, cap_queues;
	struct qd_idmap qidx; /* queue idx -> position in queues */
	struct qd_progress *progress; /* while decoding; NULL: none */
	struct qd_mark *aux;  /* every PERF_RECORD_AUX */
	size_t nr_aux, cap_aux;
	struct qd_switch *sw;
	size_t nr_sw, cap_sw;
	struct qd_lost *lost;
	size_t nr_lost, cap_lost;
	struct qd_idmap tid_pid; /* the process of each thread seen */
	struct pt_config cfg;
	struct qd_time_conv tc;
	bool have_info, per_cpu;
	bool
	    stable; /* AUXTRACE payloads stay valid until the reader is freed */
	bool sb_timed;	/* sideband records carry sample times */
	uint64_t seq;	/* records read so far */
	uint64_t clock; /* the latest sample time read */
	struct qd_put *put; /* if set: each AUXTRACE record's, or !valid */
};

/* Room for element @n of the array *@p of @size-byte elements, which has
 * room for *@cap: grows it by doubling.  Returns 0 or -ENOMEM. */
int qd_reserve(void *p, size_t *cap, size_t n, size_t size);

/* Take record @rec into @s's tables (MMAP and MMAP2 need @s->dec). */
int qd_session_record(struct qd_session *s, const struct qpt_record *rec);
/* Free @s's tables (a zeroed @s is fine). */
void qd_session_fini(struct qd_session *s);

/* Order the AUX records by ring and the switches by cpu, as the decode
 * of the queues reads them. */
void qd_session_prepare(struct qd_session *s);

/* Trace was lost at aux offset @at of a queue's ring (the session's loss
 * @lost). */
struct qd_cut {
	uint64_t at;
	size_t lost;
};

/* Where the AUX records of @q's ring say trace was lost, by offset, into
 * *@cuts (the caller frees) and *@n; none for a ring without AUX records
 * (its AUXTRACE records mark it).  Needs qd_session_prepare.  Returns 0
 * or -ENOMEM. */
int qd_queue_cuts(const struct qd_session *s, const struct qd_queue *q,
		  struct qd_cut **cuts, size_t *n);

/* Decode every queue of @s (its history built) into @fn. */
int qd_session_decode(struct qd_session *s, qpt_item_fn fn, void *ctx);

#endif
