// SPDX-License-Identifier: MIT
/*
 * The ptrace side of the emulated source: the system calls of the stepping
 * loop (the seam's real ops), starting the command traced, and reaping.
 */
#include "capture/emulate/ptrace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/target.h"

static pid_t sys_wait(void *ctx, int *status, int flags)
{
	pid_t pid = waitpid(-1, status, __WALL | flags);

	return pid < 0 ? -errno : pid;
}

static int sys_step(void *ctx, pid_t tid, int sig)
{
	return ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)sig) < 0
		   ? -errno
		   : 0;
}

static int sys_getregs(void *ctx, pid_t tid, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, tid, NULL, regs) < 0 ? -errno : 0;
}

static int sys_getsiginfo(void *ctx, pid_t tid, siginfo_t *si)
{
	return ptrace(PTRACE_GETSIGINFO, tid, NULL, si) < 0 ? -errno : 0;
}

static int sys_peek(void *ctx, pid_t tid, uint64_t addr, uint64_t *val)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)addr, NULL);
	if (v == -1 && errno)
		return -errno;
	*val = (uint64_t)v;
	return 0;
}

static int sys_eventmsg(void *ctx, pid_t tid, unsigned long *msg)
{
	return ptrace(PTRACE_GETEVENTMSG, tid, NULL, msg) < 0 ? -errno : 0;
}

static int sys_cont(void *ctx, pid_t tid, int sig)
{
	return ptrace(PTRACE_SYSCALL, tid, NULL, (void *)(long)sig) < 0 ? -errno
									: 0;
}

static int sys_setregs(void *ctx, pid_t tid,
		       const struct user_regs_struct *regs)
{
	return ptrace(PTRACE_SETREGS, tid, NULL, regs) < 0 ? -errno : 0;
}

static int sys_poke(void *ctx, pid_t tid, uint64_t addr, uint64_t val)
{
	return ptrace(PTRACE_POKEDATA, tid, (void *)(uintptr_t)addr,
		      (void *)(uintptr_t)val) < 0
		   ? -errno
		   : 0;
}

const struct emu_ptrace_ops emu_ptrace_sys = {
    .wait = sys_wait,
    .step = sys_step,
    .getregs = sys_getregs,
    .getsiginfo = sys_getsiginfo,
    .peek = sys_peek,
    .eventmsg = sys_eventmsg,
    .cont = sys_cont,
    .setregs = sys_setregs,
    .poke = sys_poke,
};

/* The command's side of the fork: traced, stopped before its exec. */
static void child_exec(char *const argv[], bool no_aslr, int fd)
{
	int e;

	qpt_target_reset_signals();
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
		e = -errno; /* negative: tracing, not the command, failed */
		if (write(fd, &e, sizeof(e)) < 0)
			_exit(126);
		_exit(126);
	}
	if (no_aslr)
		personality(ADDR_NO_RANDOMIZE);
	raise(SIGSTOP);
	execvp(argv[0], argv);
	e = errno;
	if (write(fd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int emu_ptrace_detach(pid_t tid, int sig)
{
	if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig) < 0 &&
	    errno != ESRCH)
		return -errno;
	return 0;
}

/*
 * Kill @pid (-1: every tracee) and wait until it is gone.  A tracee killed
 * while traced still stops at PTRACE_EVENT_EXIT (and one already there
 * does not die of SIGKILL): each stop is continued.
 */
void emu_ptrace_reap(pid_t pid)
{
	int status;
	pid_t w;

	if (pid > 0)
		kill(pid, SIGKILL);
	for (;;) {
		w = waitpid(pid, &status, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, w, NULL, NULL);
		else if (w == pid)
			break;
	}
}

int emu_ptrace_launch(char *const argv[], bool no_aslr, long options,
		      pid_t *child, bool *exec_failed)
{
	int pfd[2], status, e = 0;
	pid_t pid;

	*exec_failed = false;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	if (!pid)
		child_exec(argv, no_aslr, pfd[1]);
	close(pfd[1]);
	*child = pid;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		goto failed;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options) < 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		goto failed;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    status >> 16 != PTRACE_EVENT_EXEC)
		goto failed;
	close(pfd[0]);
	return 0;

failed:
	if (read(pfd[0], &e, sizeof(e)) != sizeof(e))
		e = ECHILD;
	close(pfd[0]);
	emu_ptrace_reap(pid);
	if (e < 0)
		return e; /* negative: tracing, not the command, failed */
	*exec_failed = true;
	return -e;
}
