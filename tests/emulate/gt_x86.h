/* SPDX-License-Identifier: MIT */
/*
 * The ground truth's view of an instruction, from Zydis (independent of
 * qpt's classifier): its kind, where it goes from the registers it starts
 * with, and whether it was the last to run before a stop.  Shared by
 * gt_step and the tests' simulation of a host that swallows single-step
 * traps.
 */
#ifndef QPT_TESTS_GT_X86_H
#define QPT_TESTS_GT_X86_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <Zydis/Zydis.h>

enum gt_kind {
	GT_OTHER,
	GT_CPUID,
	GT_JCC,
	GT_JMP,
	GT_JMP_IND,
	GT_CALL,
	GT_CALL_IND,
	GT_RET,
	GT_SYSCALL, /* syscall, int $0x80: back to the next instruction */
	GT_FAR,	    /* anything else that leaves user mode or the segment */
	GT_BAD,	    /* did not decode */
	GT_NKINDS
};

struct gt_insn {
	uint64_t ip;
	enum gt_kind kind;
	bool rep; /* a REP string instruction: may stop on itself */
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
};

/* Decode the instruction of @tid at @ip (never fails: GT_BAD). */
void gt_decode(pid_t tid, uint64_t ip, struct gt_insn *in);
/* Where @in goes when it starts with @regs: 1 with *@next, or 0 (not
 * known: far transfers, signal returns, memory that cannot be read). */
int gt_next(pid_t tid, const struct gt_insn *in,
	    const struct user_regs_struct *regs, uint64_t *next);
/* The one place @in goes whatever the registers: 1 with *@next, or 0. */
int gt_only_next(const struct gt_insn *in, uint64_t *next);
/* Whether @in was the last instruction to run before the stop @regs:
 * it leads to regs->rip (for an indirect one: its operand, the return
 * address it popped, the one it pushed, as the stop shows them). */
bool gt_ran_last(pid_t tid, const struct gt_insn *in,
		 const struct user_regs_struct *regs);
/*
 * Simulating a host that swallows single-step traps.  The thread stopped
 * at @regs after an instruction whose trap is to be swallowed (@first 0),
 * or after the one at @first (a Jcc or a direct call) whose trap is the
 * second in a row to swallow.  Returns -1 to keep this stop (the next
 * instruction is a system call, whose own stops would differ, or does not
 * decode; or, second in a row, the stop would not show that more than
 * @first ran), 0 to swallow it (step on), 1 to swallow it and, with
 * @twice, the next one too (the next instruction is a Jcc or a direct
 * call), 2 to swallow this second one where what ran cannot be told
 * (after a Jcc: a gap in the trace).
 */
int gt_swallow(pid_t tid, const struct user_regs_struct *regs, bool twice,
	       uint64_t first);
/* A set of kinds from "jcc,ret,..." (names as gt_kind_name); -1 if bad. */
int gt_kinds(const char *list);
const char *gt_kind_name(enum gt_kind k);

#endif
