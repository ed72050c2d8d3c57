/* SPDX-License-Identifier: MIT */
/*
 * The crash facts a source collects while it runs (fatal signals,
 * --snapshot-on hits): the emulated source's tracer and the PMU source's
 * watch alike.  Written as samples of qpt's crash event
 * (include/qpt/crash.h) when the recording ends.
 */
#ifndef QPT_CAPTURE_CRASH_H
#define QPT_CAPTURE_CRASH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "qpt/crash.h"

struct qpt_writer;

struct crash_list {
	struct qpt_crash *list;
	size_t nr, cap;
};

/* The default crash signals (bit sig - 1): SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT, SIGSYS, SIGTRAP. */
uint64_t crash_default_signals(void);

/* One entry of @kind for thread @tid at @time; @si may be NULL (a
 * trigger); @stack_len bytes of its stack from regs->rsp (copied; may
 * be 0).  Returns 0 or -ENOMEM. */
int crash_add(struct crash_list *c, uint32_t kind, pid_t pid, pid_t tid,
	      const siginfo_t *si, const struct user_regs_struct *regs,
	      const uint8_t *insn, size_t insn_len, uint64_t time,
	      const uint8_t *stack, size_t stack_len);

/* Up to @len bytes of thread @tid's memory from @sp up, page by page to
 * the first that cannot be read: the count read. */
size_t crash_read_stack(pid_t tid, uint64_t sp, uint8_t *buf, size_t len);

/* The crash event's attr into @w, before its first record (every
 * recording that may have crash facts has it). */
int crash_add_attr(struct qpt_writer *w);

/* One crash event sample per entry into @w (whose attrs have the crash
 * event's).  Returns 0, -ENOMEM or an error of qpt_writer_write. */
int crash_write(const struct crash_list *c, struct qpt_writer *w);

void crash_release(struct crash_list *c);

#endif
