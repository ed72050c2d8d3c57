/* SPDX-License-Identifier: MIT */
/* What a recording traces: a held child command, a process's threads, a
 * list of CPUs. */
#ifndef QPT_CAPTURE_TARGET_H
#define QPT_CAPTURE_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/*
 * In a forked child before exec: the command starts as a shell starts it,
 * with default signal dispositions (none of the recorder's handlers or
 * ignored SIGPIPE and SIGINT) and no signal blocked.
 */
void qpt_target_reset_signals(void);

/*
 * Fork @argv, held before exec until qpt_target_child_go.  *@go_fd and
 * *@err_fd are the parent's ends of the two pipes.  Returns 0 or -errno.
 */
int qpt_target_child_fork(char *const argv[], pid_t *pid, int *go_fd,
			  int *err_fd);

/* Release the child and wait for its exec: 0 when it exec'd, or the
 * exec's -errno (the child then exits 127). */
int qpt_target_child_go(int go_fd, int err_fd);

/*
 * End the child @pid that outlived its recording, as perf record ends its
 * workload: @sig (0: SIGTERM) to it, SIGKILL if it has not ended
 * @grace_ms (0: 2000) later.  Returns its wait status.
 */
int qpt_target_child_end(pid_t pid, int sig, unsigned int grace_ms);

/* The threads of @pid from <proc>/PID/task, sorted; -ESRCH when gone. */
int qpt_target_threads(const char *proc, pid_t pid, int **tids, size_t *nr);

/* Parse a CPU list "0-3,5" (NULL: the online CPUs from sysfs) into a
 * sorted, unique array.  Returns 0, -QPT_E_INVAL, -ENOMEM. */
int qpt_target_cpus(const char *list, int **cpus, size_t *nr);

#endif /* QPT_CAPTURE_TARGET_H */
