// SPDX-License-Identifier: MIT
/*
 * The stack copy unwound with libdwfl (crash_unwind.h): a process state
 * whose one thread's registers are the crash's and whose memory is the
 * stack bytes kept, over the modules crash_syms reported; libdw's CFI
 * unwinder does the rest.
 */
#include <elfutils/libdwfl.h>
#include <string.h>

#include "cli/crash_unwind.h"

struct state {
	const struct qpt_crash *c;
	bool gave_thread;
	bool past_copy; /* a read fell outside the bytes kept */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct state *st = arg;

	(void)dwfl;
	if (st->gave_thread)
		return 0;
	st->gave_thread = true;
	*thread_arg = st;
	return st->c->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct state *st = arg;
	const struct qpt_crash *c = st->c;

	(void)dwfl;
	if (addr < c->stack_addr || addr - c->stack_addr > c->stack_len ||
	    c->stack_len - (addr - c->stack_addr) < sizeof(*result)) {
		st->past_copy = true;
		return false;
	}
	memcpy(result, c->stack + (addr - c->stack_addr), sizeof(*result));
	return true;
}

/* The x86-64 DWARF registers 0..16 from user_regs_struct's order: rax
 * rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return address (rip). */
static const uint8_t dwarf_to_user[17] = {10, 12, 11, 5, 13, 14, 4, 19, 9,
					  8,  7,  6,  3, 2,  1,	 0, 16};

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct state *st = arg;
	Dwarf_Word regs[17];
	size_t i;

	for (i = 0; i < 17; i++)
		regs[i] = st->c->regs[dwarf_to_user[i]];
	if (!dwfl_thread_state_registers(thread, 0, 17, regs))
		return false;
	dwfl_thread_state_register_pc(thread, st->c->ip);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
    .next_thread = next_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

struct walk {
	struct crash_unwound *u;
	struct crash_syms *syms;
};

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (w->u->nr == CRASH_UNWIND_MAX) {
		w->u->end = CRASH_UNWIND_MAXED;
		return DWARF_CB_ABORT;
	}
	w->u->activation[w->u->nr] = activation;
	w->u->pc[w->u->nr++] = pc;
	return DWARF_CB_OK;
}

/* Whether @pc (a return address: its call is before it; or the start
 * of a signal trampoline) is in a file. */
static bool in_code(struct crash_syms *s, uint64_t pc)
{
	uint64_t off;

	return crash_syms_name(s, pc - 1, &off) || crash_syms_name(s, pc, &off);
}

void crash_unwind(struct crash_syms *s, const struct qpt_crash *c,
		  struct crash_unwound *u)
{
	struct state st = {c, false, false};
	struct walk w = {u, s};
	Dwfl *dwfl = crash_syms_dwfl(s);

	memset(u, 0, sizeof(*u));
	/* the facts of qpt 0.1's files have no stack: no second opinion */
	if (!c->stack_addr || c->nr_regs != QPT_CRASH_MAX_REGS)
		return;
	if (!c->stack || !dwfl) {
		u->done = true;
		u->end = CRASH_UNWIND_NO_STACK;
		return;
	}
	u->done = true;
	if (!dwfl_attach_state(dwfl, NULL, c->pid, &callbacks, &st)) {
		u->end = CRASH_UNWIND_NO_CFI;
		return;
	}
	dwfl_getthread_frames(dwfl, c->tid, on_frame, &w);
	if (u->end == CRASH_UNWIND_MAXED)
		return;
	if (u->nr > 1 && !in_code(s, u->pc[u->nr - 1]))
		u->end = CRASH_UNWIND_NO_CODE;
	else if (st.past_copy)
		u->end = CRASH_UNWIND_COPY_END;
	else
		u->end = CRASH_UNWIND_DONE;
}

const char *crash_unwind_end_text(enum crash_unwind_end end)
{
	switch (end) {
	case CRASH_UNWIND_DONE:
		return "the outermost frame";
	case CRASH_UNWIND_NO_STACK:
		return "no stack bytes at rsp were kept (a stack overflow?)";
	case CRASH_UNWIND_COPY_END:
		return "it reached the end of the stack bytes kept";
	case CRASH_UNWIND_NO_CODE:
		return "a return address in no code mapped: the stack was "
		       "overwritten";
	case CRASH_UNWIND_NO_CFI:
		return "no CFI for a frame's code";
	case CRASH_UNWIND_MAXED:
		return "the most frames shown";
	}
	return "";
}
