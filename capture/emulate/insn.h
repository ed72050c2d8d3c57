/* SPDX-License-Identifier: MIT
 *
 * What one x86-64 user-mode instruction does to the flow of control, from
 * its bytes (lengths from the x86 layer's decoder): which Intel PT packet
 * it produces, where it can go next, and, given the registers it starts
 * with, where it goes.
 */
#ifndef QPT_CAPTURE_EMU_INSN_H
#define QPT_CAPTURE_EMU_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum emu_insn_class {
	EMU_INSN_OTHER,	   /* no change of flow the trace records */
	EMU_INSN_JCC,	   /* Jcc, JrCXZ, LOOP*: one TNT bit */
	EMU_INSN_JMP,	   /* direct near jump: nothing */
	EMU_INSN_JMP_IND,  /* indirect near jump: TIP */
	EMU_INSN_CALL,	   /* direct near call: nothing, pushes */
	EMU_INSN_CALL_IND, /* indirect near call: TIP, pushes */
	EMU_INSN_RET,	   /* near return: TNT (compressed) or TIP */
	EMU_INSN_FAR, /* syscall, sysenter, int n, iret, far call/jmp/ret */
};

/* The operand of an indirect jump or call: a register, or memory at
 * seg:[base + index * scale + disp] (a register number 0..15 is rax..r15,
 * as in ModRM; -1 none; base 16 is the next instruction's ip). */
struct emu_operand {
	bool mem;
	int8_t base, index; /* mem: -1 none; else the register (not mem) */
	uint8_t scale;
	uint8_t seg; /* 0x64 (fs), 0x65 (gs) or 0 */
	bool addr32;
	int32_t disp;
};

#define EMU_REG_RIP 16

struct emu_insn {
	uint8_t cls;	  /* enum emu_insn_class */
	uint8_t len;	  /* length; 0 when the bytes did not decode */
	uint8_t cond;	  /* JCC: enum emu_cond */
	bool rep;	  /* a REP string instruction (may stop on itself) */
	bool addr32;	  /* JCC: ECX, not RCX, for JrCXZ and LOOP* */
	uint16_t ret_imm; /* RET: stack bytes released after the pop */
	uint64_t target;  /* JCC, JMP, CALL: the branch target */
	struct emu_operand opnd; /* JMP_IND, CALL_IND */
	uint8_t raw[2];		 /* FAR: the opcode bytes (0f 05, cd 80) */
};

enum emu_cond {
	/* 0..15: the condition of Jcc (opcode & 15) */
	EMU_COND_LOOPNE = 16,
	EMU_COND_LOOPE,
	EMU_COND_LOOP,
	EMU_COND_JRCXZ,
};

/*
 * Classify the instruction at the start of [@buf, @buf + @avail), which
 * executes at @ip.  Returns 0, or -1 when the bytes end before the
 * instruction does (read more).
 */
int emu_insn_classify(const uint8_t *buf, size_t avail, uint64_t ip,
		      struct emu_insn *insn);

/* Reads 8 bytes of the thread's memory at @addr: 0 or -errno. */
typedef int (*emu_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

/*
 * Where @insn at @ip goes when it starts with the registers @regs (a
 * jump's condition from the flags, an indirect target, the return address
 * on the stack, rt_sigreturn's from the signal frame, through @read).
 * Returns 1 with *@next set, 0 when that is not known in advance (far
 * transfers, bytes that did not decode), or the error @read returned.  A
 * REP string instruction, and a system call that restarts, may also stop
 * at @ip itself.
 */
int emu_insn_next(const struct emu_insn *insn, uint64_t ip,
		  const struct user_regs_struct *regs, emu_read_fn read,
		  void *ctx, uint64_t *next);

/* Whether @insn at @ip can go to @to, by its bytes alone (indirect
 * branches and returns can go anywhere). */
bool emu_insn_may_go(const struct emu_insn *insn, uint64_t ip, uint64_t to);

/* The one place @insn at @ip goes by its bytes alone (straight-line code,
 * direct jumps and calls): 1 with *@next set, or 0. */
int emu_insn_only_next(const struct emu_insn *insn, uint64_t ip,
		       uint64_t *next);

#endif
