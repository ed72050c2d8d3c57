/* SPDX-License-Identifier: MIT */
/*
 * qpt crash's walk over the decoded flow of a recording: per thread, the
 * last K instructions, the last N taken branches (the LBR code) and the
 * call stack rebuilt from the calls and returns in the trace window.
 */
#ifndef QPT_CLI_CRASH_WALK_H
#define QPT_CLI_CRASH_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/decode.h"
#include "qpt/lbr.h"

struct cw_insn {
	uint64_t ip, symoff;
	const char *sym; /* the decoder's, valid until it is freed */
	uint8_t size, raw[15];
};

/* A frame: the call site (or, for a signal frame, the interrupted
 * instruction) in the caller. */
struct cw_frame {
	uint64_t site, symoff;
	const char *sym;
	bool signal; /* a signal handler was entered there */
};

struct cw_thread {
	int32_t pid, tid;
	uint64_t insns;		/* instructions in the window */
	struct cw_insn *ring;	/* the last K, ring[(n - 1) % K] newest */
	struct cw_frame *stack; /* outermost first */
	size_t depth, cap;
	uint64_t below;		 /* returns below the window's first frame */
	struct cw_insn first;	 /* the window's first instruction */
	struct cw_insn base;	 /* where the outermost known frame is */
	bool began;		 /* the window begins with the thread's trace */
	bool ended_async;	 /* the trace ends at an async stop */
	uint64_t end_ip, end_symoff; /* where the trace ends */
	const char *end_sym;
	uint64_t async_ip;	 /* pending: a trace end by a signal */
	bool async_pending;
	bool base_next;		 /* the next instruction is the new base */
	struct qpt_lbr_entry *branches; /* newest first */
	size_t nr_branches;
};

struct cw {
	struct qpt_decoder *dec;
	struct qpt_lbr *lbr;
	unsigned k; /* instructions kept per thread */
	struct cw_thread *threads;
	size_t nr, cap;
	int err;
};

/* Walk the file @path: @last branches and @insns instructions per
 * thread.  Returns 0, -ENOMEM or the decoder's error (dec's errpos and
 * errmsg say where). */
int cw_run(struct cw *w, const char *path, unsigned last, unsigned insns);
struct cw_thread *cw_find(struct cw *w, int32_t tid);
/* The i-th newest instruction kept (0: the newest), or NULL. */
const struct cw_insn *cw_insn_at(const struct cw *w,
				 const struct cw_thread *t, size_t i);
/* The symbol of @ip (*@symoff) from the instructions kept, or NULL. */
const char *cw_sym(const struct cw *w, const struct cw_thread *t,
		   uint64_t ip, uint64_t *symoff);
void cw_free(struct cw *w);

#endif
