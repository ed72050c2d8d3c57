/* SPDX-License-Identifier: MIT */
/*
 * Branch classification of one x86-64 user-mode instruction from its bytes:
 * just enough decoding to tell which Intel PT packet (if any) the
 * instruction produces, and, for conditional branches and calls, where its
 * fall-through lies (needed for taken/not-taken and return addresses).
 */
#ifndef QPT_CAPTURE_EMU_INSN_H
#define QPT_CAPTURE_EMU_INSN_H

#include <stddef.h>
#include <stdint.h>

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
	uint8_t cls; /* enum emu_insn_class */
	uint8_t len; /* length; exact for JCC, CALL and CALL_IND */
};

/*
 * Classify the instruction at the start of [@buf, @buf + @avail).  Returns
 * 0, or -1 when the bytes end before the instruction does (read more).
 */
int emu_insn_classify(const uint8_t *buf, size_t avail, struct emu_insn *insn);

#endif
