/* SPDX-License-Identifier: MIT */
/*
 * The PMU source's watch for fatal signals: the targets' threads under
 * PTRACE_SEIZE (no stepping, no stop the program sees), threads they
 * create followed (PTRACE_O_TRACECLONE).  Each signal-delivery stop is
 * looked at: a signal of the crash set whose action is the default and
 * kills (no handler; ignored only when the kernel forces it) goes to the
 * caller's crash callback while the thread is still held, then is
 * delivered as it would have been.  Every other stop is passed on
 * unchanged: signals are delivered, group-stops kept with PTRACE_LISTEN
 * (SIGCONT resumes them as without a tracer), new threads let run.
 *
 * Waits are per traced thread (waitpid(tid, __WALL)), never for any
 * child: the caller's other children are not reaped here.
 */
#ifndef QPT_CAPTURE_WATCH_H
#define QPT_CAPTURE_WATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* A thread about to die of @si: its registers and the code bytes at its
 * ip (@insn_len of them could be read).  Returns 0 or an error, which
 * the watch hands back after delivering the signal. */
typedef int (*watch_crash_fn)(void *ctx, pid_t pid, pid_t tid,
			      const siginfo_t *si,
			      const struct user_regs_struct *regs,
			      const uint8_t *insn, size_t insn_len);

struct watch;

/* A watch for the signals of @signals (bit sig - 1) of process @pid.
 * Returns 0 and *@w, or -ENOMEM. */
int watch_new(pid_t pid, uint64_t signals, watch_crash_fn crash, void *ctx,
	      struct watch **w);

/*
 * Seize thread @tid (options: PTRACE_O_TRACECLONE).  Returns 0 or
 * ptrace's -errno (-EPERM: not allowed, e.g. kernel.yama.ptrace_scope
 * or another tracer).
 */
int watch_seize(struct watch *w, pid_t tid);

/*
 * Seize every thread of the running process (<proc>/PID/task), again
 * until a listing finds none new (threads born meanwhile).  Returns 0 or
 * as watch_seize; on failure none stays seized.
 */
int watch_seize_all(struct watch *w, const char *proc);

/*
 * Handle every stop that is pending, without blocking.  Returns 1 once
 * the process's leader has ended (*@status: its wait status; from then
 * on 1 again), 0, or the first error of the crash callback.
 */
int watch_poll(struct watch *w, int *status);

/*
 * End the process as perf record ends its workload, stops handled
 * meanwhile: @sig (0: SIGTERM), SIGKILL if it has not ended @grace_ms
 * (0: 2000) later.  Returns 0 and *@status, or the crash callback's
 * error (the process is ended either way).
 */
int watch_end(struct watch *w, int sig, unsigned int grace_ms, int *status);

/* Let every thread go untraced (each is interrupted, its pending signal
 * delivered, a group-stop kept).  The process runs on as without qpt. */
void watch_detach(struct watch *w);

/* Threads traced now. */
size_t watch_threads(const struct watch *w);

/* Detaches what is still traced; NULL is a no-op. */
void watch_free(struct watch *w);

#endif
