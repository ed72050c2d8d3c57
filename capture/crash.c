// SPDX-License-Identifier: MIT
/*
 * Crash facts, of either source: collected at the signal-delivery stop of
 * a fatal signal (or a --snapshot-on hit) with the thread's stack, written
 * as samples of qpt's crash event when the file is finished.
 */
#include "capture/crash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "qpt/writer.h"

uint64_t crash_default_signals(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				   SIGABRT, SIGSYS, SIGTRAP};
	uint64_t mask = 0;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		mask |= 1ULL << (sigs[i] - 1);
	return mask;
}

/* The signals whose si_addr is the faulting address. */
static bool has_addr(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP;
}

size_t crash_read_stack(pid_t tid, uint64_t sp, uint8_t *buf, size_t len)
{
	enum { PAGES = 17 }; /* 64 KiB and the page sp is in */
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), a = sp;
	struct iovec local = {buf, len}, remote[PAGES];
	unsigned n = 0;
	ssize_t got;

	/* one element a page: the read stops at the first unmapped one */
	while (a < sp + len && n < PAGES) {
		uint64_t end = (a / page + 1) * page;

		if (end > sp + len)
			end = sp + len;
		remote[n].iov_base = (void *)(uintptr_t)a;
		remote[n].iov_len = (size_t)(end - a);
		n++;
		a = end;
	}
	local.iov_len = (size_t)(a - sp);
	got = n ? process_vm_readv(tid, &local, 1, remote, n, 0) : 0;
	return got < 0 ? 0 : (size_t)got;
}

int crash_add(struct crash_list *c, uint32_t kind, pid_t pid, pid_t tid,
	      const siginfo_t *si, const struct user_regs_struct *regs,
	      const uint8_t *insn, size_t insn_len, uint64_t time,
	      const uint8_t *stack, size_t stack_len)
{
	struct qpt_crash *e;
	uint8_t *copy = NULL;

	if (stack_len > QPT_CRASH_STACK_MAX)
		stack_len = QPT_CRASH_STACK_MAX;
	if (stack_len) {
		copy = malloc(stack_len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, stack, stack_len);
	}

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;

		e = realloc(c->list, cap * sizeof(*e));
		if (!e) {
			free(copy);
			return -ENOMEM;
		}
		c->list = e;
		c->cap = cap;
	}
	e = &c->list[c->nr++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	e->tid = tid;
	e->time = time;
	if (si) {
		e->signo = si->si_signo;
		e->code = si->si_code;
		e->err = si->si_errno;
		/* si_addr is the fault's when the kernel made the signal */
		if (has_addr(si->si_signo) && si->si_code > 0)
			e->addr = (uint64_t)(uintptr_t)si->si_addr;
	}
	e->ip = regs->rip;
	if (insn && insn_len) {
		e->insn_len = (uint8_t)(insn_len > 16 ? 16 : insn_len);
		memcpy(e->insn, insn, e->insn_len);
	}
	_Static_assert(sizeof(*regs) == QPT_CRASH_MAX_REGS * 8,
		       "user_regs_struct is 27 words on x86-64");
	e->nr_regs = QPT_CRASH_MAX_REGS;
	memcpy(e->regs, regs, sizeof(*regs));
	e->stack_addr = regs->rsp;
	e->stack = copy;
	e->stack_len = (uint32_t)stack_len;
	return 0;
}

int crash_add_attr(struct qpt_writer *w)
{
	struct perf_event_attr attr;
	uint64_t id = QPT_CRASH_EVENT_ID;

	qpt_crash_event_attr(&attr);
	return qpt_writer_add_attr(w, &attr, &id, 1, QPT_CRASH_EVENT_NAME);
}

int crash_write(const struct crash_list *c, struct qpt_writer *w)
{
	uint8_t *buf;
	size_t i;
	int n = 0;

	if (!c->nr)
		return 0;
	buf = malloc(QPT_CRASH_SAMPLE_MAX);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < c->nr && n >= 0; i++) {
		n = qpt_crash_sample_encode(&c->list[i], buf,
					    QPT_CRASH_SAMPLE_MAX);
		if (n >= 0)
			n = qpt_writer_write(w, buf);
	}
	free(buf);
	return n < 0 ? n : 0;
}

void crash_release(struct crash_list *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free((void *)c->list[i].stack);
	free(c->list);
	memset(c, 0, sizeof(*c));
}
