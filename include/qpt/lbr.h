/* SPDX-License-Identifier: MIT */
/*
 * Last-branch records (LBR): built from a decoded Intel PT flow, read from
 * perf.data samples with a branch stack, and stitched into full call
 * stacks.
 *
 *  - qpt_lbr: fed the items of a decoder run, it keeps per thread the
 *    last N taken branches (or, in call-stack mode, the stack of active
 *    calls a CALL_STACK LBR of depth N holds) and hands out records at the
 *    points asked for: the end of each thread's trace (the crash point
 *    when it ended asynchronously), samples of the file, every so many
 *    instructions.
 *  - qpt_lbr_stitch: per thread, full call stacks from call-stack LBR
 *    samples (hw_idx) and a memory of earlier stacks.
 *  - qpt_lbr_reader: the samples of a perf.data with their call stacks
 *    (kernel callchain, call-stack LBR, optionally stitched), symbolized.
 *  - qpt_lbr_inject: a perf.data of the samples a CALL_STACK LBR would
 *    have produced over an Intel PT trace.
 */
#ifndef QPT_LBR_H
#define QPT_LBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/decode.h"
#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most entries a record holds (perf's PERF_MAX_BRANCH_DEPTH is 127;
 * architectural LBRs have at most 32; qpt_lbr keeps up to this many). */
#define QPT_LBR_MAX_DEPTH 1024u

enum qpt_lbr_flag {
	QPT_LBR_MISPRED = 1u << 0,   /* target mispredicted */
	QPT_LBR_PREDICTED = 1u << 1, /* target predicted */
	QPT_LBR_IN_TX = 1u << 2,     /* in a transaction */
	QPT_LBR_ABORT = 1u << 3,     /* a transaction abort */
};

/* One branch in perf_branch_entry terms.  From a PT flow, neither
 * predicted nor mispredicted is known (both flags clear). */
struct qpt_lbr_entry {
	uint64_t from, to;
	uint32_t cycles; /* since the previous entry (CYC packets); 0: unknown */
	uint16_t kind;	 /* enum qpt_branch_kind; QPT_BR_NR: unknown */
	uint16_t flags;	 /* enum qpt_lbr_flag */
};

/*
 * perf_branch_entry's flags word (host order, as qpt_sample_parse hands
 * it out) for @e: mispred, predicted, in_tx, abort, cycles (saturated at
 * 65535) and type (PERF_BR_*).
 */
QPT_API uint64_t qpt_lbr_entry_perf_flags(const struct qpt_lbr_entry *e);
/*
 * The reverse: the caller's @e of @size bytes (the inline wrapper passes
 * sizeof; see qpt.h) from a perf_branch_entry's fields.  Returns 0 or
 * -QPT_E_INVAL (no @e, a size below the first version's).
 */
QPT_API int qpt_lbr_entry_from_perf_sized(uint64_t from, uint64_t to,
					  uint64_t flags,
					  struct qpt_lbr_entry *e,
					  size_t size);
static inline int qpt_lbr_entry_from_perf(uint64_t from, uint64_t to,
					  uint64_t flags,
					  struct qpt_lbr_entry *e)
{
	return qpt_lbr_entry_from_perf_sized(from, to, flags, e, sizeof(*e));
}
/* perf's PERF_BR_* type for a qpt_branch_kind, and back (PERF_BR_UNKNOWN
 * <-> QPT_BR_NR). */
QPT_API unsigned qpt_lbr_kind_to_perf(unsigned kind);
QPT_API unsigned qpt_lbr_kind_from_perf(unsigned type);

/* ---- LBR records from a decoded flow ---- */

enum qpt_lbr_mode {
	QPT_LBR_ANY,	    /* every taken branch (perf -j any,u) */
	QPT_LBR_CALL_STACK, /* the active calls (perf -j call_stack,u) */
};

enum qpt_lbr_point {
	QPT_LBR_AT_END,	   /* the end of a thread's trace */
	QPT_LBR_AT_CRASH,  /* ... that ended asynchronously (a fault, a signal) */
	QPT_LBR_AT_SAMPLE, /* a point added by qpt_lbr_add_point */
	QPT_LBR_AT_PERIOD, /* every opts.period instructions */
	QPT_LBR_POINT_NR,
};

struct qpt_lbr_opts {
	size_t size;	/* sizeof(struct qpt_lbr_opts) */
	unsigned depth; /* entries kept: 1..QPT_LBR_MAX_DEPTH (default 32) */
	unsigned mode;	/* enum qpt_lbr_mode (default QPT_LBR_ANY) */
	/* A QPT_LBR_AT_PERIOD record every @period instructions of a thread
	 * (its items must include QPT_WANT_INSN); 0: none (default). */
	uint64_t period;
	/* No records at the ends of the threads' traces. */
	bool no_end;
};

QPT_API void qpt_lbr_opts_init_sized(struct qpt_lbr_opts *opts,
					size_t size);
static inline void qpt_lbr_opts_init(struct qpt_lbr_opts *opts)
{
	qpt_lbr_opts_init_sized(opts, sizeof(*opts));
}

/*
 * One record.  @entries (newest first) and the record are borrowed for
 * the callback.  @ip: at a period, the next instruction (not yet
 * executed); at an end, the last instruction; at a sample, its ip.
 * @hw_idx: the slot of the newest entry in a ring of opts.depth slots
 * (perf's hw_idx: the LBR's top-of-stack index).  @struct_size: the bytes
 * of the record the library filled (see QPT_SIZED_HAS); @entries lie
 * @entry_size bytes apart: read them with qpt_lbr_record_entry().
 */
struct qpt_lbr_record {
	size_t struct_size;
	unsigned point; /* enum qpt_lbr_point */
	int32_t pid, tid, cpu;
	uint64_t ip, time;
	bool has_time;
	uint64_t hw_idx;
	uint64_t insns; /* instructions of the thread so far (with INSN items) */
	size_t nr;
	const struct qpt_lbr_entry *entries;
	size_t entry_size;
};

/* Entry @i (0: the newest) of @rec. */
static inline const struct qpt_lbr_entry *
qpt_lbr_record_entry(const struct qpt_lbr_record *rec, size_t i)
{
	return (const struct qpt_lbr_entry *)((const char *)rec->entries +
					      i * rec->entry_size);
}

/* Return 0 to go on, a negative value to stop (it is passed back). */
typedef int (*qpt_lbr_fn)(const struct qpt_lbr_record *rec, void *ctx);

struct qpt_lbr;

/*
 * Create a tracker handing records to @fn.  Returns 0, -ENOMEM, or
 * -QPT_E_INVAL (depth outside 1..QPT_LBR_MAX_DEPTH, an unknown mode, an
 * @opts of unknown size or with unknown bytes set).
 */
QPT_API int qpt_lbr_new(const struct qpt_lbr_opts *opts, qpt_lbr_fn fn,
			void *ctx, struct qpt_lbr **lbr);
/* NULL is a no-op. */
QPT_API void qpt_lbr_free(struct qpt_lbr *lbr);

/*
 * A QPT_LBR_AT_SAMPLE record for thread @tid at perf time @time (with @ip
 * as its ip): given at the first item of that thread later than @time
 * (or at qpt_lbr_finish when none comes or the trace has no times).
 * Add the points before the run.  Returns 0, -ENOMEM.
 */
QPT_API int qpt_lbr_add_point(struct qpt_lbr *lbr, int32_t tid,
			      uint64_t time, uint64_t ip);
/*
 * Add a point for every PERF_RECORD_SAMPLE with a tid and a time in the
 * perf.data @path (any event).  Returns the number added, -errno,
 * -QPT_E_FORMAT/TRUNCATED (then qpt_lbr_errpos/errmsg say where and
 * what), -ENOMEM.
 */
QPT_API int qpt_lbr_add_file_samples(struct qpt_lbr *lbr, const char *path);
/* After a failed call: the input offset and a one-line message ("" when
 * there is none). */
QPT_API uint64_t qpt_lbr_errpos(const struct qpt_lbr *lbr);
QPT_API const char *qpt_lbr_errmsg(const struct qpt_lbr *lbr);

/*
 * A qpt_item_fn: pass it to qpt_decoder_run_* with the tracker as
 * context, or call it from another callback.  It needs QPT_WANT_BRANCH
 * items; QPT_WANT_INSN ones for a period; QPT_WANT_EVENT ones for in_tx
 * (TSX events); QPT_WANT_CYCLES for cycles.  Taken branches enter as they
 * come; a trace end and the next trace begin of a thread enter as one
 * branch from the last instruction to where the trace resumed (a syscall
 * into a signal handler, a fault to its handler, sigreturn to the
 * interrupted code), except where the trace resumes where it stopped (a
 * syscall returning to the next instruction, an interrupt returning to
 * the interrupted one).  Returns 0, the callback's negative value, -ENOMEM,
 * or -QPT_E_INVAL (an item whose size is below the first version's).
 */
QPT_API int qpt_lbr_item(const struct qpt_item *item, void *lbr);

/*
 * The end records of every thread (unless opts.no_end) and the sample
 * points not given yet, in thread order.  Returns 0 or the callback's
 * negative value.
 */
QPT_API int qpt_lbr_finish(struct qpt_lbr *lbr);

/* ---- call stacks from call-stack LBR samples ---- */

/* Whether the call site @from lies in the function entered at @to. */
typedef bool (*qpt_lbr_link_fn)(uint64_t to, uint64_t from, void *ctx);

struct qpt_lbr_stitch_opts {
	size_t size;	  /* sizeof(struct qpt_lbr_stitch_opts) */
	unsigned max_lbr; /* the LBR's depth (CPU_PMU_CAPS "branches") */
	/* Optional: tells whether two frames link (by symbols); without it
	 * a call site links to a function entry at most 1 MiB below it. */
	qpt_lbr_link_fn link;
	void *link_ctx;
};

QPT_API void qpt_lbr_stitch_opts_init_sized(struct qpt_lbr_stitch_opts *opts,
					size_t size);
static inline void qpt_lbr_stitch_opts_init(struct qpt_lbr_stitch_opts *opts)
{
	qpt_lbr_stitch_opts_init_sized(opts, sizeof(*opts));
}

struct qpt_lbr_stitch;

/* Returns 0, -ENOMEM, -QPT_E_INVAL (max_lbr 0 or over QPT_LBR_MAX_DEPTH,
 * a bad opts size). */
QPT_API int qpt_lbr_stitch_new(const struct qpt_lbr_stitch_opts *opts,
			       struct qpt_lbr_stitch **st);
QPT_API void qpt_lbr_stitch_free(struct qpt_lbr_stitch *st);

/*
 * One sample of thread @tid: its call-stack LBR @e (@nr entries, newest
 * first, the newest in slot @hw_idx).  Samples of a thread must come in
 * time order.  Sets *@frames to the sample's call frames, innermost
 * first: its @nr entries, then the frames stitched from memory (the last
 * *@stitched ones), valid until the next call.  @e and *@frames are
 * arrays of the caller's struct qpt_lbr_entry, @entry_size bytes apart
 * (the inline wrapper passes sizeof).  Returns the number of frames,
 * -ENOMEM, or -QPT_E_INVAL (an @entry_size below the first version's).
 *
 * How: the LBR's slot of a call is its depth in the stack plus a constant
 * (modulo the depth), since calls and returns move the top of stack by
 * one.  The first sample whose LBR is not full is taken as a whole stack
 * and fixes the constant; from then on hw_idx gives each sample's depth
 * modulo max_lbr, and of the depths that fit, the one whose outermost
 * frames agree with the thread's remembered stack (or at least link to
 * it) is taken; the frames below come from that memory.  This recovers
 * what perf's --stitch-lbr cannot: the outer frames a call-stack LBR
 * loses for good when a recursion deeper than the LBR unwinds.
 */
QPT_API int qpt_lbr_stitch_sample_sized(struct qpt_lbr_stitch *st,
					int32_t tid,
					const struct qpt_lbr_entry *e,
					size_t nr, uint64_t hw_idx,
					const struct qpt_lbr_entry **frames,
					size_t *stitched, size_t entry_size);
static inline int qpt_lbr_stitch_sample(struct qpt_lbr_stitch *st,
					int32_t tid,
					const struct qpt_lbr_entry *e,
					size_t nr, uint64_t hw_idx,
					const struct qpt_lbr_entry **frames,
					size_t *stitched)
{
	return qpt_lbr_stitch_sample_sized(st, tid, e, nr, hw_idx, frames,
					   stitched, sizeof(*e));
}

/* ---- the samples of a perf.data with their call stacks ---- */

enum qpt_frame_source {
	QPT_FRAME_KERNEL,    /* the kernel part of the sample's callchain */
	QPT_FRAME_CALLCHAIN, /* the user part of the callchain (no LBR) */
	QPT_FRAME_LBR_LEAF,  /* the newest LBR entry's target: the function */
	QPT_FRAME_LBR,	     /* a call site from the LBR */
	QPT_FRAME_STITCHED,  /* a call site stitched from earlier samples */
};

struct qpt_lbr_frame {
	uint64_t addr;
	unsigned source; /* enum qpt_frame_source */
	const char *sym; /* or NULL */
	uint64_t symoff;
	const char *dso; /* the mapped file, or NULL */
	uint64_t dso_addr; /* @addr as an offset in the mapping (perf's) */
	/* With the reader's srcline option: @addr's source file (as
	 * qpt_item's srcfile), or NULL; and its line. */
	const char *srcfile;
	unsigned srcline;
};

/* One sample.  Everything is borrowed for the callback.  @struct_size:
 * the bytes of it the library filled (see QPT_SIZED_HAS); @frames lie
 * @frame_size bytes apart: read them with qpt_lbr_sample_frame(). */
struct qpt_lbr_sample {
	size_t struct_size;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time, ip, period;
	const char *comm;  /* the thread's name, or NULL */
	const char *event; /* the event's name, or NULL */
	bool call_stack;   /* branch_sample_type has CALL_STACK */
	uint64_t branch_nr;
	bool has_hw_idx;
	uint64_t hw_idx;
	size_t nr_frames;
	const struct qpt_lbr_frame *frames; /* innermost first */
	/* the call sites: the LBR entries' from addresses, then the
	 * stitched ones (the last @stitched) */
	size_t nr_calls, stitched;
	const uint64_t *calls;
	size_t frame_size;
};

/* Frame @i (0: the innermost) of @s. */
static inline const struct qpt_lbr_frame *
qpt_lbr_sample_frame(const struct qpt_lbr_sample *s, size_t i)
{
	return (const struct qpt_lbr_frame *)((const char *)s->frames +
					      i * s->frame_size);
}

typedef int (*qpt_lbr_sample_fn)(const struct qpt_lbr_sample *s, void *ctx);

struct qpt_lbr_reader_opts {
	size_t size;	      /* sizeof(struct qpt_lbr_reader_opts) */
	bool stitch;	      /* stitch call-stack LBRs (needs hw_idx) */
	unsigned max_lbr;     /* 0: the file's CPU_PMU_CAPS "branches" */
	const char *sysroot;  /* as qpt_decoder_opts */
	const char *buildid_dir;
	qpt_log_fn log;
	void *log_ctx;
	bool demangle;	      /* as qpt_decoder_opts */
	bool srcline;	      /* frames with their source lines */
};

QPT_API void qpt_lbr_reader_opts_init_sized(struct qpt_lbr_reader_opts *opts,
					size_t size);
static inline void qpt_lbr_reader_opts_init(struct qpt_lbr_reader_opts *opts)
{
	qpt_lbr_reader_opts_init_sized(opts, sizeof(*opts));
}

struct qpt_lbr_reader;

QPT_API int qpt_lbr_reader_new(const struct qpt_lbr_reader_opts *opts,
			       struct qpt_lbr_reader **r);
QPT_API void qpt_lbr_reader_free(struct qpt_lbr_reader *r);
/*
 * Every sample with a branch stack of the perf.data @path, in file order,
 * to @fn.  Returns the number of samples, the callback's negative value,
 * -errno, -QPT_E_FORMAT/TRUNCATED (errpos, errmsg), -QPT_E_UNSUPPORTED (no
 * event of the file samples a branch stack: errmsg says so).
 */
QPT_API int qpt_lbr_reader_run(struct qpt_lbr_reader *r, const char *path,
			       qpt_lbr_sample_fn fn, void *ctx);
QPT_API uint64_t qpt_lbr_reader_errpos(const struct qpt_lbr_reader *r);
QPT_API const char *qpt_lbr_reader_errmsg(const struct qpt_lbr_reader *r);

/* ---- synthesized call-stack LBR samples ---- */

struct qpt_lbr_inject_opts {
	size_t size;	  /* sizeof(struct qpt_lbr_inject_opts) */
	unsigned depth;	  /* the LBR's depth (default 32) */
	uint64_t period;  /* instructions between samples (default 1000) */
	/* Optional: the full call stack at each sample (a call-stack LBR of
	 * QPT_LBR_MAX_DEPTH entries over the same flow). */
	qpt_lbr_fn truth;
	void *truth_ctx;
};

QPT_API void qpt_lbr_inject_opts_init_sized(struct qpt_lbr_inject_opts *opts,
					size_t size);
static inline void qpt_lbr_inject_opts_init(struct qpt_lbr_inject_opts *opts)
{
	qpt_lbr_inject_opts_init_sized(opts, sizeof(*opts));
}

struct qpt_writer;

/*
 * Decode the Intel PT perf.data @in with @dec (which must want
 * QPT_WANT_INSN and QPT_WANT_BRANCH) and write into @out (a fresh writer:
 * no attr, no record; the caller closes and frees it): every opts.period
 * instructions of a thread a PERF_RECORD_SAMPLE (IP, TID, TIME, CALLCHAIN,
 * BRANCH_STACK) of an instructions event with branch_sample_type
 * USER|CALL_STACK|HW_INDEX, its branch stack what a call-stack LBR of
 * opts.depth entries holds there, its callchain PERF_CONTEXT_USER and the
 * ip (as the kernel gives it for --call-graph lbr); the input's MMAP,
 * MMAP2, COMM, FORK and EXIT records (their sample_id rewritten, the
 * samples merged in by time) and build-ids; CPU_PMU_CAPS branches=depth.
 * The samples are kept in memory until the sideband is copied.  Returns
 * the number of samples written, or a negative error: the decoder's and
 * the input's (qpt_decoder_errpos/errmsg say where, when they can),
 * the writer's (which it then returns for every call), -QPT_E_INVAL.
 */
QPT_API int qpt_lbr_inject(struct qpt_decoder *dec, const char *in,
			   struct qpt_writer *out,
			   const struct qpt_lbr_inject_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* QPT_LBR_H */
