// SPDX-License-Identifier: MIT
/* Targets of a recording (see target.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/target.h"
#include "qpt/qpt.h"

void qpt_target_reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int qpt_target_child_fork(char *const argv[], pid_t *pid, int *go_fd,
			  int *err_fd)
{
	int go[2], ep[2], e;
	char c;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	*pid = fork();
	if (*pid < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return e;
	}
	if (!*pid) {
		close(go[1]);
		close(ep[0]);
		qpt_target_reset_signals();
		/* Held until the parent has opened the events. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	*go_fd = go[1];
	*err_fd = ep[0];
	return 0;
}

int qpt_target_child_go(int go_fd, int err_fd)
{
	ssize_t n;
	int e = 0;

	if (write(go_fd, "g", 1) != 1)
		return -errno;
	/* EOF: the exec closed the pipe; else the exec's errno. */
	do
		n = read(err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(e))
		return e > 0 ? -e : -ENOEXEC;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int qpt_target_child_end(pid_t pid, int sig, unsigned int grace_ms)
{
	struct timespec nap = {0, 10000000};
	unsigned int i, naps = (grace_ms ? grace_ms : 2000) / 10;
	int status = 0;

	kill(pid, sig > 0 ? sig : SIGTERM);
	for (i = 0; i < naps; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

int qpt_target_threads(const char *proc, pid_t pid, int **tids, size_t *nr)
{
	char path[256];
	struct dirent *de;
	int *t = NULL, *nt, tid;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		nt = realloc(t, (n + 1) * sizeof(*t));
		if (!nt) {
			free(t);
			closedir(d);
			return -ENOMEM;
		}
		t = nt;
		t[n++] = tid;
	}
	closedir(d);
	if (!n) {
		free(t);
		return -ESRCH;
	}
	qsort(t, n, sizeof(*t), cmp_int);
	*tids = t;
	*nr = n;
	return 0;
}

static int parse_cpus(const char *list, int **cpus, size_t *nr)
{
	unsigned long lo, hi, c;
	const char *p = list;
	int *v = NULL, *nv;
	size_t n = 0, i, j;
	char *end;

	while (*p && *p != '\n') {
		if (*p < '0' || *p > '9')
			goto bad;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				goto bad;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= 4096)
			goto bad;
		for (c = lo; c <= hi; c++) {
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			v[n++] = (int)c;
		}
		if (*p == ',') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
		} else if (*p && *p != '\n') {
			goto bad;
		}
	}
	if (!n)
		goto bad;
	qsort(v, n, sizeof(*v), cmp_int);
	for (i = j = 0; i < n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*cpus = v;
	*nr = j;
	return 0;
bad:
	free(v);
	return -QPT_E_INVAL;
}

int qpt_target_cpus(const char *list, int **cpus, size_t *nr)
{
	char buf[1024];
	ssize_t n;
	int fd;

	if (list)
		return parse_cpus(list, cpus, nr);
	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -QPT_E_FORMAT;
	buf[n] = '\0';
	return parse_cpus(buf, cpus, nr);
}
