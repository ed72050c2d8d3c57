/* SPDX-License-Identifier: MIT */
/*
 * The crash walk's stack of one thread (qpt/crash_walk.h), rebuilt from
 * the control transfers of its trace: calls push their site, returns pop;
 * and where control leaves frames without returning, the stack follows:
 *  - a return or jump into a function that has a frame on the stack (an
 *    exception's landing pad, longjmp, a return skipping frames) cuts the
 *    stack back to that frame;
 *  - a return to a place no frame leads to is a switch to another stack
 *    (swapcontext, setcontext): the stack left is parked, and a later
 *    return to where a parked stack's top call returns takes it back;
 *  - a jump to the start of another function is a tail call: it replaces
 *    the function it left, which is noted on the frame;
 *  - a signal delivered (an asynchronous trace end, or a system call
 *    resuming elsewhere) pushes a signal frame, which the handler's
 *    return pops; a sigreturn to another place is a jump from the
 *    interrupted function.
 * Transfers whose target's function matters are settled at the next
 * instruction of the thread (its symbol names the function).
 * Not installed.
 */
#ifndef QPT_DECODE_CRASH_STACK_H
#define QPT_DECODE_CRASH_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/crash_walk.h"

/* Stacks parked per thread (coroutines); the oldest goes first. */
#define CS_PARKED 8

/* How a function was entered, when by a tail call. */
struct cs_tail {
	bool on;
	uint64_t from; /* the jump */
	const char *sym;
	uint64_t symoff;
};

struct cs_frame {
	uint64_t site, symoff; /* the call (or the interrupted instruction) */
	const char *sym;
	uint64_t ret;	    /* where its return resumes */
	const char *callee; /* the call's target function, or NULL */
	bool signal;
	struct cs_tail tail; /* how the function holding @site was entered */
};

struct cs_stack {
	struct cs_frame *f; /* outermost first */
	size_t depth, cap;
	struct cs_tail tail; /* how the innermost function was entered */
	/* The stack begins at a switch to it (a return to a place no call
	 * leads to): from @sw_from in @sw_sym. */
	bool switched;
	uint64_t sw_from, sw_symoff;
	const char *sw_sym;
	/* The last signal frame a handler's return popped. */
	struct cs_frame sig_popped;
	bool have_sig_popped;
	/* Returns below the stack's first frame (the window began inside
	 * it, or an unwind went past its first frame). */
	uint64_t below;
	/* Where the outermost known frame is: the first instruction, or
	 * the one after the latest return below (base_next: the next). */
	uint64_t base_ip, base_symoff;
	const char *base_sym;
	bool base_next;
};

/* A transfer settled at the next instruction. */
enum cs_pend {
	CS_PEND_NONE,
	CS_PEND_RET,	   /* a return to another place than its frame's */
	CS_PEND_JUMP,	   /* a taken jump */
	CS_PEND_SIGRETURN, /* a sigreturn to another place */
};

/* The events a thread's stack keeps: the last exit of each kind. */
struct cs_thread {
	struct cs_stack cur;
	struct cs_stack parked[CS_PARKED];
	size_t nr_parked;
	enum cs_pend pend;
	uint64_t pend_from, pend_to, pend_symoff;
	const char *pend_sym;
	uint64_t insns; /* the thread's instruction count, for the exits */
	struct qpt_crash_exit exits[QPT_CRASH_EXIT_NR];
	uint64_t nr_exits;
};

/* A call at @ip (@size bytes) in @sym to @callee.  Returns 0 or -ENOMEM. */
int cs_call(struct cs_thread *t, uint64_t ip, uint8_t size, const char *sym,
	    uint64_t symoff, const char *callee);
/* A return at @ip (in @sym) to @to.  Returns 0 or -ENOMEM. */
int cs_ret(struct cs_thread *t, uint64_t ip, const char *sym, uint64_t symoff,
	   uint64_t to);
/* A taken jump (conditional or not, direct or not) at @ip to @to. */
void cs_jump(struct cs_thread *t, uint64_t ip, const char *sym, uint64_t symoff,
	     uint64_t to);
/*
 * The trace resumes at @to after it ended at @end_ip (@via: why;
 * @sigreturn: the system call that ended it was rt_sigreturn, @exec: an
 * execve).  Returns 0 or -ENOMEM.
 */
int cs_resume(struct cs_thread *t, uint64_t to, unsigned via, uint64_t end_ip,
	      const char *end_sym, uint64_t end_symoff, bool sigreturn,
	      bool exec);
/* The thread is at @ip in @sym (a trace end there): a pending transfer
 * is settled. */
void cs_settle(struct cs_thread *t, uint64_t ip, const char *sym,
	       uint64_t symoff);
/* An instruction at @ip in @sym: cs_settle, and the base asked for. */
void cs_insn(struct cs_thread *t, uint64_t ip, const char *sym,
	     uint64_t symoff);

/* Whether the function @name is the unwinder's or a throw's. */
bool cs_is_throw(const char *name, bool *rethrow);

void cs_release(struct cs_thread *t);

#endif
