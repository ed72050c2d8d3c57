// SPDX-License-Identifier: MIT
/* What /proc (and kcmp) say of a traced task (task.h). */
#include "capture/task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

int task_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char name[64], line[256];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	*tgid = tid;
	*ppid = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5))
			*tgid = (pid_t)atoi(line + 5);
		else if (!strncmp(line, "PPid:", 5))
			*ppid = (pid_t)atoi(line + 5);
	}
	fclose(f);
	return 0;
}

bool task_signal_in(pid_t tid, const char *field, int sig, bool dflt)
{
	char name[64], line[256];
	unsigned long long mask = 0;
	size_t len = strlen(field);
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return dflt;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len))
			mask = strtoull(line + len, NULL, 16);
	fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

bool task_signal_caught(pid_t tid, int sig)
{
	return task_signal_in(tid, "SigCgt:", sig, true);
}

void task_comm(pid_t pid, char comm[16])
{
	char name[64];
	ssize_t n = 0;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/comm", (int)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, 15);
		close(fd);
	}
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

int task_same_vm(pid_t a, pid_t b)
{
	long r = syscall(SYS_kcmp, a, b, KCMP_VM, 0, 0);

	return r < 0 ? -errno : r == 0;
}
