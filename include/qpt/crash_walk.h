/* SPDX-License-Identifier: MIT */
/*
 * What each thread did last, from a decoded flow: what a crash report
 * shows (qpt crash).  Fed the items of a decoder run, a qpt_crash_walk
 * keeps per thread
 *  - the last instructions (at least opts.insns, and enough recent ones
 *    to name the symbols of the branches kept),
 *  - the last opts.last taken branches at the end of the thread's trace
 *    (through a qpt_lbr tracker, so as an LBR would hold them),
 *  - the call stack rebuilt from the calls and returns of the trace
 *    window: a call pushes its site, a return pops it; where the trace
 *    stopped asynchronously (a fault, a signal) or at a system call and
 *    resumed elsewhere (not by rt_sigreturn), a signal frame at the
 *    interrupted instruction, popped by the handler's return.  A return
 *    with no call in the window below it means the window began
 *    mid-stack: the frames outside it are not in the trace.
 *  - non-local exits: control entering a function that has a frame on
 *    the stack without returning to it (an exception's landing pad,
 *    longjmp, a sigreturn to another place) cuts the stack back to that
 *    frame; a return to a place no frame leads to (swapcontext,
 *    setcontext) switches to another stack, the one left is kept and
 *    taken back when control returns into it;
 *  - tail calls: a jump to the start of another function replaces the
 *    function it left; the frame is marked with the jump;
 *  - the last exit of each kind and the last exception thrown (its
 *    throw site and the instructions that led to it).
 *  Functions are told apart by their symbols (a "NAME.cold" part is
 *  NAME's): without symbols only calls and returns move the stack.
 *
 * Symbols are the decoder's (QPT_WANT_SYMBOLS): the strings are
 * borrowed from it, valid until qpt_decoder_free().  Nothing is kept
 * per instruction beyond the ring of the last ones, so memory is bounded
 * by the threads and opts.insns whatever the trace size.
 */
#ifndef QPT_CRASH_WALK_H
#define QPT_CRASH_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/decode.h"
#include "qpt/lbr.h"
#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instructions kept per thread at least (to name the branches' ends) and
 * the most opts.insns may ask. */
#define QPT_CRASH_WALK_KEEP 32768u
#define QPT_CRASH_WALK_MAX_INSNS (1u << 20)

struct qpt_crash_walk_opts {
	size_t size;	/* sizeof(struct qpt_crash_walk_opts) */
	unsigned last;	/* taken branches kept per thread: 0..QPT_LBR_MAX_DEPTH
			 * (default 16; 0: none) */
	unsigned insns; /* instructions kept per thread, at least: up to
			 * QPT_CRASH_WALK_MAX_INSNS (default 16; at least
			 * QPT_CRASH_WALK_KEEP are kept) */
};

QPT_API void qpt_crash_walk_opts_init_sized(struct qpt_crash_walk_opts *opts,
					    size_t size);
static inline void qpt_crash_walk_opts_init(struct qpt_crash_walk_opts *opts)
{
	qpt_crash_walk_opts_init_sized(opts, sizeof(*opts));
}

/* An instruction of the flow. */
struct qpt_crash_insn {
	uint64_t ip;
	const char *sym; /* the decoder's, or NULL */
	uint64_t symoff;
	uint8_t size; /* bytes in @raw */
	uint8_t raw[15];
};

/* A frame of the rebuilt stack: the call site in the caller, or for a
 * signal frame the instruction the signal interrupted. */
struct qpt_crash_frame {
	uint64_t site;
	const char *sym; /* the decoder's, or NULL */
	uint64_t symoff;
	bool signal; /* a signal handler was entered there */
	/* The function holding @site was entered by a tail call: the jump
	 * at @tail_from (in @tail_sym), whose function's frame it took. */
	bool tail_call;
	uint64_t tail_from, tail_symoff;
	const char *tail_sym;
};

/* Non-local exits: control leaving frames without returning. */
enum qpt_crash_exit_kind {
	QPT_CRASH_EXIT_ANY,	  /* a query's: the last of any kind */
	QPT_CRASH_EXIT_EXCEPTION, /* the unwinder entered a landing pad */
	QPT_CRASH_EXIT_LONGJMP,	  /* longjmp, siglongjmp */
	QPT_CRASH_EXIT_CONTEXT,	  /* setcontext, swapcontext: another stack */
	QPT_CRASH_EXIT_SIGRETURN, /* a signal handler's sigreturn elsewhere */
	QPT_CRASH_EXIT_OTHER,	  /* a return or jump into an outer frame */
	QPT_CRASH_EXIT_NR,
};

struct qpt_crash_exit {
	unsigned kind; /* enum qpt_crash_exit_kind */
	/* Where it began: the program's call of longjmp, __cxa_throw,
	 * swapcontext... that led to it, else the jump or return itself. */
	uint64_t from, from_symoff;
	const char *from_sym;
	/* Where control went (the landing pad, setjmp's return...). */
	uint64_t to, to_symoff;
	const char *to_sym;
	uint64_t frames; /* frames cut from the stack (0 for a switch) */
	uint64_t at;	 /* instructions of the window before it */
	/* The function re-entered had more than one frame: the innermost
	 * was taken (the trace does not say which). */
	bool ambiguous;
	/* No frame of the window's stack was re-entered: the one control
	 * went to is older than the window (or another stack's: a switch). */
	bool outside;
};

/* The instructions kept before a throw. */
#define QPT_CRASH_THROW_INSNS 8

/* An exception thrown: a call of __cxa_throw or __cxa_rethrow. */
struct qpt_crash_throw {
	uint64_t site, symoff; /* the call */
	const char *sym;
	bool rethrow; /* __cxa_rethrow: what was caught goes on */
	uint64_t at;  /* instructions of the window before it */
	/* The last instructions of the throwing function up to the call
	 * (the call last): where __cxa_throw's arguments were loaded. */
	size_t nr_insns;
	struct qpt_crash_insn insns[QPT_CRASH_THROW_INSNS];
};

/* One thread's summary. */
struct qpt_crash_thread {
	int32_t pid, tid;
	uint64_t insns;	    /* instructions in the trace window */
	size_t nr_frames;   /* frames on the rebuilt stack */
	size_t nr_insns;    /* instructions kept (qpt_crash_walk_insn) */
	size_t nr_branches; /* taken branches kept (qpt_crash_walk_branch) */
	uint64_t below;	    /* returns with no call in the window */
	bool began;	    /* the window begins with the thread's trace */
	bool ended_async;   /* the trace ends at an asynchronous stop */
	/* The window began mid-stack and the outermost known function is in
	 * two or more of the frames (the stack's and the end's): a recursion
	 * that goes on beyond the window's start. */
	bool deeper;
	/* The window's first instruction. */
	uint64_t first_ip, first_symoff;
	const char *first_sym;
	/* Where the outermost known frame is: the first instruction, or the
	 * one after the latest return with no call in the window. */
	uint64_t base_ip, base_symoff;
	const char *base_sym;
	/* Where the trace ends: the last instruction or trace end. */
	uint64_t end_ip, end_symoff;
	const char *end_sym;
	/* The innermost function was entered by a tail call at @tail_from. */
	bool tail_call;
	uint64_t tail_from, tail_symoff;
	const char *tail_sym;
	/* The stack begins where control switched to it (swapcontext, a
	 * return to a place no call in the window leads to) from
	 * @switch_from: its callers are not in the trace. */
	bool switched;
	uint64_t switch_from, switch_symoff;
	const char *switch_sym;
	uint64_t nr_exits; /* non-local exits in the window */
};

struct qpt_crash_walk;

/* Returns 0, -ENOMEM, -QPT_E_INVAL (@last or @insns out of range, an
 * @opts of unknown size or with unknown bytes set). */
QPT_API int qpt_crash_walk_new(const struct qpt_crash_walk_opts *opts,
			       struct qpt_crash_walk **w);
/* NULL is a no-op. */
QPT_API void qpt_crash_walk_free(struct qpt_crash_walk *w);

/*
 * A qpt_item_fn: pass it to qpt_decoder_run_* with the walk as context,
 * or call it from another callback.  It needs QPT_WANT_INSN and
 * QPT_WANT_BRANCH items (QPT_WANT_SYMBOLS for symbols, QPT_WANT_EVENT for
 * the branches' in_tx); items without a tid are skipped.  Returns 0,
 * -ENOMEM, -QPT_E_INVAL (no walk or item, an item whose size is below
 * the first version's), -QPT_E_STATE (after qpt_crash_walk_finish).
 */
QPT_API int qpt_crash_walk_item(const struct qpt_item *item, void *w);
/* The end of the items: each thread's last branches are kept.  Returns 0,
 * -ENOMEM, -QPT_E_INVAL (no walk), -QPT_E_STATE (called twice). */
QPT_API int qpt_crash_walk_finish(struct qpt_crash_walk *w);

/*
 * qpt_decoder_run_file(@dec, @path) into the walk, then
 * qpt_crash_walk_finish.  @dec must want QPT_WANT_INSN and
 * QPT_WANT_BRANCH.  Returns 0, -QPT_E_INVAL (@dec does not want them) or
 * the errors of those two (qpt_decoder_errpos/errmsg say where).
 */
QPT_API int qpt_crash_walk_run_file(struct qpt_crash_walk *w,
				    struct qpt_decoder *dec, const char *path);

/* The threads seen, in the order of their first item; thread indexes
 * below go from 0 to this count - 1. */
QPT_API size_t qpt_crash_walk_nr_threads(const struct qpt_crash_walk *w);
/* The index of thread @tid, or -QPT_E_INVAL when no item of it came. */
QPT_API int qpt_crash_walk_find(const struct qpt_crash_walk *w, int32_t tid);

/*
 * Thread @thread's summary into the caller's @t of @size bytes (the
 * inline wrapper passes sizeof; see qpt.h).  Returns 0 or -QPT_E_INVAL
 * (no such thread, a size below the first version's).
 */
QPT_API int qpt_crash_walk_thread_sized(const struct qpt_crash_walk *w,
					size_t thread,
					struct qpt_crash_thread *t,
					size_t size);
static inline int qpt_crash_walk_thread(const struct qpt_crash_walk *w,
					size_t thread,
					struct qpt_crash_thread *t)
{
	return qpt_crash_walk_thread_sized(w, thread, t, sizeof(*t));
}

/* Frame @i of the thread's stack (0: the innermost call site, up to
 * nr_frames - 1: the outermost known), as the _sized functions do.
 * Returns 0 or -QPT_E_INVAL (no such thread or frame, a small size). */
QPT_API int qpt_crash_walk_frame_sized(const struct qpt_crash_walk *w,
				       size_t thread, size_t i,
				       struct qpt_crash_frame *f, size_t size);
static inline int qpt_crash_walk_frame(const struct qpt_crash_walk *w,
				       size_t thread, size_t i,
				       struct qpt_crash_frame *f)
{
	return qpt_crash_walk_frame_sized(w, thread, i, f, sizeof(*f));
}

/* Instruction @i kept (0: the newest, up to nr_insns - 1).  Returns 0 or
 * -QPT_E_INVAL (no such thread or instruction, a small size). */
QPT_API int qpt_crash_walk_insn_sized(const struct qpt_crash_walk *w,
				      size_t thread, size_t i,
				      struct qpt_crash_insn *in, size_t size);
static inline int qpt_crash_walk_insn(const struct qpt_crash_walk *w,
				      size_t thread, size_t i,
				      struct qpt_crash_insn *in)
{
	return qpt_crash_walk_insn_sized(w, thread, i, in, sizeof(*in));
}

/* Taken branch @i at the end of the thread's trace (0: the newest, up to
 * nr_branches - 1; none before qpt_crash_walk_finish).  Returns 0 or
 * -QPT_E_INVAL (no such thread or branch, a small size). */
QPT_API int qpt_crash_walk_branch_sized(const struct qpt_crash_walk *w,
					size_t thread, size_t i,
					struct qpt_lbr_entry *e, size_t size);
static inline int qpt_crash_walk_branch(const struct qpt_crash_walk *w,
					size_t thread, size_t i,
					struct qpt_lbr_entry *e)
{
	return qpt_crash_walk_branch_sized(w, thread, i, e, sizeof(*e));
}

/*
 * The thread's last non-local exit of @kind (QPT_CRASH_EXIT_ANY: of any
 * kind) into @e, as the _sized functions do.  Returns 1, 0 (none in the
 * window), -QPT_E_INVAL (no such thread or kind, a small size).
 */
QPT_API int qpt_crash_walk_exit_sized(const struct qpt_crash_walk *w,
				      size_t thread, unsigned kind,
				      struct qpt_crash_exit *e, size_t size);
static inline int qpt_crash_walk_exit(const struct qpt_crash_walk *w,
				      size_t thread, unsigned kind,
				      struct qpt_crash_exit *e)
{
	return qpt_crash_walk_exit_sized(w, thread, kind, e, sizeof(*e));
}

/* The thread's last throw into @t.  Returns 1, 0 (none in the window),
 * -QPT_E_INVAL (no such thread, a small size). */
QPT_API int qpt_crash_walk_throw_sized(const struct qpt_crash_walk *w,
				       size_t thread, struct qpt_crash_throw *t,
				       size_t size);
static inline int qpt_crash_walk_throw(const struct qpt_crash_walk *w,
				       size_t thread, struct qpt_crash_throw *t)
{
	return qpt_crash_walk_throw_sized(w, thread, t, sizeof(*t));
}

/*
 * The symbol of @ip from the thread's flow: where its trace ends, or an
 * instruction kept (the newest at @ip).  Returns 1 (*@sym, *@symoff set),
 * 0 (not in what was kept, or no symbol), -QPT_E_INVAL (no such thread).
 */
QPT_API int qpt_crash_walk_sym(const struct qpt_crash_walk *w, size_t thread,
			       uint64_t ip, const char **sym, uint64_t *symoff);

#ifdef __cplusplus
}
#endif

#endif /* QPT_CRASH_WALK_H */
