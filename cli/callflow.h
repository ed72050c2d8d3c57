/* SPDX-License-Identifier: MIT */
/*
 * The call flow the pictures draw (qpt flame, qpt decode --format=
 * chrome-trace), from a decoder's items: each thread's stack is the crash
 * walk's (qpt/crash_walk.h: calls push their site, returns pop, signal
 * frames, ...), followed as it changes.  A view gets, per thread,
 *  - push(level): the stack grew to @level + 1 frames, the new one made
 *    by @it (a call, or a signal delivered);
 *  - pop(level): the frame at @level is gone (levels above first);
 *  - insn: an instruction ran at the stack's current depth.
 * Level 0 is the outermost frame.  Threads are numbered in the order
 * their first item comes.
 */
#ifndef QPT_CLI_CALLFLOW_H
#define QPT_CLI_CALLFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/crash_walk.h"
#include "qpt/decode.h"

struct callflow_ops {
	int (*push)(void *ctx, size_t thread, size_t level,
		    const struct qpt_crash_frame *f, const struct qpt_item *it);
	int (*pop)(void *ctx, size_t thread, size_t level,
		   const struct qpt_item *it);
	int (*insn)(void *ctx, size_t thread, size_t depth,
		    const struct qpt_item *it);
};

struct cf_frame {
	uint64_t site;
	const char *sym;
	bool signal;
};

struct cf_thread {
	int32_t tid;
	int walk;	    /* its index in the walk, -1 until known */
	struct cf_frame *f; /* the stack as the views know it */
	size_t depth, cap;
	bool recheck; /* a branch came: settled at the next instruction */
};

struct callflow {
	struct qpt_crash_walk *walk;
	const struct callflow_ops *ops;
	void *ctx;
	struct cf_thread *t;
	size_t nr, cap, last; /* last: the thread of the previous item */
};

/* Returns 0 or a negative error (-ENOMEM). */
int callflow_init(struct callflow *cf, const struct callflow_ops *ops,
		  void *ctx);
void callflow_fini(struct callflow *cf);
/* A qpt_item_fn (@cf the struct callflow): the decoder needs
 * QPT_WANT_INSN, QPT_WANT_BRANCH and QPT_WANT_SYMBOLS. */
int callflow_item(const struct qpt_item *it, void *cf);
/* The end of the items: every frame still on a stack is popped, innermost
 * first (@it NULL). */
int callflow_finish(struct callflow *cf);
/* The thread numbered @thread's tid. */
static inline int32_t callflow_tid(const struct callflow *cf, size_t thread)
{
	return cf->t[thread].tid;
}

#endif
