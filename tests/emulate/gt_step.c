// SPDX-License-Identifier: MIT
/*
 * Ground truth for the emulated source: a plain ptrace single-stepper,
 * independent of qpt's classifier and encoder.  It prints "TID IP" (hex IP)
 * for every instruction each thread retires, ASLR off:
 *
 *   gt_step [-c] [-f] OUT -- CMD ARGS
 *
 * An instruction counts when the step that runs it completes.  It does not
 * count when a signal stop arrives with the IP still on it (a fault or an
 * asynchronous signal taken before it) and a handler runs; a rep-prefixed
 * string instruction, trapping once per iteration, counts once.  -c only
 * counts (the bare single-step loop of the benchmark): prints the
 * instructions and the completed steps (rep iterations included).  -f
 * follows fork and vfork children too.
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

#define MAX_THREADS 64

struct thr {
	pid_t tid;
	bool pending;
	unsigned long long ip, last;
	int sig;
};

static struct thr thr[MAX_THREADS];
static int nthr;
static FILE *out;
static bool count_only;
static unsigned long long total, steps;

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

static int read_code(pid_t tid, unsigned long long ip, unsigned char *b)
{
	struct iovec l = {b, 16}, r = {(void *)ip, 16};

	memset(b, 0, 16);
	return process_vm_readv(tid, &l, 1, &r, 1, 0) > 0 ? 0 : -1;
}

/* rep/repne + movs, cmps, stos, lods, scas, ins, outs */
static bool is_rep_string(pid_t tid, unsigned long long ip)
{
	unsigned char b[16];
	bool rep = false;
	int i = 0;

	if (read_code(tid, ip, b))
		return false;
	for (; i < 15; i++) {
		if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = true;
		else if (!(b[i] == 0x66 || b[i] == 0x67 || b[i] == 0x2e ||
			   b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 ||
			   b[i] == 0x64 || b[i] == 0x65 ||
			   (b[i] & 0xf0) == 0x40))
			break;
	}
	return rep && ((b[i] >= 0xa4 && b[i] <= 0xa7) ||
		       (b[i] >= 0xaa && b[i] <= 0xaf) ||
		       (b[i] >= 0x6c && b[i] <= 0x6f));
}

static bool is_syscall(pid_t tid, unsigned long long ip)
{
	unsigned char b[16];

	return !read_code(tid, ip, b) && b[0] == 0x0f && b[1] == 0x05;
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

static void retire(struct thr *t)
{
	if (!t->pending)
		return;
	t->pending = false;
	steps++;
	if (t->ip == t->last && is_rep_string(t->tid, t->ip))
		return;
	t->last = t->ip;
	total++;
	if (!count_only)
		fprintf(out, "%d %llx\n", t->tid, t->ip);
}

static unsigned long long rip(pid_t tid)
{
	return (unsigned long long)ptrace(
	    PTRACE_PEEKUSER, tid,
	    (void *)offsetof(struct user_regs_struct, rip), NULL);
}

static void stop(pid_t tid, int status, pid_t child)
{
	struct thr *t = get(tid);
	int sig = WSTOPSIG(status), ev = status >> 16;
	unsigned long long cur;

	t->sig = 0;
	if (ev == PTRACE_EVENT_EXIT) {
		if (t->pending && is_syscall(tid, t->ip))
			retire(t);
		t->pending = false;
	} else if (ev == PTRACE_EVENT_EXEC) {
		if (tid != child || t->last || t->pending)
			retire(t);
		t->pending = false;
		t->last = 0;
	} else if (ev) {
		/* clone/fork/vfork: nothing executes */
	} else if (sig == SIGTRAP) {
		cur = rip(tid);
		retire(t);
		t->ip = cur;
		t->pending = true;
	} else if (sig == SIGSTOP && !t->pending && !t->last) {
		/* a new thread's first stop */
	} else {
		cur = rip(tid);
		if (t->pending && t->ip != cur)
			retire(t);
		t->pending = false;
		t->sig = sig;
		if (!caught(tid, sig)) {
			t->ip = cur;
			t->pending = true;
		}
	}
	ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)t->sig);
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
		else if (!strcmp(argv[argi], "--"))
			break;
		else
			break;
	}
	if (argc < argi + 3 || strcmp(argv[argi + 1], "--")) {
		fprintf(stderr, "usage: gt_step [-c] [-f] OUT -- CMD ARGS\n");
		return 2;
	}
	out = fopen(argv[argi], "w");
	if (!out) {
		perror(argv[argi]);
		return 1;
	}
	child = fork();
	if (!child) {
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
	ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)opts);
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	get(child);
	ptrace(PTRACE_SINGLESTEP, child, NULL, NULL);
	for (;;) {
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0)
			break;
		if (WIFSTOPPED(status))
			stop(tid, status, child);
	}
	if (count_only)
		fprintf(out, "%llu %llu\n", total, steps);
	fclose(out);
	return 0;
}
