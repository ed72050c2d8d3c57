/* SPDX-License-Identifier: MIT */
/*
 * The breakpoint engine's view of one address space: blocks and the
 * breakpoints planted at their ends.
 *
 * A block is the path a thread runs natively from an entry: straight-line
 * instructions, direct jumps and direct calls (which always go the same
 * way), up to its end, the first instruction whose outcome the trace must
 * see: a conditional or indirect branch or a return (EMU_END_BRANCH: a
 * breakpoint there, the branch emulated at the stop), or a system call
 * (EMU_END_SYSCALL: the thread stops at its entry).  What cannot run
 * natively is single-stepped (EMU_END_STEP): code in mappings that are
 * writable or shared (it may change without a system call), bytes that do
 * not decode, LOOP and far transfers, instructions that overlap others.
 *
 * A conditional jump at a block's end needs no breakpoint where the blocks
 * of its two ways end in stops of their own and no instruction lies on two
 * of the three paths (emu_fast_ways): with the ways' ends planted, where
 * the thread stops tells which way the jump went.
 *
 * Breakpoints are planted only in private, non-writable executable
 * mappings, each remembering the byte it replaced; code read for decoding
 * is patched back (emu_fast_patch).  An address space may be shared by
 * processes (vfork): the state is reference-counted.  Blocks are too: a
 * thread running one holds it while the cache may drop it.
 */
#ifndef QPT_CAPTURE_EMU_FAST_H
#define QPT_CAPTURE_EMU_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/emulate/insn.h"

enum emu_block_end {
	EMU_END_STEP,	 /* not run natively: its entry is single-stepped */
	EMU_END_BRANCH,	 /* a breakpoint at the end, emulated there */
	EMU_END_SYSCALL, /* the end is a system call: stop at its entry */
};

struct emu_block_insn {
	uint64_t ip;
	uint8_t cls; /* enum emu_insn_class: OTHER, JMP, CALL, or the end's */
	uint8_t len;
};

struct emu_loop_plan;

enum emu_block_ways {
	EMU_WAYS_UNKNOWN, /* not looked at yet */
	EMU_WAYS_TOLD,	  /* the end can run natively: the stop tells */
	EMU_WAYS_NOT,	  /* it cannot */
};

struct emu_block {
	uint64_t entry;
	unsigned int refs;
	/* A loop that starts here (emulate/loop.h), and the sizes (bit m - 1:
	 * m blocks) found not to be one; freed with the block. */
	struct emu_loop_plan *plan;
	uint8_t loop_tried;
	uint8_t ways; /* enum emu_block_ways: emu_fast_ways's finding */
	uint32_t n;	      /* instructions (0 for EMU_END_STEP), the end
			       * last */
	uint8_t end;	      /* enum emu_block_end */
	struct emu_insn last; /* the end's instruction */
	struct emu_block *next;
	struct emu_block_insn insn[];
};

/* The address space's code and memory, as the tracer reaches them. */
struct emu_code {
	/* The instruction at @ip (x.len 0: unreadable or no instruction):
	 * 0 or an error. */
	int (*insn)(void *ctx, uint64_t ip, struct emu_insn *out);
	/* Whether [@ip, @ip + @len) lies in one private, non-writable
	 * executable mapping (code that changes only by system calls). */
	bool (*fixed)(void *ctx, uint64_t ip, size_t len);
	/* Whether a path must stop before @ip (a --snapshot-on address). */
	bool (*stop_at)(void *ctx, uint64_t ip);
	/* 8 bytes of the tracee's memory at @addr, any protection (ptrace):
	 * 0 or -errno. */
	int (*peek)(void *ctx, uint64_t addr, uint64_t *val);
	int (*poke)(void *ctx, uint64_t addr, uint64_t val);
	void *ctx;
};

struct emu_fast;

/* A new, empty state (NULL when out of memory), one reference. */
struct emu_fast *emu_fast_new(void);
struct emu_fast *emu_fast_get(struct emu_fast *f);
/* Drop a reference; the last frees (NULL: nothing). */
void emu_fast_put(struct emu_fast *f);

/*
 * The block that starts at @entry, built on first use: 0 with *@out (a
 * reference for the caller: emu_block_put), or an error of @c or -ENOMEM.
 */
int emu_fast_block(struct emu_fast *f, const struct emu_code *c, uint64_t entry,
		   struct emu_block **out);
void emu_block_put(struct emu_block *b);

/*
 * Whether @b's end, a conditional jump, can run natively, with no
 * breakpoint: its two ways' blocks (*@way: [0] not taken, [1] taken;
 * references for the caller) end in branches or system calls of their
 * own, no --snapshot-on address starts one, and no instruction lies on two
 * of the three paths.  With the ways' ends planted, where the thread stops
 * then tells which way it went.  1 with the ways, 0 when not (kept with
 * @b; not kept where building the ways found code that overlaps itself,
 * which drops every block), or an error of @c or -ENOMEM.
 */
int emu_fast_ways(struct emu_fast *f, const struct emu_code *c,
		  struct emu_block *b, struct emu_block *way[2]);

/* Plant a breakpoint at @addr (an instruction start of a block).  0, or
 * -EAGAIN where none can be (overlapping code), or -errno. */
int emu_fast_plant(struct emu_fast *f, const struct emu_code *c, uint64_t addr);
/* Put the byte back at @addr (a step over it); 0 or -errno. */
int emu_fast_lift(struct emu_fast *f, const struct emu_code *c, uint64_t addr);
/* Whether a breakpoint of ours is planted at @addr. */
bool emu_fast_planted(const struct emu_fast *f, uint64_t addr);
/* The page at @page (4096 bytes read from the tracee, in @buf) as the
 * program wrote it: our breakpoints' bytes put back. */
void emu_fast_patch(const struct emu_fast *f, uint64_t page, uint8_t *buf);

/*
 * The executable mappings changed (munmap, mprotect, mmap over code): the
 * breakpoints that are no longer in fixed code are taken out where their
 * memory remains, those whose memory was replaced are forgotten, and
 * every block goes.  0 or -errno.
 */
int emu_fast_remap(struct emu_fast *f, const struct emu_code *c);
/* Forget every block (the stop addresses changed). */
void emu_fast_forget_blocks(struct emu_fast *f);

/*
 * A forked process (its memory a copy of @f's): a state of its own with
 * the breakpoints @child's memory holds (NULL when out of memory).
 */
struct emu_fast *emu_fast_fork(const struct emu_fast *f,
			       const struct emu_code *child);
/* A forked process that is not traced: every breakpoint of @f its
 * memory holds is taken out.  0 or -errno. */
int emu_fast_strip(const struct emu_fast *f, const struct emu_code *child);

#endif
