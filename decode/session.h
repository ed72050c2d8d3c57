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

/* Bytes of one AUXTRACE payload that a run holds: read from the input
 * at @pos when the session has a descriptor and they are not @own, else
 * at @data (the mapped input, or @own: a copy of a payload that did not
 * stay, from a pipe or a COMPRESSED record). */
struct qd_piece {
	uint64_t at;  /* offset in the run */
	uint64_t pos; /* input offset, or the spill file's (spilled) */
	uint64_t len;
	const uint8_t *data;
	uint8_t *own;
	bool spilled; /* in the session's spill file */
};

struct qd_run { /* contiguous trace bytes of one queue */
	uint64_t start; /* aux offset of its first byte */
	uint64_t len;
	struct qd_piece *pieces;
	size_t nr_pieces, cap_pieces;
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

/* spill.c: trace bytes kept in an unlinked temporary file (all zero:
 * none made yet) */
struct qd_spill {
	int fd;
	bool open;
	bool none;    /* none could be made: bytes stay in memory */
	uint64_t len; /* bytes written */
};

/* Append @n bytes of @buf to the spill file (made at the first bytes),
 * at *@pos.  Returns 0, 1 when no file can be made (keep them in
 * memory), or -errno (a write failed: a full disk, say). */
int qd_spill_put(struct qd_spill *sp, const void *buf, uint64_t n,
		 uint64_t *pos);
void qd_spill_fini(struct qd_spill *sp);

struct qd_session {
	struct qpt_reader *reader;
	const struct qpt_features *feat;
	struct qpt_decoder *dec;
	int fd;	/* the reader's, to pread the AUX bytes at; -1: none */
	struct qd_spill spill; /* AUX bytes that do not stay in the input */
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
 * @lost); @tell (replay.c's cursors): the loss is told there (once, where
 * its ring's flow is cut first). */
struct qd_cut {
	uint64_t at;
	size_t lost;
	bool tell;
};

/* Where the AUX records of @q's ring say trace was lost, by offset, into
 * *@cuts (the caller frees) and *@n; none for a ring without AUX records
 * (its AUXTRACE records mark it).  Needs qd_session_prepare.  Returns 0
 * or -ENOMEM. */
int qd_queue_cuts(const struct qd_session *s, const struct qd_queue *q,
		  struct qd_cut **cuts, size_t *n);

/* Replay the sideband of @s into the history @h (initialised). */
int qd_session_history(const struct qd_session *s, struct qd_hist *h);

/* The bytes of trace of @s's queues. */
uint64_t qd_session_trace_bytes(const struct qd_session *s);

/* Decode every queue of @s (its history built) into @fn. */
int qd_session_decode(struct qd_session *s, qpt_item_fn fn, void *ctx);
/* The same on worker threads (jobs.c), the output through @sink. */
int qd_session_decode_jobs(struct qd_session *s,
			   const struct qpt_job_sink *sink);

/* ---- order.c: queues merged by time ---- */

/* One step of queue @i, and with @limit maybe more while *@time is at
 * most *@limit (the caller asks for more as long as it is): 1 while it
 * has more, 0 at its end, or a negative error; *@time is set to the time
 * of its latest items when they have one (else left as it is). */
typedef int (*qd_step_fn)(void *arg, size_t i, uint64_t *time,
			  const uint64_t *limit);

/* Queue @i's items are held from now on (@on), until its next step. */
typedef void (*qd_hold_fn)(void *arg, size_t i, bool on);

/*
 * A queue's place at the start is the time of its first items, held: as
 * many steps as this at most (a trace without timestamps is placed at
 * time 0 after these).  From there on, a step that gives no time never
 * ends a queue's run: the queue goes on with its next.
 */
#define QD_PRIME_STEPS 64

/*
 * Step the @n queues to their ends: by time (@by_time: the queue with the
 * oldest latest items goes on until its time passes the next queue's;
 * each queue is first placed by the time of its first items, made held),
 * else each whole in turn.  Returns 0 or the first error.
 */
int qd_order_run(size_t n, qd_step_fn step, qd_hold_fn hold, void *arg,
		 bool by_time);

/* ---- part.c: a run's bytes, in parts cut at PSBs ---- */

/* Copy [@off, @off + @n) of @r into @buf.  Returns 0 or -errno. */
int qd_run_read(const struct qd_session *s, const struct qd_run *r,
		uint64_t off, void *buf, size_t n);

/*
 * The parts of a run that flows decode one after another (or in
 * parallel, stitched): each but the first starts at a PSB, the first at
 * or after QD_PART_MIN bytes from the start of the one before.  Only the
 * part at hand is in memory.
 */
#define QD_PART_MIN (4u << 10)

struct qd_part {
	uint8_t *buf; /* owned */
	size_t own;   /* its bytes: up to the next part's PSB */
	size_t len;   /* and the next part's PSB+ and the timing packets
		       * after it (the flow ends there) */
	uint64_t off; /* in the run */
	uint64_t run_start; /* aux offset of the run's first byte */
	bool last;    /* of its run */
	bool after_loss; /* its bytes follow lost trace (a cut): no PSB in
			  * them is no error */
	/* the losses its queue tells before it (the cursor's cuts) */
	size_t cut_lo, cut_hi;
};

struct qd_cutter {
	const struct qd_session *s;
	const struct qd_run *run;
	uint64_t pos;	/* run offset of the next part */
	uint64_t end;	/* run offset where the parts end */
	uint8_t *left;	/* the bytes read from @pos on */
	size_t nr_left;
};

/* The parts of [@from, @to) of @run (run offsets: between two losses). */
void qd_cutter_init(struct qd_cutter *c, const struct qd_session *s,
		    const struct qd_run *run, uint64_t from, uint64_t to);
/* The next part into @part (its buffer the caller's to free): 1, 0 at the
 * end of the range, or -errno. */
int qd_cutter_next(struct qd_cutter *c, struct qd_part *part);
void qd_cutter_fini(struct qd_cutter *c);

#endif
