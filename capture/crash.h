/* SPDX-License-Identifier: MIT */
/*
 * The crash facts a source collects while it runs (fatal signals,
 * --snapshot-on hits): the emulated source's tracer and the PMU source's
 * watch alike.  Written as qpt's crash feature (include/qpt/crash.h) when
 * the recording ends.
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
 * trigger).  Returns 0 or -ENOMEM. */
int crash_add(struct crash_list *c, uint32_t kind, pid_t pid, pid_t tid,
	      const siginfo_t *si, const struct user_regs_struct *regs,
	      const uint8_t *insn, size_t insn_len, uint64_t time);

/* The feature into @w (nothing when there is no entry).  Returns 0 or an
 * error of qpt_crash_encode / qpt_writer_set_feature_raw. */
int crash_write(const struct crash_list *c, struct qpt_writer *w);

void crash_release(struct crash_list *c);

#endif
