/* SPDX-License-Identifier: MIT
 *
 * What one x86-64 user-mode instruction does to the flow of control, from
 * the x86 layer's decoding (auxfmt/x86): which Intel PT packet it produces,
 * where it can go next, and, given the registers it starts with, where it
 * goes.
 */
#ifndef QPT_CAPTURE_EMU_INSN_H
#define QPT_CAPTURE_EMU_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "auxfmt/x86/x86.h"

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

struct emu_insn {
	uint8_t cls;	     /* enum emu_insn_class */
	struct qx86_insn x; /* the x86 layer's view; x.len 0: the bytes did
			     * not decode */
};

/* What @x (NULL: bytes that did not decode) does to the trace. */
void emu_insn_classify(const struct qx86_insn *x, struct emu_insn *insn);

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
