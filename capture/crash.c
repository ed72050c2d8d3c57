// SPDX-License-Identifier: MIT
/*
 * Crash facts, of either source: collected at the signal-delivery stop of
 * a fatal signal (or a --snapshot-on hit), written as one feature when the
 * file is finished.
 */
#include "capture/crash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int crash_add(struct crash_list *c, uint32_t kind, pid_t pid, pid_t tid,
	      const siginfo_t *si, const struct user_regs_struct *regs,
	      const uint8_t *insn, size_t insn_len, uint64_t time)
{
	struct qpt_crash *e;

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;

		e = realloc(c->list, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
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
	return 0;
}

int crash_write(const struct crash_list *c, struct qpt_writer *w)
{
	size_t len;
	void *buf;
	int err;

	if (!c->nr)
		return 0;
	err = qpt_crash_encode(c->list, c->nr, &buf, &len);
	if (err)
		return err;
	err = qpt_writer_set_feature_raw(w, (enum qpt_feature)QPT_FEAT_QPT_CRASH,
					 buf, len);
	free(buf);
	return err;
}

void crash_release(struct crash_list *c)
{
	free(c->list);
	memset(c, 0, sizeof(*c));
}
