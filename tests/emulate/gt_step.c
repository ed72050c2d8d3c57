// SPDX-License-Identifier: MIT
/*
 * Ground truth for the emulated source: a plain ptrace single-stepper,
 * independent of qpt's classifier and encoder (instructions are decoded
 * with Zydis).  It prints "TID IP" (hex IP) for every instruction each
 * thread retires, ASLR off:
 *
 *   gt_step [-c] [-f] [-p] [-s KINDS [-S]] OUT -- CMD ARGS
 *
 * An instruction counts when the step that runs it completes.  It does not
 * count when a signal stop arrives with the IP still on it (a fault or an
 * asynchronous signal taken before it) and a handler runs; a rep-prefixed
 * string instruction, trapping once per iteration, counts once, when it
 * ends (not before a handler cuts it short, as Intel PT).  A SIGTRAP
 * of the program's own (int3, int n, kill: told from a step's trap by its
 * siginfo) is a signal like any other.  A new thread's (or, with -f,
 * child's) first instruction is the one after the clone (fork) that made
 * it.  -c only counts, as the bare single-step loop of the benchmark (read
 * RIP at each trap, nothing else): prints the instructions and the
 * completed steps (rep iterations included), threads and signals aside.
 * -f follows fork and vfork children too.  -p only probes whether this
 * host lets a command be traced: it ends the command at its first stop
 * and exits 0 (77 where ptrace is not allowed, as always).
 *
 * Some hosts swallow the single-step trap after an instruction (after
 * CPUID under some hypervisors): the stop comes one instruction late.
 * Before each step the instruction's destination is worked out from the
 * registers; a stop elsewhere means the instructions from there ran too,
 * and they are printed (recovered from their bytes up to one whose
 * outcome the stop shows; gt_step fails, exit 3, where it cannot tell).
 * -s KINDS simulates such a host: the trap after each instruction of
 * these kinds (gt_x86.h: jcc, jmp-ind, call, call-ind, ret, other, cpuid,
 * ..., all) is swallowed, unless the next one is a system call; -S
 * swallows the next trap too when the instruction after is a direct call
 * or a Jcc (after a Jcc what ran cannot be told: exit 3).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gt_x86.h"

#define MAX_THREADS 64
#define MAX_CHAIN 8

struct thr {
	pid_t tid;
	bool pending, next_known;
	struct gt_insn in; /* the stepped instruction (pending) */
	unsigned long long last;
	uint64_t next; /* where it goes (next_known) */
	int sig;
	int swallow; /* -s: swallow the next trap (2: after first) */
	uint64_t first;
};

static struct thr thr[MAX_THREADS];
static int nthr;
static FILE *out;
static bool count_only, double_swallow, probe;
static int swallow_kinds;
static unsigned long long total, steps, lost;

static struct thr *get(pid_t tid)
{
	int i;

	for (i = 0; i < nthr; i++)
		if (thr[i].tid == tid)
			return &thr[i];
	if (nthr == MAX_THREADS) {
		fprintf(stderr, "gt_step: too many threads\n");
		exit(1);
	}
	memset(&thr[nthr], 0, sizeof(thr[nthr]));
	thr[nthr].tid = tid;
	return &thr[nthr++];
}

static void getregs(pid_t tid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, r) < 0)
		memset(r, 0, sizeof(*r));
}

static bool caught(pid_t tid, int sig)
{
	char name[64], line[256];
	unsigned long long m = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", tid);
	f = fopen(name, "r");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7))
			m = strtoull(line + 7, NULL, 16);
	fclose(f);
	return (m >> (sig - 1)) & 1;
}

/* @in retired (a rep iteration after the first counts as a step only). */
static void retire_insn(struct thr *t, const struct gt_insn *in)
{
	steps++;
	t->last = in->ip;
	total++;
	if (!count_only)
		fprintf(out, "%d %llx\n", t->tid, (unsigned long long)in->ip);
}

/* The thread stopped at @regs (not a fault on the pending instruction). */
static void complete(struct thr *t, const struct user_regs_struct *regs)
{
	uint64_t cur = regs->rip, ip, next;
	struct gt_insn in;
	int i;

	if (!t->pending)
		return;
	if (cur == t->in.ip && t->in.rep) {
		/* an iteration: the instruction retires when it ends (one a
		 * signal's handler cuts short runs again after, as a whole) */
		steps++;
		return;
	}
	t->pending = false;
	retire_insn(t, &t->in);
	if (!t->next_known || cur == t->next ||
	    (cur == t->in.ip && t->in.kind == GT_SYSCALL))
		return;
	/* the trap after it was swallowed: more ran, from t->next */
	lost++;
	for (ip = t->next, i = 0; i < MAX_CHAIN; i++, ip = next) {
		gt_decode(t->tid, ip, &in);
		retire_insn(t, &in);
		if (gt_ran_last(t->tid, &in, regs))
			return;
		if (!gt_only_next(&in, &next))
			break;
	}
	fprintf(stderr,
		"gt_step: thread %d: lost a single-step trap; what ran from "
		"%#llx to %#llx cannot be told\n",
		t->tid, (unsigned long long)t->next, (unsigned long long)cur);
	exit(3);
}

/* The thread will run the instruction at @regs->rip next. */
static void arm(struct thr *t, const struct user_regs_struct *regs)
{
	gt_decode(t->tid, regs->rip, &t->in);
	t->pending = true;
	t->next_known = gt_next(t->tid, &t->in, regs, &t->next) > 0;
	if (swallow_kinds & (1 << t->in.kind))
		t->swallow = 1;
}

/* -s: a trap stop to swallow?  Steps on and says so. */
static bool swallowed(struct thr *t, const struct user_regs_struct *regs)
{
	int r;

	if (!t->swallow)
		return false;
	r = gt_swallow(t->tid, regs, double_swallow,
		       t->swallow == 2 ? t->first : 0);
	t->swallow = 0;
	if (r < 0)
		return false;
	if (r == 1) {
		t->swallow = 2;
		t->first = regs->rip;
	}
	ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL);
	return true;
}

static void on_signal(struct thr *t, int sig,
		      const struct user_regs_struct *regs)
{
	if (t->pending && t->in.ip != regs->rip)
		complete(t, regs);
	t->pending = false;
	t->sig = sig;
	if (!caught(t->tid, sig))
		arm(t, regs);
}

/* -c: a trap is one more step; the instruction it ends counts unless a
 * REP string instruction stopped on itself again. */
static void count(pid_t tid)
{
	struct thr *t = get(tid);
	unsigned long long ip;
	struct gt_insn in;

	errno = 0;
	ip = (unsigned long long)ptrace(
	    PTRACE_PEEKUSER, tid,
	    (void *)offsetof(struct user_regs_struct, rip), NULL);
	steps++;
	if (ip == t->last) {
		gt_decode(tid, ip, &in);
		if (in.rep)
			return;
	}
	t->last = ip;
	total++;
}

/* Whether the SIGTRAP that stopped @tid is the program's (its int3 or
 * int n, SI_KERNEL; sent, SI_USER or SI_TKILL), not the step's trap. */
static bool program_trap(pid_t tid)
{
	siginfo_t si;

	return !ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) &&
	       (si.si_code <= 0 || si.si_code == SI_KERNEL);
}

static void stop(pid_t tid, int status)
{
	struct thr *t = get(tid);
	int sig = WSTOPSIG(status), ev = status >> 16;
	struct user_regs_struct regs;

	t->sig = 0;
	if (ev || sig != SIGTRAP)
		t->swallow = 0; /* only a trap right after the step */
	if (ev == PTRACE_EVENT_EXEC) {
		unsigned long former = (unsigned long)tid;

		/* reported under the leader's tid; another thread that
		 * exec'd took it over, and its execve ran */
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &former) == 0 &&
		    (pid_t)former != tid && get((pid_t)former)->pending) {
			retire_insn(get((pid_t)former), &get((pid_t)former)->in);
			get((pid_t)former)->pending = false;
		}
		if (t->pending)
			retire_insn(t, &t->in); /* the execve, or where the
						 * leader was (a system call) */
		t->pending = false;
		t->last = 0;
	} else if (ev == PTRACE_EVENT_EXIT) {
		/* the last instruction ran when the thread left it */
		getregs(tid, &regs);
		if (t->pending && regs.rip && regs.rip != t->in.ip)
			complete(t, &regs);
		t->pending = false;
	} else if (ev) {
		/* clone/fork/vfork: nothing executes */
	} else if (sig == SIGTRAP && !program_trap(tid)) {
		getregs(tid, &regs);
		if (swallowed(t, &regs))
			return;
		complete(t, &regs);
		arm(t, &regs);
	} else if (sig == SIGSTOP && !t->pending && !t->last) {
		/* a new thread's first stop: its first instruction next */
		getregs(tid, &regs);
		arm(t, &regs);
	} else {
		getregs(tid, &regs);
		on_signal(t, sig, &regs);
	}
	ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)t->sig);
}

/* The command starts as qpt record starts it: every signal's action the
 * default, none blocked (a shell running the tests in the background
 * ignores SIGINT and SIGQUIT, which changes the path of system()). */
static void default_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv)
{
	int status, argi = 1;
	long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE |
		    PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	pid_t child, tid;

	for (; argi < argc && argv[argi][0] == '-' && argv[argi][1]; argi++) {
		if (!strcmp(argv[argi], "-c"))
			count_only = true;
		else if (!strcmp(argv[argi], "-f"))
			opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
		else if (!strcmp(argv[argi], "-S"))
			double_swallow = true;
		else if (!strcmp(argv[argi], "-p"))
			probe = true;
		else if (!strcmp(argv[argi], "-s") && argi + 1 < argc &&
			 (swallow_kinds = gt_kinds(argv[argi + 1])) >= 0)
			argi++;
		else
			break;
	}
	if (argc < argi + 3 || strcmp(argv[argi + 1], "--") ||
	    swallow_kinds < 0) {
		fprintf(stderr, "usage: gt_step [-c] [-f] [-p] [-s KINDS [-S]] "
				"OUT -- CMD ARGS\n");
		return 2;
	}
	out = fopen(argv[argi], "w");
	if (!out) {
		perror(argv[argi]);
		return 1;
	}
	child = fork();
	if (!child) {
		default_signals();
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(77);
		personality(ADDR_NO_RANDOMIZE);
		raise(SIGSTOP);
		execvp(argv[argi + 2], argv + argi + 2);
		_exit(127);
	}
	waitpid(child, &status, 0);
	if (WIFEXITED(status)) {
		fprintf(stderr,
			"gt_step: cannot trace (ptrace not allowed?)\n");
		return WEXITSTATUS(status) == 77 ? 77 : 1;
	}
	if (probe) { /* stopped under ptrace: that is all it asks */
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		fclose(out);
		return 0;
	}
	ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)opts);
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	get(child);
	ptrace(PTRACE_SINGLESTEP, child, NULL, NULL);
	for (;;) {
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0)
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (count_only && !(status >> 16) &&
		    WSTOPSIG(status) == SIGTRAP) {
			count(tid);
			ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL);
		} else {
			stop(tid, status);
		}
	}
	if (count_only)
		fprintf(out, "%llu %llu\n", total, steps);
	fclose(out);
	if (lost)
		fprintf(stderr,
			"gt_step: %llu lost single-step traps "
			"recovered\n",
			lost);
	return 0;
}
