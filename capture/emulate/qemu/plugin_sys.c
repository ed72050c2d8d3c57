// SPDX-License-Identifier: MIT
/*
 * The guest's system calls that matter to its trace: fork (the child's
 * own stream), exec (QEMU does not follow it: the trace ends there),
 * mappings that come, go or change (code announced again), signal
 * handlers set (plugin_sig.c), its name (COMM); in snapshot mode each
 * call hands the thread's bytes on, so that a snapshot finds them while
 * the thread waits in the kernel.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture/emulate/qemu/plugin.h"

/* A guest string into @buf (NUL-terminated, maybe cut). */
static void guest_string(uint64_t addr, char *buf, size_t size)
{
	size_t n;

	buf[0] = '\0';
	for (n = 0; n + 1 < size; n++) {
		if (qp_guest_read(addr + n, &buf[n], 1) || !buf[n])
			break;
	}
	buf[n] = '\0';
}

static void exec_enter(struct qthread *t, uint64_t path)
{
	struct qemu_slot_ctl *ctl = t->ctl;

	guest_string(path, ctl->exec_path, sizeof(ctl->exec_path));
	if (emu_pt_flush(t->pt))
		t->dead = true;
	__atomic_or_fetch(&ctl->flags, QEMU_SLOT_EXEC, __ATOMIC_RELEASE);
	qp_notify();
}

void qp_sys_enter(struct qthread *t, int64_t num, const uint64_t *a)
{
	uint64_t flags = 0;

	memcpy(t->sys_args, a, sizeof(t->sys_args));
	switch (num) {
	case SYS_execve:
		exec_enter(t, a[0]);
		break;
	case SYS_execveat:
		exec_enter(t, a[1]);
		break;
	case SYS_rt_sigaction:
		if (a[1])
			qp_sig_action((int)a[0], a[1]);
		break;
	case SYS_munmap:
		qp_maps_changed(a[0], a[1]);
		break;
	case SYS_clone3:
		if (qp_guest_read(a[0], &flags, sizeof(flags)))
			flags = 0;
		t->sys_args[0] = flags;
		break;
	}
	if (qp.arena->snapshot && !t->dead) {
		if (emu_pt_drain(t->pt))
			t->dead = true;
		__atomic_or_fetch(&t->ctl->flags, QEMU_SLOT_PARKED,
				  __ATOMIC_RELEASE);
	}
}

static bool is_fork(struct qthread *t, int64_t num)
{
	if (num == SYS_fork || num == SYS_vfork)
		return true;
	return (num == SYS_clone || num == SYS_clone3) && t &&
	       !(t->sys_args[0] & CLONE_VM);
}

void qp_sys_ret(struct qthread *t, int64_t num, int64_t ret)
{
	char comm[17];

	if (ret == 0 && is_fork(t, num) && getpid() != qp.pid) {
		qp_forked(qp.pid);
		return;
	}
	if (!t || t->dead)
		return;
	if (qp.timing)
		t->now = emu_sb_time(); /* back from the kernel */
	__atomic_and_fetch(&t->ctl->flags, ~QEMU_SLOT_PARKED, __ATOMIC_RELEASE);
	if (ret < 0 && ret > -4096) {
		if (num == SYS_execve || num == SYS_execveat)
			__atomic_and_fetch(&t->ctl->flags, ~QEMU_SLOT_EXEC,
					   __ATOMIC_RELEASE);
		return;
	}
	switch (num) {
	case SYS_mmap:
		qp_maps_changed((uint64_t)ret, t->sys_args[1]);
		break;
	case SYS_mprotect:
		qp_maps_changed(t->sys_args[0], t->sys_args[1]);
		break;
	case SYS_mremap:
		qp_maps_changed(t->sys_args[0], t->sys_args[1]);
		qp_maps_changed((uint64_t)ret, t->sys_args[2]);
		break;
	case SYS_prctl:
		if (t->sys_args[0] != PR_SET_NAME)
			break;
		guest_string(t->sys_args[1], comm, sizeof(comm));
		emu_sb_comm(&qp.sb, t->pid, t->tid, comm, false);
		break;
	}
}
