/* SPDX-License-Identifier: MIT */
/*
 * The ptrace side of the emulated source: emu_ptrace_sys (emulate/trace.h),
 * the command started traced, and reaping.
 */
#ifndef QPT_CAPTURE_EMU_PTRACE_H
#define QPT_CAPTURE_EMU_PTRACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "capture/emulate/trace.h"

/*
 * Fork and exec @argv traced (default signal dispositions, nothing
 * blocked, ASLR off with @no_aslr), ptrace @options set, up to its exec
 * stop: 0 with *@child.  -errno otherwise, with *@exec_failed when the
 * command did not start (its exec failed; *@child is reaped), not when it
 * could not be traced.
 */
int emu_ptrace_launch(char *const argv[], bool no_aslr, long options,
		      pid_t *child, bool *exec_failed);
/* Let @tid go untraced, delivering @sig (0: none): 0 or -errno (a task
 * already gone is no error). */
int emu_ptrace_detach(pid_t tid, int sig);
/*
 * Kill @pid (-1: every tracee) and wait until it is gone.  A tracee killed
 * while traced still stops at PTRACE_EVENT_EXIT (and one already there
 * does not die of SIGKILL): each stop is continued.
 */
void emu_ptrace_reap(pid_t pid);

#endif
