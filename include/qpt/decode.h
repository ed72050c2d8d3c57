/* SPDX-License-Identifier: MIT */
/*
 * Decoding Intel PT: instruction, branch and event flows from a bare PT
 * stream with memory images (like libipt's ptxed --raw) or from a perf.data
 * file with AUXTRACE data (like perf script --itrace).
 *
 * A decoder owns its images (a libipt image section cache, so each file is
 * loaded once) and its symbol tables.  A run delivers items to a callback,
 * in trace order, as they are decoded: nothing is kept per instruction, so
 * memory stays bounded whatever the trace size.  Bad trace bytes are not a
 * failure of the run: they become QPT_ITEM_EVENT items (QPT_EV_ERROR with
 * the trace offset and libipt's message), and decoding resumes at the next
 * synchronization point (PSB).
 *
 * Engine: qpt's fast block decoder, which gives what libipt's block
 * decoder gives (blocks end at every branch; the same events at the same
 * trace offsets) for the packets of user-space traces, from its own
 * packet reader and a cache of straight-line runs; where a trace needs
 * more (other packets, decode errors, overflows), libipt's block decoder
 * decodes from the last PSB on (opts.libipt_only: libipt alone).  The
 * instructions inside a block are walked with the x86 layer over the
 * same image bytes; libipt 2.0.5's instruction decoder is not used (it
 * fails on a real trace that its block decoder decodes).  The queues of
 * a perf.data file (cpus or threads) are merged by time, as perf script
 * merges them: the queue whose latest items are the oldest goes on until
 * its time passes the next queue's (QPT_DECODE_NO_SORT: one queue after
 * the other); per-cpu queues follow context switches by their timestamps.
 * A queue's trace is read from the input as it is decoded, never held.
 */
#ifndef QPT_DECODE_H
#define QPT_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_decoder;

/* What a run delivers; or them together in qpt_decoder_opts.want. */
enum qpt_decode_want {
	QPT_WANT_INSN = 1u << 0,     /* every executed instruction */
	QPT_WANT_BRANCH = 1u << 1,   /* every taken branch */
	QPT_WANT_EVENT = 1u << 2,    /* every event (errors are always sent) */
	QPT_WANT_SYMBOLS = 1u << 3,  /* resolve sym+off for ips */
	QPT_WANT_CYCLES = 1u << 4,   /* branches carry their CYC cycles */
	/* count instructions and taken branches per thread, instructions
	 * and calls per function (qpt_decoder_profile_*), a block at a time:
	 * no item per instruction or branch is made for it */
	QPT_WANT_PROFILE = 1u << 5,
	/* basic blocks and edges with their counts (qpt_decoder_coverage_*),
	 * a block at a time: no item per instruction or branch is made for
	 * it */
	QPT_WANT_COVERAGE = 1u << 6,
	/* branches carry their instruction: bytes, size and mode (as an
	 * instruction item does), when its code is at hand */
	QPT_WANT_BRANCH_INSN = 1u << 7,
	/* instructions, branches (their source) and events with an ip
	 * carry the source file and line of their ip, from the DWARF line
	 * tables of the image or of its debug file (found by build-id) */
	QPT_WANT_SRCLINE = 1u << 8,
};

/* A run's progress: @done of the run's @total trace bytes are decoded
 * (a file's total: its AUXTRACE data, known once the file is read). */
typedef void (*qpt_progress_fn)(uint64_t done, uint64_t total, void *ctx);

struct qpt_decoder_opts {
	size_t size;	 /* sizeof(struct qpt_decoder_opts) */
	qpt_log_fn log;	 /* optional; warnings about images */
	void *log_ctx;
	unsigned want;	 /* enum qpt_decode_want bits */
	/* Recorded paths are looked up under this directory (perf --symfs)
	 * as if it were the root directory (qpt_sysroot_open); NULL: as
	 * recorded. Borrowed for the decoder's life. */
	const char *sysroot;
	/* The build-id cache (default: $HOME/.debug); borrowed. */
	const char *buildid_dir;
	/* Decode with libipt's block decoder alone, not qpt's fast block
	 * decoder (which gives the same items: the reference it is checked
	 * against). */
	bool libipt_only;
	/* Symbol names demangled (C++, Rust, D: qpt_demangle), as perf
	 * script prints them. */
	bool demangle;
	/* Optional: told during a run, every few thousand blocks, between
	 * items (the library never prints: the caller shows it). */
	qpt_progress_fn progress;
	void *progress_ctx;
	unsigned flags;	 /* enum qpt_decode_flags bits */
	/* Threads of qpt_decoder_run_file_jobs (0: the online cpus, or one
	 * for a trace under 32 KiB, 512 KiB without QPT_WANT_INSN; one with
	 * QPT_WANT_CYCLES; at most QPT_DECODE_MAX_JOBS). */
	unsigned jobs;
};

/* The most threads qpt_decoder_run_file_jobs runs (opts.jobs above or
 * cpus beyond: this many). */
#define QPT_DECODE_MAX_JOBS 256

enum qpt_decode_flags {
	/* Each queue whole, one after the other (in the order they first
	 * appear in the file), instead of merged by time. */
	QPT_DECODE_NO_SORT = 1u << 0,
};

/* Initialise @opts to defaults (instructions and errors), setting size. */
QPT_API void qpt_decoder_opts_init_sized(struct qpt_decoder_opts *opts,
					size_t size);
static inline void qpt_decoder_opts_init(struct qpt_decoder_opts *opts)
{
	qpt_decoder_opts_init_sized(opts, sizeof(*opts));
}

/* @name demangled (C++, Rust, D) by libiberty, as perf script names them
 * (no parameters, no Rust hash), in memory the caller frees; NULL when it
 * is not a mangled name (or on -ENOMEM). */
QPT_API char *qpt_demangle(const char *name);

/*
 * Open @path, a file a recording names, read-only as the decoder opens it:
 * inside @sysroot when given, resolved as if @sysroot were the root
 * directory ("..", absolute symlinks and symlink loops never lead out of
 * it, as in a chroot), else as it is.  Returns the descriptor, -errno, or
 * -QPT_E_UNSUPPORTED when it is not a regular file (a FIFO is not waited
 * on); *@found (optional, malloc'd, NULL on failure) is the file's path on
 * the host, free of symlinks inside @sysroot.
 */
QPT_API int qpt_sysroot_open(const char *sysroot, const char *path,
			     char **found);

/*
 * Create a decoder.  @opts may be NULL for defaults.  Returns 0, -ENOMEM,
 * or -QPT_E_INVAL for an @opts whose size is unknown or whose bytes past
 * the known size are not zero.
 */
QPT_API int qpt_decoder_new(const struct qpt_decoder_opts *opts,
			    struct qpt_decoder **dec);
/* Free the decoder, its images and its symbols; NULL is a no-op. */
QPT_API void qpt_decoder_free(struct qpt_decoder *dec);

/*
 * Add the file @path as a raw memory image placed at @addr (its whole
 * content; an ELF file is also taken as raw bytes here), for every process.
 * Returns 0, -errno (the file cannot be opened or read), -QPT_E_UNSUPPORTED
 * (not a regular file: a FIFO, device or directory), -QPT_E_INVAL; when the
 * file is missing, qpt_decoder_errmsg() says why ("not found", "is in a
 * symlink loop", ...).
 */
QPT_API int qpt_decoder_add_image(struct qpt_decoder *dec, const char *path,
				  uint64_t addr);

enum qpt_item_type {
	QPT_ITEM_INSN,
	QPT_ITEM_BRANCH,
	QPT_ITEM_EVENT,
};

/* Branch kinds, as an LBR records them. */
enum qpt_branch_kind {
	QPT_BR_JCC,
	QPT_BR_JMP,
	QPT_BR_IND_JMP,
	QPT_BR_CALL,
	QPT_BR_IND_CALL,
	QPT_BR_RET,
	QPT_BR_SYSCALL,
	QPT_BR_SYSRET,
	QPT_BR_INT,
	QPT_BR_IRET,
	QPT_BR_FAR,
	QPT_BR_ASYNC,
	QPT_BR_TX_ABORT,
	QPT_BR_TRACE_BEGIN, /* from 0: tracing (re)starts at @to */
	QPT_BR_TRACE_END,   /* to 0: tracing stops after @ip; @via says why */
	QPT_BR_NR,
};

/* Event kinds. */
enum qpt_event_kind {
	QPT_EV_ENABLED,
	QPT_EV_DISABLED,
	QPT_EV_OVERFLOW,
	QPT_EV_ERROR,	  /* trace decode error; @msg, @offset */
	QPT_EV_LOST,	  /* trace data lost (AUXTRACE_ERROR, truncation) */
	QPT_EV_EXEC_MODE, /* @mode */
	QPT_EV_TSX,	  /* @flags: QPT_ITEM_SPECULATIVE, QPT_ITEM_ABORTED */
	QPT_EV_STOP,
	QPT_EV_PAGING,	  /* @value: cr3 */
	QPT_EV_VMCS,	  /* @value: vmcs base */
	QPT_EV_POWER,	  /* exstop, mwait, pwre, pwrx, cbr */
	QPT_EV_PTWRITE,	  /* @value: payload */
	QPT_EV_NR,
};

enum qpt_item_flags {
	QPT_ITEM_HAS_TIME = 1u << 0,
	QPT_ITEM_HAS_TID = 1u << 1,
	QPT_ITEM_HAS_CPU = 1u << 2,
	QPT_ITEM_SPECULATIVE = 1u << 3,
	QPT_ITEM_ABORTED = 1u << 4,
	QPT_ITEM_IP_VALID = 1u << 5, /* events: @ip is meaningful */
	QPT_ITEM_RESUMED = 1u << 6,  /* enabled: resumes where disabled */
};

/*
 * One decoded item.  Every pointer in it is borrowed: valid during the
 * callback, except @sym, which stays valid until qpt_decoder_free().
 * @struct_size: the bytes of it the library filled (sizeof(struct
 * qpt_item) of its version): a field added later is there when
 * QPT_SIZED_HAS(struct qpt_item, item, field) says so.  Code that makes
 * items for qpt_lbr_item() sets it to sizeof(struct qpt_item).
 */
struct qpt_item {
	size_t struct_size;
	enum qpt_item_type type;
	unsigned kind;	  /* qpt_branch_kind or qpt_event_kind */
	unsigned via;	  /* TRACE_END: the qpt_branch_kind that left the
			   * traced region (SYSCALL, ASYNC, ...) or QPT_BR_NR */
	unsigned flags;	  /* qpt_item_flags */
	uint64_t ip;	  /* insn ip, branch source, event ip */
	uint64_t to;	  /* branch target */
	uint64_t value;	  /* event payload (cr3, vmcs, ptwrite, count) */
	uint8_t size;	  /* instruction length */
	uint8_t raw[15];  /* instruction bytes */
	uint8_t mode;	  /* 16, 32 or 64 (bits); 0 unknown */
	int32_t pid, tid, cpu;
	uint64_t time;	  /* perf time (ns) or the TSC when no conversion */
	uint64_t offset;  /* offset in the queue's PT stream (the aux
			   * offset, as AUXTRACE records count it; a loss
			   * the kernel recorded (AUX TRUNCATED) where it
			   * cut the stream); for AUXTRACE_ERROR records
			   * and losses of rings without trace: the
			   * record's input offset */
	unsigned queue;	  /* AUXTRACE queue (idx); 0 for raw streams */
	const char *sym;  /* symbol containing ip, or NULL */
	uint64_t symoff;
	const char *msg;  /* events: a one-line description, or NULL */
	/* Branches with a target, with symbols wanted: the
	 * symbol containing @to, or NULL; valid like @sym. */
	const char *to_sym;
	uint64_t to_symoff;
	/* Branches with QPT_WANT_CYCLES: the core cycles of the CYC packets
	 * since the previous branch item (before the packet that told this
	 * branch: its TNT or TIP; a direct jump or call has none and gets
	 * those of conditional branches not taken since); 0 when the trace
	 * has no CYC packets or several branches share a TNT packet. */
	uint64_t cycles;
	/* With QPT_WANT_SRCLINE: the source file of @ip as the line table
	 * names it (the compile directory joined with the file name, as
	 * addr2line prints it), or NULL; valid like @sym; and its line. */
	const char *srcfile;
	unsigned srcline;
	/* A branch that begins a run of @run_len branches (itself the
	 * first) which the decoder tells again, in this order, each time it
	 * tells a branch of run id @run (0: none; an id is not used for
	 * other branches in the process's life): the same kinds, ends,
	 * symbols and source lines, and for all of them this item's tid,
	 * cpu and time.  The run's other items come as any others (@run 0),
	 * unless the callback returns QPT_ITEM_RUN_TOLD for this one: a
	 * consumer that keeps what it made of a run's items can tell them
	 * again itself. */
	uint64_t run;
	uint32_t run_len;
};

/* The item callback: return 0 to go on, a negative value to stop the run
 * (the run returns it), or, for an item with @run set only,
 * QPT_ITEM_RUN_TOLD: the rest of its run is not sent. */
typedef int (*qpt_item_fn)(const struct qpt_item *item, void *ctx);
#define QPT_ITEM_RUN_TOLD 1

/* Short names: "jcc", "ind_call", ..., "trace_end"; "enabled", "error"... */
QPT_API const char *qpt_branch_kind_name(unsigned kind);
QPT_API const char *qpt_event_kind_name(unsigned kind);

/*
 * The instruction of @item (a QPT_ITEM_INSN: its bytes, ip and mode) as
 * text in Intel syntax, as ptxed prints it ("mov rdi, rsp", "call
 * 0x401136"), NUL-terminated in @buf of @size bytes (128 are enough in
 * practice).  Returns the text's length, -QPT_E_INVAL (not an instruction
 * item, or @buf too small), -QPT_E_FORMAT (its bytes are no instruction).
 */
QPT_API int qpt_item_asm(const struct qpt_item *item, char *buf, size_t size);

/*
 * Decode a bare Intel PT stream [@buf, @buf + @len) (borrowed for the
 * call) with the images added by qpt_decoder_add_image().  Items go to
 * @fn.  Returns 0 at the end of the trace (errors in the trace were sent
 * as items), the callback's negative value, -ENOMEM, -QPT_E_INVAL.
 */
QPT_API int qpt_decoder_run_raw(struct qpt_decoder *dec, const void *buf,
				size_t len, qpt_item_fn fn, void *ctx);

/*
 * Decode every Intel PT AUXTRACE queue of the perf.data file @path ("-" is
 * standard input): address spaces from MMAP/MMAP2/COMM/FORK/EXIT records,
 * images found under the sysroot or by build-id, time from TIME_CONV or
 * the AUXTRACE_INFO words, threads from ITRACE_START/SWITCH records.
 * Returns 0, the callback's negative value, -errno, -QPT_E_FORMAT/
 * TRUNCATED (the file is malformed: qpt_decoder_errpos/errmsg say where),
 * -QPT_E_UNSUPPORTED (no Intel PT data in the file).
 */
QPT_API int qpt_decoder_run_file(struct qpt_decoder *dec, const char *path,
				 qpt_item_fn fn, void *ctx);

/*
 * Where the items of a parallel run go.  The run decodes parts of the queues
 * (a few KiB of trace each, cut at PSBs) on opts.jobs threads; each part's
 * items go to @item with a context of their own, made by @open on the thread
 * decoding the part (@worker: the thread, from 0 to QPT_DECODE_MAX_JOBS, the
 * same on one thread all the run), which keeps their output (the text a
 * printer makes of them, say) and tells how much it holds so far (@tell, in
 * bytes, at any point between items), and is told by @finish that the part
 * is done.  The run then hands the contexts' outputs back in the order a
 * serial run (qpt_decoder_run_file, same options) would give the items, a
 * range at a time (@write, on the calling thread: each context's bytes
 * once and in order, every range starting where its last one ended), and
 * @close-s them.  So a sink whose output of an item depends on that item
 * only (not on the items before it) writes what a serial run writes.  A
 * negative value from @item or @write stops the run (returned).
 */
struct qpt_job_sink {
	size_t size; /* sizeof(struct qpt_job_sink) */
	void *ctx;
	void *(*open)(void *ctx, unsigned worker); /* NULL: -ENOMEM */
	qpt_item_fn item;			    /* (item, job) */
	uint64_t (*tell)(void *job);
	void (*finish)(void *job);
	int (*write)(void *job, uint64_t from, uint64_t to, void *ctx);
	void (*close)(void *job, void *ctx);
	/* The bytes before @upto (a position @tell gave) are written and
	 * will not be asked for again: their room may take the part's next
	 * lines.  Called on the calling thread while the part's thread waits
	 * (a part can say hundreds of MiB of lines: its thread waits for its
	 * turn once it holds a few MiB); NULL: the contexts keep every byte
	 * until @close. */
	void (*drop)(void *job, uint64_t upto);
	/* With @drop: the bytes of a part's output not yet written at which
	 * its thread waits (0: a share of 24 MiB between the parts in
	 * flight, one for each thread and one more: 8 MiB with 2 threads,
	 * 1 MiB at least) */
	uint64_t hold;
	/* Where the items go, as qpt_decoder_run_file gives them, when the
	 * run decodes on the calling thread alone (see
	 * qpt_decoder_run_file_jobs). */
	qpt_item_fn serial;
	void *serial_ctx;
};

/*
 * qpt_decoder_run_file on opts.jobs threads (0: the online cpus, for a
 * trace of 32 KiB or more, 512 KiB without QPT_WANT_INSN), the output
 * through @sink: on the calling thread alone, into @serial, for one
 * thread, or a file of more than 16 queues (and two for each thread:
 * each holds a part's output until its turn).  Returns as
 * qpt_decoder_run_file does; the stats and missing images are the run's
 * whole.  QPT_WANT_PROFILE and QPT_WANT_COVERAGE are not for threads:
 * -QPT_E_INVAL.  opts.progress is told on the calling thread.
 */
QPT_API int qpt_decoder_run_file_jobs(struct qpt_decoder *dec,
				      const char *path,
				      const struct qpt_job_sink *sink);

/* After a failed run_file: the input offset and a one-line message. */
QPT_API uint64_t qpt_decoder_errpos(const struct qpt_decoder *dec);
QPT_API const char *qpt_decoder_errmsg(const struct qpt_decoder *dec);

/* What a run could not decode for want of an image. */
struct qpt_missing_image {
	const char *path;   /* as recorded */
	const char *reason; /* "not found", "build-id mismatch", ... */
	uint64_t errors;    /* decode gaps caused by it */
	uint64_t bytes;	    /* trace bytes skipped in those gaps */
};

/*
 * The images that were missing in the runs so far, one entry each.
 * Pointers are valid until the next run or qpt_decoder_free().
 * Returns the count; *@list is set (NULL when 0).
 */
QPT_API size_t qpt_decoder_missing(const struct qpt_decoder *dec,
				   const struct qpt_missing_image **list);

/* Totals of the runs so far. */
struct qpt_decode_stats {
	uint64_t insns, branches, errors, trace_bytes, skipped_bytes;
	/* of @insns, those the fast block decoder decoded (the others:
	 * libipt's block decoder, where the fast one cannot) */
	uint64_t fast_insns;
};
QPT_API int qpt_decoder_stats_sized(const struct qpt_decoder *dec,
				    struct qpt_decode_stats *stats,
				    size_t size);
/* Returns 0 or -QPT_E_INVAL (no decoder or stats, a size too small). */
static inline int qpt_decoder_stats(const struct qpt_decoder *dec,
				    struct qpt_decode_stats *stats)
{
	return qpt_decoder_stats_sized(dec, stats, sizeof(*stats));
}

/* A thread's totals of the runs so far (QPT_WANT_PROFILE): its
 * instructions and taken branches (trace starts and ends are not). */
struct qpt_profile_thread {
	int32_t pid, tid; /* -1: unknown */
	uint64_t insns, branches;
};

/* A function's: its instructions, and the calls that entered it (near
 * calls whose target is in it).  @name: the symbol, NULL for the code of
 * @image no symbol covers (@image NULL: no image at all); both valid until
 * qpt_decoder_free(). */
struct qpt_profile_func {
	const char *name, *image;
	uint64_t insns, calls;
};

/*
 * The profile of the runs so far: the threads in the order they were
 * first seen, and the functions in no order.  *@list is valid until the
 * next run, the next call or qpt_decoder_free(); returns the count (0 and
 * NULL without QPT_WANT_PROFILE).
 */
QPT_API size_t
qpt_decoder_profile_threads(const struct qpt_decoder *dec,
			    const struct qpt_profile_thread **list);
QPT_API size_t qpt_decoder_profile_funcs(const struct qpt_decoder *dec,
					 const struct qpt_profile_func **list);

/*
 * A basic block of the runs so far (QPT_WANT_COVERAGE): instructions run
 * one after the other from @ip, from the start of the trace, a branch's
 * successor or where the trace resumes, up to and including the first
 * branch of any kind (taken or not), or up to where the trace stops
 * (disabled, an error, an overflow); @size bytes from @ip (at most
 * 65535: a longer straight line is more than one block), entered @count
 * times.  @image: the file mapped at @ip (valid until
 * qpt_decoder_free(); NULL: none), @image_base where its offset 0 is
 * (the mapping's start less its file offset), @image_end the end of the
 * mapping.
 */
struct qpt_cov_block {
	uint64_t ip;
	uint32_t size;
	uint64_t count;
	const char *image;
	uint64_t image_base, image_end;
};

/* An edge: from a branch instruction to the instruction that ran after
 * it (a taken branch's target, a conditional branch's fall-through),
 * @count times.  Trace starts and ends are none. */
struct qpt_cov_edge {
	uint64_t from, to, count;
};

/*
 * The coverage of the runs so far, sorted by address (blocks by ip, size
 * and image; edges by from and to), each entry once.  *@list is valid
 * until the next run, the next call or qpt_decoder_free(); returns the
 * count (0 and NULL without QPT_WANT_COVERAGE, or out of memory).
 */
QPT_API size_t qpt_decoder_coverage_blocks(const struct qpt_decoder *dec,
					   const struct qpt_cov_block **list);
QPT_API size_t qpt_decoder_coverage_edges(const struct qpt_decoder *dec,
					  const struct qpt_cov_edge **list);

#ifdef __cplusplus
}
#endif

#endif /* QPT_DECODE_H */
