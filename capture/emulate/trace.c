// SPDX-License-Identifier: MIT
/*
 * The ptrace engine of the emulated Intel PT source.
 *
 * Each thread is single-stepped.  At every stop we know the instruction we
 * asked to execute (prev) and where the thread now is (cur); a completed
 * step hands (prev, cur) to the thread's packet generator.  A signal stop
 * means prev did not execute when cur == prev (a fault, or an asynchronous
 * signal taken before it): the generator then emits FUP(cur) + TIP.PGD and
 * re-enables at the handler.  Event stops (clone, exec, exit) execute
 * nothing; a new thread's first stop is before its first instruction.
 *
 * Some hosts swallow the single-step trap after an instruction (seen after
 * CPUID under some hypervisors): the next stop comes an instruction late.
 * So before stepping prev we work out where it must go from the registers
 * of its stop (emu_insn_next); a stop anywhere else means the instruction
 * there (and maybe more) ran too.  What ran is recovered from the bytes and
 * the new stop (recover()); where that cannot be known the trace gets an
 * overflow (OVF) and goes on at cur, never a wrong flow.
 *
 * The breakpoint engine (emulate/run.c, the default) steps only what it
 * cannot run natively: system calls, code that may change, instructions
 * no block runs over.  This file's loop serves both: it waits for stops,
 * follows threads, exec, exit and signals, and steps what is stepped.
 */
#include "capture/emulate/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "capture/emulate/ptrace.h"
#include "capture/emulate/trace_priv.h"
#include "capture/synth.h"
#include "capture/task.h"

/* Instructions recovered in a row after a lost single-step trap before
 * giving up (an overflow in the trace). */
#define EMU_RECOVER_MAX 8

void emu_tr_log(struct emu_tracer *tr, enum qpt_log_level lvl, const char *fmt,
		...)
{
	char msg[256];
	va_list ap;

	if (!tr->opts->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tr->opts->log(lvl, msg, tr->opts->log_ctx);
}

/* The emulated TSC is the host clock in perf's time base (nanoseconds of
 * CLOCK_MONOTONIC), with time_mult 1 and time_shift 0 in AUXTRACE_INFO;
 * the crystal and core clocks derive from it (emulate/pt.h). */
static uint64_t emu_tsc(void *ctx)
{
	return emu_sb_time();
}

static int pt_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct emu_thread *t = ctx;

	if (t->silent)
		return 0;
	return t->tr->sb.ops->aux(t->tr->sb.ctx, t->tid, buf, len);
}

static struct emu_thread *find_thread(struct emu_tracer *tr, pid_t tid)
{
	struct emu_thread *t;

	for (t = tr->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct emu_proc *emu_tr_find_proc(struct emu_tracer *tr, pid_t pid)
{
	struct emu_thread *t;

	for (t = tr->threads; t; t = t->next)
		if (t->pid == pid && t->proc)
			return t->proc;
	return NULL;
}

/* The registers of a stopped thread; a thread that vanished (killed
 * meanwhile) reads as all zeroes. */
static int get_regs(struct emu_thread *t, struct user_regs_struct *regs)
{
	int err = t->tr->ops->getregs(t->tr->ops_ctx, t->tid, regs);

	if (err == -ESRCH) {
		memset(regs, 0, sizeof(*regs));
		return 0;
	}
	return err;
}

static int read_word(void *ctx, uint64_t addr, uint64_t *val)
{
	struct emu_thread *t = ctx;

	return t->tr->ops->peek(t->tr->ops_ctx, t->tid, addr, val);
}

static struct emu_thread *add_thread(struct emu_tracer *tr, pid_t tid,
				     pid_t pid)
{
	struct emu_pt_opts po = {
	    .retcomp = tr->opts->retcomp,
	    .psb_period = tr->opts->psb_period,
	    .chunk = tr->opts->chunk,
	    .clock = tr->opts->tsc || tr->opts->mtc || tr->opts->cyc ?
			 emu_tsc : NULL,
	    .tsc = tr->opts->tsc,
	    .mtc = tr->opts->mtc,
	    .cyc = tr->opts->cyc,
	    .mtc_period = tr->opts->mtc_period,
	    .cyc_thresh = tr->opts->cyc_thresh,
	};
	struct emu_thread *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->tr = tr;
	t->pt = emu_pt_new(&po, pt_out, t);
	t->proc = emu_tr_find_proc(tr, pid);
	if (!t->proc) {
		t->proc = emu_proc_new(pid);
		t->leader = true;
	}
	if (!t->pt || !t->proc) {
		emu_pt_free(t->pt);
		if (t->leader)
			emu_proc_free(t->proc);
		free(t);
		return NULL;
	}
	t->next = tr->threads;
	tr->threads = t;
	tr->res->threads++;
	return t;
}

/* Sink announcements and PSB+ for a thread that starts being traced. */
static int start_thread(struct emu_thread *t)
{
	struct emu_tracer *tr = t->tr;
	int err;

	err = tr->sb.ops->thread_new(tr->sb.ctx, t->pid, t->tid);
	if (!err)
		err = emu_sb_itrace_start(&tr->sb, t->pid, t->tid);
	if (!err)
		err = emu_pt_start(t->pt);
	return err;
}

static void drop_thread(struct emu_tracer *tr, struct emu_thread *t)
{
	struct emu_thread **pp, *o;

	for (pp = &tr->threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (t->leader) {
		/* hand the process over to a remaining thread */
		for (o = tr->threads; o; o = o->next)
			if (o->proc == t->proc) {
				o->leader = true;
				break;
			}
		if (!o)
			emu_proc_free(t->proc);
	}
	emu_tr_interrupted(t);
	emu_run_drop(t);
	emu_loop_drop(t);
	emu_pt_free(t->pt);
	free(t);
}

/* The instruction at @ip from the process's code. */
int emu_tr_insn_at(struct emu_thread *t, uint64_t ip, struct emu_insn *insn)
{
	int err;

	/* code outside the announced mappings (mapped by other means than
	 * this thread's syscalls): look at the maps again */
	if (!emu_proc_known(t->proc, ip)) {
		emu_proc_flush_code(t->proc);
		err = emu_tr_scan_maps(t, false);
		if (err)
			return err;
	}
	/* unknown: length 0 */
	emu_insn_classify(emu_proc_insn(t->proc, t->tid, ip), insn);
	return 0;
}

/* --snapshot-on: the thread is at the address.  Every thread's packets
 * go out (pending TNT bits too) before the sink snapshots them. */
static int trigger(struct emu_thread *t, const struct user_regs_struct *regs)
{
	struct emu_tracer *tr = t->tr;
	struct emu_thread *o;
	int err;

	for (o = tr->threads; o; o = o->next) {
		err = emu_pt_flush(o->pt);
		if (err)
			return err;
	}
	err = tr->sb.ops->trigger(tr->sb.ctx, t->pid, t->tid, regs);
	/* what follows each snapshot starts again with a PSB+, so that the
	 * next snapshot decodes on its own (from its first branch) */
	for (o = tr->threads; o; o = o->next)
		emu_pt_psb_next(o->pt);
	return err;
}

int emu_tr_at(struct emu_thread *t, const struct user_regs_struct *regs)
{
	int err;

	if (t->tr->opts->trigger && t->tr->sb.ops->trigger && !t->silent &&
	    emu_trigger_hit(t->tr->opts->trigger, regs->rip)) {
		err = trigger(t, regs);
		if (err)
			return err;
	}
	err = emu_tr_insn_at(t, regs->rip, &t->prev);
	if (err)
		return err;
	t->prev_ip = regs->rip;
	t->have_prev = true;
	if (regs != &t->regs) {
		t->regs = *regs;
		t->regs_dirty = false;
	}
	return 0;
}

void emu_tr_predict(struct emu_thread *t, const struct user_regs_struct *regs)
{
	/* a return address or jump table that cannot be read: the step
	 * faults, or goes where we cannot check */
	t->expect_known = emu_insn_next(&t->prev, t->prev_ip, regs, read_word,
					t, &t->expect) > 0;
}

/* The thread stopped at @regs->rip, which runs next: where will it go?
 * (The breakpoint engine works that out when it steps.) */
static int classify_at(struct emu_thread *t,
		       const struct user_regs_struct *regs)
{
	int err = emu_tr_at(t, regs);

	if (!err && !t->tr->fast)
		emu_tr_predict(t, regs);
	return err;
}

static bool maps_may_change(long nr)
{
	return nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_munmap ||
	       nr == SYS_mremap || nr == SYS_shmat ||
	       nr == SYS_remap_file_pages;
}

/* @insn at @ip retired and went to @next.  After a system call, with @nr
 * its number (NR_*), the maps are read again if it may have changed
 * them. */
int emu_tr_retire(struct emu_thread *t, uint64_t ip,
		  const struct emu_insn *insn, uint64_t next, long nr)
{
	int err;

	t->tr->res->insns++;
	err = emu_pt_insn(t->pt, ip, insn, next);
	if (err < 0 || insn->cls != EMU_INSN_FAR)
		return err;
	if (nr == NR_UNKNOWN || maps_may_change(nr)) {
		emu_proc_flush_code(t->proc);
		err = emu_tr_scan_maps(t, false);
	}
	return err;
}

/* Whether the last instruction before the stop @regs, @insn at @ip, went
 * to @regs->rip by what the stop shows: an indirect target from its
 * operand, a return address still below the stack pointer, a call's
 * return address on the stack. */
static bool ran_last(struct emu_thread *t, const struct emu_insn *insn,
		     uint64_t ip, const struct user_regs_struct *regs)
{
	struct user_regs_struct before = *regs;
	uint64_t v = 0, popped;

	switch (insn->cls) {
	case EMU_INSN_CALL:
		return regs->rip == insn->x.target &&
		       !read_word(t, regs->rsp, &v) && v == ip + insn->x.len;
	case EMU_INSN_CALL_IND:
		if (read_word(t, regs->rsp, &v) || v != ip + insn->x.len)
			return false;
		before.rsp += 8;
		/* fall through */
	case EMU_INSN_JMP_IND:
		before.rip = ip;
		return emu_insn_next(insn, ip, &before, read_word, t, &v) > 0 &&
		       v == regs->rip;
	case EMU_INSN_RET:
		popped = regs->rsp - 8 - insn->x.imm;
		return !read_word(t, popped, &v) && v == regs->rip;
	default:
		return emu_insn_may_go(insn, ip, regs->rip);
	}
}

/*
 * The stop @regs came after more than prev: the instruction at @ip ran
 * too, and perhaps the ones it leads to, where that is one place.  Retire
 * each; where what ran cannot be told, an overflow and on at the stop.
 */
static int recover(struct emu_thread *t, uint64_t ip,
		   const struct user_regs_struct *regs)
{
	struct emu_insn insn;
	uint64_t next;
	int i, err;

	for (i = 0; i < EMU_RECOVER_MAX; i++) {
		err = emu_tr_insn_at(t, ip, &insn);
		if (err)
			return err;
		if (ran_last(t, &insn, ip, regs))
			return emu_tr_retire(t, ip, &insn, regs->rip,
					     (long)regs->orig_rax);
		if (!emu_insn_only_next(&insn, ip, &next))
			break;
		err = emu_tr_retire(t, ip, &insn, next, NR_UNKNOWN);
		if (err)
			return err;
		ip = next;
	}
	t->tr->res->gaps++;
	emu_tr_log(
	    t->tr, QPT_LOG_INFO,
	    "thread %d: lost a single-step trap at %#llx; not known what "
	    "ran up to %#llx: overflow in the trace",
	    (int)t->tid, (unsigned long long)ip, (unsigned long long)regs->rip);
	return emu_pt_gap(t->pt, ip, regs->rip);
}

/* prev retired; the thread stopped at @regs (@regs->rip runs next). */
static int complete(struct emu_thread *t, const struct user_regs_struct *regs)
{
	uint64_t cur = regs->rip;
	int err;

	t->have_prev = false;
	if (!t->expect_known || cur == t->expect ||
	    (cur == t->prev_ip && ((t->prev.x.flags & QX86_F_REP) ||
				   t->prev.cls == EMU_INSN_FAR)))
		return emu_tr_retire(t, t->prev_ip, &t->prev, cur,
				     (long)regs->orig_rax);
	/* The trap after prev never came: prev went to expect, and the
	 * instruction there ran before this stop. */
	t->tr->res->lost_traps++;
	err = emu_tr_retire(t, t->prev_ip, &t->prev, t->expect, NR_UNKNOWN);
	return err ? err : recover(t, t->expect, regs);
}

static int on_step(struct emu_thread *t, const struct user_regs_struct *regs)
{
	int err = 0;

	if (t->have_prev)
		err = complete(t, regs);
	if (!err)
		err = classify_at(t, regs);
	return err;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/*
 * @sig, not caught, is about to be delivered: when it kills (a signal of
 * the crash set that is not ignored; the kernel forces faults through
 * SIG_IGN) the sink hears of it first, with the faulting bytes.
 */
static int crash_check(struct emu_thread *t, int sig,
		       const struct user_regs_struct *regs)
{
	struct emu_tracer *tr = t->tr;
	uint8_t insn[16];
	siginfo_t si;
	size_t n;

	if (!tr->sb.ops->crash || t->silent || sig < 1 || sig > 64 ||
	    !((tr->opts->crash_signals >> (sig - 1)) & 1) ||
	    tr->ops->getsiginfo(tr->ops_ctx, t->tid, &si))
		return 0;
	if (si.si_code <= 0 && task_signal_in(t->tid, "SigIgn:", sig, false))
		return 0;
	n = emu_proc_code(t->proc, t->tid, regs->rip, insn, sizeof(insn));
	return tr->sb.ops->crash(tr->sb.ctx, t->pid, t->tid, &si, regs, insn,
				 n);
}

static int on_signal(struct emu_thread *t, int sig,
		     const struct user_regs_struct *regs)
{
	struct emu_tracer *tr = t->tr;
	siginfo_t si;
	int err = 0;

	/* A group-stop (after a stop signal was delivered) is reported like
	 * a signal stop but has no siginfo: nothing executes, nothing is
	 * injected; stepping on resumes the thread, as a debugger would. */
	if (is_stop_signal(sig) &&
	    tr->ops->getsiginfo(tr->ops_ctx, t->tid, &si) == -EINVAL)
		return 0;

	if (t->have_prev && t->prev_ip != regs->rip)
		err = complete(t, regs);
	t->have_prev = false;
	t->inject = sig;
	if (err)
		return err;
	if (!task_signal_caught(t->tid, sig)) {
		/* ignored or fatal: no handler runs; cur executes next */
		err = crash_check(t, sig, regs);
		return err ? err : classify_at(t, regs);
	}
	return emu_pt_async(t->pt, regs->rip);
}

/* The thread stops being traced (exit) or its image goes (exec). */
static int finish_prev(struct emu_thread *t)
{
	if (!t->have_prev)
		return 0;
	t->have_prev = false;
	if (t->prev.cls == EMU_INSN_FAR)
		return emu_tr_retire(t, t->prev_ip, &t->prev, 0, NR_NONE);
	return emu_pt_async(t->pt, t->prev_ip);
}

/* The thread is gone: its last bytes out, its ring closed. */
static int end_thread(struct emu_tracer *tr, struct emu_thread *t)
{
	int err;

	err = emu_pt_flush(t->pt);
	tr->res->bytes += emu_pt_bytes(t->pt);
	if (!err && !t->silent)
		err = tr->sb.ops->thread_exit(tr->sb.ctx, t->tid);
	drop_thread(tr, t);
	return err;
}

static int on_exec(struct emu_thread *t, bool first)
{
	struct emu_tracer *tr = t->tr;
	char comm[16];
	int err = 0;

	if (first)
		err = start_thread(t);
	else
		err = finish_prev(t);
	t->have_prev = false;
	if (!err && tr->fast)
		err = emu_run_new_space(t);
	/* the old image's trace reaches the ring before the COMM and MMAP2s
	 * of the new one, so that readers know which code it ran on */
	if (!err && !first)
		err = emu_pt_flush(t->pt);
	if (err)
		return err;
	task_comm(t->pid, comm);
	err = emu_sb_comm(&tr->sb, t->pid, t->tid, comm, true);
	if (err)
		return err;
	emu_proc_flush_code(t->proc);
	return emu_tr_scan_maps(t, true);
}

/*
 * An exec stop, reported under the leader's tid.  When another thread
 * exec'd, the kernel ended the rest (the leader without an exit stop) and
 * gave it the leader's tid: its trace ends at its execve as at an exit,
 * and the new image's trace goes on under the leader's tid.
 */
static int on_exec_event(struct emu_tracer *tr, struct emu_thread *t)
{
	unsigned long former = (unsigned long)t->tid;
	struct emu_thread *o = NULL;
	int err;

	if (tr->ops->eventmsg &&
	    tr->ops->eventmsg(tr->ops_ctx, t->tid, &former) == 0 &&
	    (pid_t)former != t->tid)
		o = find_thread(tr, (pid_t)former);
	if (o) {
		err = finish_prev(o);
		if (!err)
			err = end_thread(tr, o);
		if (err)
			return err;
	}
	return on_exec(t, false);
}

/* The last instruction before the exit stop @regs: it ran when the thread
 * left it (the exit system call, or an instruction after which it was
 * killed), not when it is still there (killed before it). */
static int finish_exit(struct emu_thread *t,
		       const struct user_regs_struct *regs)
{
	if (!t->have_prev)
		return 0;
	if (regs->rip == t->prev_ip || !regs->rip) {
		t->have_prev = false;
		return emu_pt_async(t->pt, t->prev_ip);
	}
	return complete(t, regs);
}

static int on_exit_event(struct emu_thread *t)
{
	struct user_regs_struct regs;
	pid_t tgid = t->pid, ppid = 0;
	bool done;
	int err;

	err = get_regs(t, &regs);
	if (!err && emu_run_native(t) && regs.rip)
		err = emu_run_stop(t, 0, &regs, &done);
	if (!err)
		err = finish_exit(t, &regs);
	if (!err)
		err = emu_pt_flush(t->pt);
	task_ids(t->tid, &tgid, &ppid);
	if (!err && !t->silent)
		err = emu_sb_task(&t->tr->sb, PERF_RECORD_EXIT, t->pid,
				  t->tid == t->pid ? ppid : t->pid, t->tid,
				  t->tid == t->pid ? ppid : t->pid);
	return err;
}

/* A new task's first stop is before its first instruction (the one after
 * the clone, fork or vfork): it runs at the first step, unless a signal
 * handler runs first. */
static int first_insn(struct emu_thread *t)
{
	struct user_regs_struct regs;
	int err;

	if (t->inject && task_signal_caught(t->tid, t->inject))
		return 0;
	err = get_regs(t, &regs);
	return err ? err : classify_at(t, &regs);
}

/* @t goes on untraced, @sig delivered (0: none), with no breakpoint of
 * ours in its memory (a fork not followed, a silent vfork child's exec):
 * it was never recorded. */
static int let_go(struct emu_tracer *tr, struct emu_thread *t, int sig)
{
	int err = emu_ptrace_detach(t->tid, sig);

	drop_thread(tr, t);
	tr->res->threads--;
	return err;
}

/* ---- new tasks on their way ---- */

/* @t's clone, fork or vfork event: the new task is on its way (unless its
 * first stop came first). */
static int on_spawn(struct emu_thread *t)
{
	struct emu_tracer *tr = t->tr;
	unsigned long msg;
	pid_t *n;

	if (tr->ops->eventmsg(tr->ops_ctx, t->tid, &msg)) {
		tr->no_loops = true; /* cannot tell which: none from now on */
		return 0;
	}
	if (find_thread(tr, (pid_t)msg))
		return 0;
	if (tr->nr_unborn == tr->unborn_cap) {
		size_t cap = tr->unborn_cap ? 2 * tr->unborn_cap : 8;

		n = realloc(tr->unborn, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		tr->unborn = n;
		tr->unborn_cap = cap;
	}
	tr->unborn[tr->nr_unborn++] = (pid_t)msg;
	return 0;
}

/* @tid's first stop, or its end, was seen. */
static void born(struct emu_tracer *tr, pid_t tid)
{
	size_t i;

	for (i = 0; i < tr->nr_unborn; i++)
		if (tr->unborn[i] == tid) {
			tr->unborn[i] = tr->unborn[--tr->nr_unborn];
			return;
		}
}

bool emu_tr_alone(const struct emu_thread *t)
{
	const struct emu_thread *o;

	if (t->tr->no_loops || t->tr->nr_unborn)
		return false;
	for (o = t->tr->threads; o; o = o->next)
		if (o != t && o->proc->fast == t->proc->fast)
			return false;
	return true;
}

/* A stop of a task we do not know yet: a new thread or child process. */
static int on_new_task(struct emu_tracer *tr, pid_t tid, int sig)
{
	struct emu_thread *t, *o;
	pid_t tgid, ppid;
	char comm[16];
	bool process;
	int err;

	born(tr, tid);
	err = task_ids(tid, &tgid, &ppid);
	if (err)
		return err;
	process = tgid == tid;
	t = add_thread(tr, tid, tgid);
	if (!t)
		return -ENOMEM;
	for (o = tr->threads; o && !process; o = o->next)
		if (o != t && o->pid == tgid)
			t->silent = o->silent;
	if (process && tr->fast) {
		err = emu_run_fork(tr, t, ppid);
		if (err > 0)
			return let_go(tr, t, sig == SIGSTOP ? 0 : sig);
		if (err) {
			drop_thread(tr, t);
			tr->res->threads--;
			return err;
		}
	}
	t->inject = sig == SIGSTOP ? 0 : sig;
	err = t->silent ? 0 : start_thread(t);
	if (!err && !t->silent)
		err = emu_sb_task(&tr->sb, PERF_RECORD_FORK, tgid,
				  process ? ppid : tgid, tid,
				  process ? ppid : tgid);
	if (!err && process && !t->silent) {
		task_comm(tid, comm);
		err = emu_sb_comm(&tr->sb, tgid, tid, comm, false);
	}
	if (!err && process)
		err = emu_tr_scan_maps(t, true);
	return err ? err : first_insn(t);
}

int emu_tr_step(struct emu_thread *t)
{
	int sig = t->inject, err;

	t->inject = 0;
	err = t->tr->ops->step(t->tr->ops_ctx, t->tid, sig);
	return err == -ESRCH ? 0 : err;
}

/* Stepped, or with the breakpoint engine run natively while nothing is
 * to be delivered (a signal is delivered with a step, which stops at its
 * handler). */
static int resume(struct emu_thread *t)
{
	if (t->tr->fast && t->proc->fast && t->have_prev)
		return t->inject ? emu_run_step(t) : emu_run_resume(t);
	return emu_tr_step(t);
}

/*
 * Whether the SIGTRAP that stopped stepped @t at @regs is the program's, to
 * be delivered as any signal: the int3 (int n) it stepped raised it
 * (SI_KERNEL; not at a breakpoint of the breakpoint engine), or it was
 * sent (kill, tgkill: by the system call it stepped, whose trap it then
 * stands for, or before the step ran, the thread not moved).  The step's
 * own trap is TRAP_TRACE (TRAP_BRKPT after a system call).
 */
static bool program_trap(struct emu_thread *t,
			 const struct user_regs_struct *regs)
{
	siginfo_t si;

	if (!t->have_prev ||
	    (t->prev.cls != EMU_INSN_FAR && regs->rip != t->prev_ip))
		return false;
	if (t->tr->ops->getsiginfo(t->tr->ops_ctx, t->tid, &si))
		return false;
	return si.si_code <= 0 ||
	       (si.si_code == SI_KERNEL &&
		!(t->proc->fast &&
		  emu_fast_planted(t->proc->fast, regs->rip - 1)));
}

/*
 * An event-less stop (a step, a breakpoint, a system call, a signal).  The
 * tracer's own SIGSTOP (emu_tr_interrupt) is handled as a signal nobody
 * catches, which stops a thread where it runs, but is not delivered.
 */
static int on_plain_stop(struct emu_thread *t, int sig)
{
	bool ours = sig == SIGSTOP && t->interrupted;
	struct user_regs_struct regs;
	bool done;
	int err;

	if (ours)
		emu_tr_interrupted(t);
	err = get_regs(t, &regs);
	if (err)
		return err;
	if (emu_run_native(t)) {
		err = emu_run_stop(t, sig, &regs, &done);
		if (!err && !done)
			err = on_signal(t, sig, &regs);
	} else if (sig == SIGTRAP && !program_trap(t, &regs)) {
		err = on_step(t, &regs);
	} else {
		err = on_signal(t, sig, &regs);
	}
	if (ours)
		t->inject = 0;
	return err;
}

static int on_stop(struct emu_tracer *tr, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct emu_thread *t = find_thread(tr, tid);
	int err = 0;

	if (!t) {
		err = on_new_task(tr, tid, event ? SIGSTOP : sig);
		t = find_thread(tr, tid);
		if (err || !t)
			return err;
		return resume(t);
	}
	if (t->lifted) {
		err = emu_run_stepped(t);
		if (err)
			return err;
	}
	switch (event) {
	case 0:
		err = on_plain_stop(t, sig);
		break;
	case PTRACE_EVENT_EXEC:
		if (t->silent)
			return let_go(tr, t, 0);
		err = on_exec_event(tr, t);
		break;
	case PTRACE_EVENT_EXIT:
		err = on_exit_event(t);
		break;
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK: /* the new task reports itself */
		err = on_spawn(t);
		break;
	default:
		break;
	}
	if (err)
		return err;
	return resume(t);
}

static int on_gone(struct emu_tracer *tr, pid_t tid, int status)
{
	struct emu_thread *t = find_thread(tr, tid);

	born(tr, tid);
	if (tid == tr->child) {
		tr->child_gone = true;
		tr->res->wait_status = status;
		tr->res->term_signal =
		    WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		tr->res->exit_status = WIFEXITED(status)
					   ? WEXITSTATUS(status)
					   : 128 + WTERMSIG(status);
	}
	return t ? end_thread(tr, t) : 0;
}

/* Every few thousand stops: staged bytes into the AUX area, then the
 * sink's poll (snapshot requests). */
int emu_trace_drain(struct emu_tracer *tr)
{
	struct emu_thread *t;
	int err;

	for (t = tr->threads; t; t = t->next) {
		err = emu_pt_drain(t->pt);
		if (err)
			return err;
	}
	return 0;
}

static int tick(struct emu_tracer *tr)
{
	int err = emu_trace_drain(tr);

	if (err)
		return err;
	return tr->sb.ops->poll ? tr->sb.ops->poll(tr->sb.ctx, tr->res->insns)
				: 0;
}

/*
 * Step until every traced thread is gone (1), until @until_ns of
 * CLOCK_MONOTONIC has passed or a signal interrupted a wait (0; @until_ns
 * 0: no time limit), or an error.
 */
static int loop(struct emu_tracer *tr, uint64_t until_ns)
{
	int status, err = 0;
	pid_t tid;

	while (tr->threads) {
		if (tr->quiesce && !tr->interrupts)
			return 0;
		if (!(++tr->stops & 4095)) {
			err = tick(tr);
			if (err)
				return err;
		}
		if (until_ns && !(tr->stops & 255) &&
		    emu_tr_now_ns() >= until_ns)
			return 0;
		emu_tr_stop_check(tr);
		tid = emu_tr_next_stop(tr, &status);
		if (tid <= 0) {
			if (tid == -EINTR && until_ns)
				return 0;
			if (!tid || tid == -EINTR)
				continue;
			return tid == -ECHILD ? 1 : tid;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			err = on_gone(tr, tid, status);
			if (err)
				return err;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		tr->res->stops++;
		err = on_stop(tr, tid, status);
		if (err)
			return err;
	}
	return 1;
}

/* Fork the command and bring it to its exec stop. */
static int launch(struct emu_tracer *tr, char *const argv[])
{
	long options = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE |
		       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	struct emu_thread *t;
	int err;

	if (tr->opts->inherit || tr->fast)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (tr->fast)
		options |= PTRACE_O_TRACESYSGOOD;
	err = emu_ptrace_launch(argv, tr->opts->no_aslr, options, &tr->child,
				&tr->res->exec_failed);
	if (err) {
		if (!tr->res->exec_failed)
			emu_tr_log(tr, QPT_LOG_WARN,
				   "cannot trace the command: %s",
				   strerror(-err));
		return err;
	}
	t = add_thread(tr, tr->child, tr->child);
	if (!t)
		return -ENOMEM;
	return on_exec(t, true);
}

/* The tracing thread on @cpu (-1: the one it is on), and so the command
 * it starts, its affinity kept to be put back. */
static int bind_cpu(struct emu_tracer *tr, int cpu)
{
	cpu_set_t one;

	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		tr->res->bind_errno = EINVAL;
		return -QPT_E_INVAL;
	}
	if (sched_getaffinity(0, sizeof(tr->affinity), &tr->affinity)) {
		tr->res->bind_errno = errno;
		return -QPT_E_INVAL;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		tr->res->bind_errno = errno;
		return -QPT_E_INVAL;
	}
	tr->bound = true;
	return 0;
}

int emu_trace_start(char *const argv[], const struct emu_trace_opts *opts,
		    const struct emu_sink_ops *sink, void *sink_ctx,
		    struct emu_trace_result *res, struct emu_tracer **out)
{
	struct emu_tracer *tr = calloc(1, sizeof(*tr));
	int err;

	memset(res, 0, sizeof(*res));
	res->wait_status = -1;
	*out = tr;
	if (!tr)
		return -ENOMEM;
	tr->opts = opts;
	tr->ops = opts->ptrace ? opts->ptrace : &emu_ptrace_sys;
	tr->fast = !opts->step;
	tr->ops_ctx = opts->ptrace_ctx;
	tr->sb.ops = sink;
	tr->sb.ctx = sink_ctx;
	tr->sb.id = opts->sample_id;
	tr->res = res;
	err = opts->bind ? bind_cpu(tr, opts->cpu) : 0;
	if (!err)
		err = launch(tr, argv);
	if (!err)
		err = resume(tr->threads);
	return err;
}

int emu_trace_continue(struct emu_tracer *tr, uint64_t until_ns)
{
	int err;
	struct emu_thread *t;

	if (tr->done)
		return 1;
	err = loop(tr, until_ns);
	for (t = tr->threads; err < 0 && t && !tr->res->pt_error; t = t->next)
		tr->res->pt_error = emu_pt_errstr(t->pt);
	/* threads that vanished unreported (a non-leader's exec) */
	while (err == 1 && tr->threads) {
		err = end_thread(tr, tr->threads);
		if (!err)
			err = 1;
	}
	if (err)
		tr->done = true;
	return err;
}

int emu_trace_quiesce(struct emu_tracer *tr, uint64_t until_ns)
{
	struct emu_thread *t;
	int err;

	if (tr->done)
		return 1;
	for (t = tr->threads; t; t = t->next)
		if (emu_run_native(t))
			emu_tr_interrupt(t);
	/* signals (a tick, another request) end a wait: go on to the end */
	tr->quiesce = true;
	do
		err = emu_trace_continue(tr, until_ns);
	while (!err && tr->interrupts && emu_tr_now_ns() < until_ns);
	tr->quiesce = false;
	return err ? err : emu_trace_drain(tr);
}

int emu_trace_end(struct emu_tracer *tr, int sig)
{
	if (!tr->done && !tr->stopping) {
		tr->stopping = sig > 0 && sig < NSIG ? sig : SIGTERM;
		emu_tr_stop_begin(tr);
	}
	return emu_trace_continue(tr, 0);
}

pid_t emu_trace_child(const struct emu_tracer *tr)
{
	return tr->child;
}

void emu_trace_free(struct emu_tracer *tr)
{
	struct emu_thread *t;

	if (!tr)
		return;
	if (tr->threads && tr->child > 0) {
		for (t = tr->threads; t; t = t->next)
			kill(t->tid, SIGKILL);
		kill(tr->child, SIGKILL);
		while (tr->threads)
			drop_thread(tr, tr->threads);
		emu_ptrace_reap(-1);
	}
	while (tr->threads)
		drop_thread(tr, tr->threads);
	if (tr->bound)
		sched_setaffinity(0, sizeof(tr->affinity), &tr->affinity);
	free(tr->unborn);
	free(tr);
}

int emu_trace_run(char *const argv[], const struct emu_trace_opts *opts,
		  const struct emu_sink_ops *sink, void *sink_ctx,
		  struct emu_trace_result *res)
{
	struct emu_tracer *tr;
	int err;

	err = emu_trace_start(argv, opts, sink, sink_ctx, res, &tr);
	if (!err)
		err = emu_trace_continue(tr, 0);
	emu_trace_free(tr);
	return err < 0 ? err : 0;
}
