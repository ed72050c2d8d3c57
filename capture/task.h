/* SPDX-License-Identifier: MIT */
/*
 * What /proc says of a traced task, for both sources (the emulated
 * source's tracer, the PMU source's crash watch): its process and parent,
 * its signal masks, its name.
 */
#ifndef QPT_CAPTURE_TASK_H
#define QPT_CAPTURE_TASK_H

#include <stdbool.h>
#include <sys/types.h>

/* Tgid and PPid of @tid: 0 or -errno. */
int task_ids(pid_t tid, pid_t *tgid, pid_t *ppid);
/* Whether @sig is in the /proc/TID/status mask @field ("SigCgt:"...);
 * @dflt when the file cannot be read. */
bool task_signal_in(pid_t tid, const char *field, int sig, bool dflt);
/* Whether @tid has a handler for @sig (true when not known). */
bool task_signal_caught(pid_t tid, int sig);
/* The name of process @pid ("" when not known). */
void task_comm(pid_t pid, char comm[16]);
/* Whether tasks @a and @b share their memory (vfork, CLONE_VM): 1, 0, or
 * -errno when it cannot be told. */
int task_same_vm(pid_t a, pid_t b);

#endif
