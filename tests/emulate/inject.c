// SPDX-License-Identifier: MIT
/* A host that swallows single-step traps, simulated over the real calls. */
#include "inject.h"

#include <errno.h>
#include <sys/wait.h>

#include "gt_x86.h"

static struct inject_thread *thread_of(struct inject *in, pid_t tid)
{
	int i;

	for (i = 0; i < in->nt; i++)
		if (in->t[i].tid == tid)
			return &in->t[i];
	if (in->nt == INJECT_THREADS)
		return NULL;
	in->t[in->nt].tid = tid;
	in->t[in->nt].swallow = 0;
	in->t[in->nt].traced = false;
	return &in->t[in->nt++];
}

static int inj_step(void *ctx, pid_t tid, int sig)
{
	struct inject *in = ctx;
	struct user_regs_struct regs;
	struct gt_insn insn;
	struct inject_thread *t = thread_of(in, tid);

	if (t) {
		t->swallow = 0;
		if (!sig && t->traced &&
		    !emu_ptrace_sys.getregs(NULL, tid, &regs)) {
			gt_decode(tid, regs.rip, &insn);
			t->swallow = (in->kinds >> insn.kind) & 1;
		}
	}
	return emu_ptrace_sys.step(NULL, tid, sig);
}

static pid_t inj_wait(void *ctx, int *status, int flags)
{
	struct inject *in = ctx;
	struct user_regs_struct regs;
	struct inject_thread *t;
	pid_t tid;
	int was, r;

	for (;;) {
		tid = emu_ptrace_sys.wait(NULL, status, flags);
		if (tid <= 0)
			return tid;
		t = thread_of(in, tid);
		if (t)
			t->traced = WIFSTOPPED(*status) && !(*status >> 16) &&
				    WSTOPSIG(*status) == SIGTRAP;
		if (!t || !t->swallow)
			return tid;
		was = t->swallow;
		t->swallow = 0;
		if (!WIFSTOPPED(*status) || *status >> 16 ||
		    WSTOPSIG(*status) != SIGTRAP ||
		    emu_ptrace_sys.getregs(NULL, tid, &regs))
			return tid;
		r = gt_swallow(tid, &regs, in->twice,
			       was == 2 ? t->first : 0);
		if (r < 0)
			return tid;
		if (r == 1) {
			t->swallow = 2;
			t->first = regs.rip;
		}
		in->swallowed++;
		if (r == 2)
			in->twice_n++;
		if (emu_ptrace_sys.step(NULL, tid, 0))
			return tid; /* gone: let the engine see it */
	}
}

static int inj_getregs(void *ctx, pid_t tid, struct user_regs_struct *regs)
{
	return emu_ptrace_sys.getregs(NULL, tid, regs);
}

static int inj_getsiginfo(void *ctx, pid_t tid, siginfo_t *si)
{
	return emu_ptrace_sys.getsiginfo(NULL, tid, si);
}

static int inj_peek(void *ctx, pid_t tid, uint64_t addr, uint64_t *val)
{
	return emu_ptrace_sys.peek(NULL, tid, addr, val);
}

static int inj_eventmsg(void *ctx, pid_t tid, unsigned long *msg)
{
	return emu_ptrace_sys.eventmsg(NULL, tid, msg);
}

/* Running to a breakpoint does not rely on the trap flag: nothing is
 * swallowed. */
static int inj_cont(void *ctx, pid_t tid, int sig)
{
	struct inject_thread *t = thread_of(ctx, tid);

	if (t)
		t->swallow = 0;
	return emu_ptrace_sys.cont(NULL, tid, sig);
}

static int inj_setregs(void *ctx, pid_t tid,
		       const struct user_regs_struct *regs)
{
	return emu_ptrace_sys.setregs(NULL, tid, regs);
}

static int inj_poke(void *ctx, pid_t tid, uint64_t addr, uint64_t val)
{
	return emu_ptrace_sys.poke(NULL, tid, addr, val);
}

const struct emu_ptrace_ops inject_ops = {
    .wait = inj_wait,
    .step = inj_step,
    .getregs = inj_getregs,
    .getsiginfo = inj_getsiginfo,
    .peek = inj_peek,
    .eventmsg = inj_eventmsg,
    .cont = inj_cont,
    .setregs = inj_setregs,
    .poke = inj_poke,
};
