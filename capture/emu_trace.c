// SPDX-License-Identifier: MIT
/*
 * The ptrace engine of the emulated Intel PT source.
 *
 * Each thread is single-stepped.  At every stop we know the instruction we
 * asked to execute (prev) and where the thread now is (cur); a completed
 * step hands (prev, cur) to the thread's packet generator.  A signal stop
 * means prev did not execute when cur == prev (a fault, or an asynchronous
 * signal taken before it): the generator then emits FUP(cur) + TIP.PGD and
 * re-enables at the handler.  Event stops (clone, exec, exit) and the
 * initial stop of a new thread execute nothing.
 */
#include "capture/emu_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/emu_insn.h"
#include "capture/emu_proc.h"
#include "capture/emu_pt.h"
#include "capture/emu_sideband.h"

struct emu_thread {
	pid_t tid, pid;
	struct emu_tracer *tr;
	struct emu_pt *pt;
	struct emu_proc *proc; /* shared by the process's threads */
	bool have_prev;
	bool leader; /* owns proc */
	uint64_t prev_ip;
	struct emu_insn prev;
	int inject;
	struct emu_thread *next;
};

struct emu_tracer {
	const struct emu_trace_opts *opts;
	struct emu_sb sb;
	struct emu_thread *threads;
	struct emu_trace_result *res;
	pid_t child;
};

static void logf_(struct emu_tracer *tr, enum qpt_log_level lvl,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void logf_(struct emu_tracer *tr, enum qpt_log_level lvl,
		  const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!tr->opts->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tr->opts->log(lvl, msg, tr->opts->log_ctx);
}

/* The emulated TSC is the host clock in perf's time base (nanoseconds of
 * CLOCK_MONOTONIC), with time_mult 1 and time_shift 0 in AUXTRACE_INFO;
 * the crystal and core clocks derive from it (emu_pt.h). */
static uint64_t emu_tsc(void *ctx)
{
	return emu_sb_time();
}

static int pt_out(void *ctx, const uint8_t *buf, size_t len)
{
	struct emu_thread *t = ctx;

	return t->tr->sb.ops->aux(t->tr->sb.ctx, t->tid, buf, len);
}

static struct emu_thread *find_thread(struct emu_tracer *tr, pid_t tid)
{
	struct emu_thread *t;

	for (t = tr->threads; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static struct emu_proc *find_proc(struct emu_tracer *tr, pid_t pid)
{
	struct emu_thread *t;

	for (t = tr->threads; t; t = t->next)
		if (t->pid == pid && t->proc)
			return t->proc;
	return NULL;
}

static uint64_t peek_user(pid_t tid, size_t off)
{
	errno = 0;
	return (uint64_t)ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
}

static uint64_t get_ip(pid_t tid)
{
	return peek_user(tid, offsetof(struct user_regs_struct, rip));
}

/* Tgid and PPid of @tid from /proc. */
static int task_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
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

static bool signal_caught(pid_t tid, int sig)
{
	char name[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7))
			mask = strtoull(line + 7, NULL, 16);
	fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

static void read_comm(pid_t pid, char comm[16])
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

struct map_ctx {
	struct emu_tracer *tr;
	struct emu_thread *t;
};

static int dump_vdso(struct emu_thread *t, const struct emu_map *map,
		     const char *path)
{
	size_t len = (size_t)(map->end - map->start);
	struct iovec local, remote;
	uint8_t *buf;
	FILE *f;
	int err = 0;

	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)map->start;
	remote.iov_len = len;
	if (process_vm_readv(t->pid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)len) {
		err = -errno;
		goto out;
	}
	f = fopen(path, "we");
	if (!f) {
		err = -errno;
		goto out;
	}
	if (fwrite(buf, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
out:
	free(buf);
	return err;
}

static int on_map(void *ctx, const struct emu_map *map)
{
	struct map_ctx *mc = ctx;
	const char *name = map->path;
	int err;

	if (!strcmp(name, "[vsyscall]"))
		return 0;
	if (!strcmp(name, "[vdso]") && mc->tr->opts->vdso_path) {
		err = dump_vdso(mc->t, map, mc->tr->opts->vdso_path);
		if (err < 0)
			logf_(mc->tr, QPT_LOG_WARN, "cannot keep [vdso]: %s",
			      strerror(-err));
		else
			name = mc->tr->opts->vdso_path;
	}
	return emu_sb_mmap2(&mc->tr->sb, mc->t->pid, mc->t->tid, map, name);
}

static int scan_maps(struct emu_thread *t, bool reset)
{
	struct map_ctx mc = {t->tr, t};

	return emu_proc_scan_maps(t->proc, reset, on_map, &mc);
}

static struct emu_thread *add_thread(struct emu_tracer *tr, pid_t tid,
				     pid_t pid)
{
	struct emu_pt_opts po = {
	    .retcomp = tr->opts->retcomp,
	    .psb_period = tr->opts->psb_period,
	    .chunk = tr->opts->chunk,
	    .clock = tr->opts->tsc || tr->opts->mtc || tr->opts->cyc ?
			 emu_tsc : NULL,
	    .tsc = tr->opts->tsc,
	    .mtc = tr->opts->mtc,
	    .cyc = tr->opts->cyc,
	    .mtc_period = tr->opts->mtc_period,
	    .cyc_thresh = tr->opts->cyc_thresh,
	};
	struct emu_thread *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->tr = tr;
	t->pt = emu_pt_new(&po, pt_out, t);
	t->proc = find_proc(tr, pid);
	if (!t->proc) {
		t->proc = emu_proc_new(pid);
		t->leader = true;
	}
	if (!t->pt || !t->proc) {
		emu_pt_free(t->pt);
		if (t->leader)
			emu_proc_free(t->proc);
		free(t);
		return NULL;
	}
	t->next = tr->threads;
	tr->threads = t;
	tr->res->threads++;
	return t;
}

/* Sink announcements and PSB+ for a thread that starts being traced. */
static int start_thread(struct emu_thread *t)
{
	struct emu_tracer *tr = t->tr;
	int err;

	err = tr->sb.ops->thread_new(tr->sb.ctx, t->pid, t->tid);
	if (!err)
		err = emu_sb_itrace_start(&tr->sb, t->pid, t->tid);
	if (!err)
		err = emu_pt_start(t->pt);
	return err;
}

static void drop_thread(struct emu_tracer *tr, struct emu_thread *t)
{
	struct emu_thread **pp, *o;

	for (pp = &tr->threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	if (t->leader) {
		/* hand the process over to a remaining thread */
		for (o = tr->threads; o; o = o->next)
			if (o->proc == t->proc) {
				o->leader = true;
				break;
			}
		if (!o)
			emu_proc_free(t->proc);
	}
	emu_pt_free(t->pt);
	free(t);
}

static int classify_at(struct emu_thread *t, uint64_t ip)
{
	uint8_t buf[16];
	size_t n;
	int err;

	/* code outside the announced mappings (mapped by other means than
	 * this thread's syscalls): look at the maps again */
	if (!emu_proc_known(t->proc, ip)) {
		emu_proc_flush_code(t->proc);
		err = scan_maps(t, false);
		if (err)
			return err;
	}
	n = emu_proc_code(t->proc, ip, buf, sizeof(buf));
	if (!n || emu_insn_classify(buf, n, &t->prev) < 0) {
		t->prev.cls = EMU_INSN_OTHER;
		t->prev.len = 0;
	}
	t->prev_ip = ip;
	t->have_prev = true;
	return 0;
}

static bool maps_may_change(long nr)
{
	return nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_munmap ||
	       nr == SYS_mremap || nr == SYS_shmat ||
	       nr == SYS_remap_file_pages;
}

/* prev retired; execution continues at @cur. */
static int complete(struct emu_thread *t, uint64_t cur)
{
	int err;

	t->have_prev = false;
	t->tr->res->insns++;
	err = emu_pt_insn(t->pt, t->prev_ip, &t->prev, cur);
	if (err < 0 || t->prev.cls != EMU_INSN_FAR)
		return err;
	if (maps_may_change((long)peek_user(
		t->tid, offsetof(struct user_regs_struct, orig_rax)))) {
		emu_proc_flush_code(t->proc);
		err = scan_maps(t, false);
	}
	return err;
}

static int on_step(struct emu_thread *t)
{
	uint64_t cur = get_ip(t->tid);
	int err = 0;

	if (t->have_prev)
		err = complete(t, cur);
	if (!err)
		err = classify_at(t, cur);
	return err;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static int on_signal(struct emu_thread *t, int sig)
{
	uint64_t cur = get_ip(t->tid);
	siginfo_t si;
	int err = 0;

	/* A group-stop (after a stop signal was delivered) is reported like
	 * a signal stop but has no siginfo: nothing executes, nothing is
	 * injected; stepping on resumes the thread, as a debugger would. */
	if (is_stop_signal(sig) &&
	    ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0 && errno == EINVAL)
		return 0;

	if (t->have_prev && t->prev_ip != cur)
		err = complete(t, cur);
	t->have_prev = false;
	t->inject = sig;
	if (err)
		return err;
	if (!signal_caught(t->tid, sig))
		/* ignored or fatal: no handler runs; cur executes next */
		return classify_at(t, cur);
	return emu_pt_async(t->pt, cur);
}

/* The thread stops being traced (exit) or its image goes (exec). */
static int finish_prev(struct emu_thread *t)
{
	if (!t->have_prev)
		return 0;
	if (t->prev.cls == EMU_INSN_FAR)
		return complete(t, 0);
	t->have_prev = false;
	return emu_pt_async(t->pt, t->prev_ip);
}

static int on_exec(struct emu_thread *t, bool first)
{
	struct emu_tracer *tr = t->tr;
	char comm[16];
	int err = 0;

	if (first)
		err = start_thread(t);
	else
		err = finish_prev(t);
	t->have_prev = false;
	/* the old image's trace reaches the ring before the COMM and MMAP2s
	 * of the new one, so that readers know which code it ran on */
	if (!err && !first)
		err = emu_pt_flush(t->pt);
	if (err)
		return err;
	read_comm(t->pid, comm);
	err = emu_sb_comm(&tr->sb, t->pid, t->tid, comm, true);
	if (err)
		return err;
	emu_proc_flush_code(t->proc);
	return scan_maps(t, true);
}

static int on_exit_event(struct emu_thread *t)
{
	pid_t tgid = t->pid, ppid = 0;
	int err;

	err = finish_prev(t);
	if (!err)
		err = emu_pt_flush(t->pt);
	task_ids(t->tid, &tgid, &ppid);
	if (!err)
		err = emu_sb_task(&t->tr->sb, PERF_RECORD_EXIT, t->pid,
				  t->tid == t->pid ? ppid : t->pid, t->tid,
				  t->tid == t->pid ? ppid : t->pid);
	return err;
}

/* A stop of a task we do not know yet: a new thread or child process. */
static int on_new_task(struct emu_tracer *tr, pid_t tid, int sig)
{
	struct emu_thread *t;
	pid_t tgid, ppid;
	char comm[16];
	bool process;
	int err;

	err = task_ids(tid, &tgid, &ppid);
	if (err)
		return err;
	process = tgid == tid;
	t = add_thread(tr, tid, tgid);
	if (!t)
		return -ENOMEM;
	t->inject = sig == SIGSTOP ? 0 : sig;
	err = start_thread(t);
	if (!err)
		err = emu_sb_task(&tr->sb, PERF_RECORD_FORK, tgid,
				  process ? ppid : tgid, tid,
				  process ? ppid : tgid);
	if (err || !process)
		return err;
	read_comm(tid, comm);
	err = emu_sb_comm(&tr->sb, tgid, tid, comm, false);
	return err ? err : scan_maps(t, true);
}

static int resume(struct emu_thread *t)
{
	int sig = t->inject;

	t->inject = 0;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, (void *)(long)sig) < 0 &&
	    errno != ESRCH)
		return -errno;
	return 0;
}

static int on_stop(struct emu_tracer *tr, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct emu_thread *t = find_thread(tr, tid);
	int err = 0;

	if (!t) {
		err = on_new_task(tr, tid, event ? SIGSTOP : sig);
		t = find_thread(tr, tid);
		if (err || !t)
			return err;
		return resume(t);
	}
	switch (event) {
	case 0:
		if (sig == SIGTRAP)
			err = on_step(t);
		else
			err = on_signal(t, sig);
		break;
	case PTRACE_EVENT_EXEC:
		err = on_exec(t, false);
		break;
	case PTRACE_EVENT_EXIT:
		err = on_exit_event(t);
		break;
	default: /* clone, fork, vfork: the new task reports itself */
		break;
	}
	if (err)
		return err;
	return resume(t);
}

/* The thread is gone: its last bytes out, its ring closed. */
static int end_thread(struct emu_tracer *tr, struct emu_thread *t)
{
	int err;

	err = emu_pt_flush(t->pt);
	tr->res->bytes += emu_pt_bytes(t->pt);
	if (!err)
		err = tr->sb.ops->thread_exit(tr->sb.ctx, t->tid);
	drop_thread(tr, t);
	return err;
}

static int on_gone(struct emu_tracer *tr, pid_t tid, int status)
{
	struct emu_thread *t = find_thread(tr, tid);

	if (tid == tr->child)
		tr->res->exit_status = WIFEXITED(status)
					   ? WEXITSTATUS(status)
					   : 128 + WTERMSIG(status);
	return t ? end_thread(tr, t) : 0;
}

/* Every few thousand stops: staged bytes into the AUX area, then the
 * sink's poll (snapshot requests). */
static int tick(struct emu_tracer *tr)
{
	struct emu_thread *t;
	int err;

	for (t = tr->threads; t; t = t->next) {
		err = emu_pt_drain(t->pt);
		if (err)
			return err;
	}
	return tr->sb.ops->poll ? tr->sb.ops->poll(tr->sb.ctx, tr->res->insns)
				: 0;
}

static int loop(struct emu_tracer *tr)
{
	int status, err = 0;
	unsigned int stops = 0;
	pid_t tid;

	while (tr->threads) {
		if (!(++stops & 4095)) {
			err = tick(tr);
			if (err)
				return err;
		}
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 0 : -errno;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			err = on_gone(tr, tid, status);
			if (err)
				return err;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		err = on_stop(tr, tid, status);
		if (err)
			return err;
	}
	return 0;
}

static void child_exec(char *const argv[], bool no_aslr, int fd)
{
	int e;

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

/*
 * Kill @pid (-1: every tracee) and wait until it is gone.  A tracee killed
 * while traced still stops at PTRACE_EVENT_EXIT (and one already there
 * does not die of SIGKILL): each stop is continued.
 */
static void reap(pid_t pid)
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

/* Fork the command and bring it to its exec stop. */
static int launch(struct emu_tracer *tr, char *const argv[])
{
	long options = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE |
		       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	int pfd[2], status, e = 0;
	struct emu_thread *t;
	pid_t pid;

	if (tr->opts->inherit)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
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
		child_exec(argv, tr->opts->no_aslr, pfd[1]);
	close(pfd[1]);
	tr->child = pid;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		goto failed;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options) < 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		goto failed;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    status >> 16 != PTRACE_EVENT_EXEC)
		goto failed;
	close(pfd[0]);
	t = add_thread(tr, pid, pid);
	if (!t)
		return -ENOMEM;
	return on_exec(t, true);

failed:
	if (read(pfd[0], &e, sizeof(e)) != sizeof(e))
		e = ECHILD;
	close(pfd[0]);
	reap(pid);
	if (e < 0) {
		logf_(tr, QPT_LOG_WARN, "cannot trace the command: %s",
		      strerror(-e));
		return e;
	}
	tr->res->exec_failed = true;
	return -e;
}

int emu_trace_run(char *const argv[], const struct emu_trace_opts *opts,
		  const struct emu_sink_ops *sink, void *sink_ctx,
		  struct emu_trace_result *res)
{
	struct emu_tracer tr = {
	    .opts = opts,
	    .sb = {sink, sink_ctx, opts->sample_id},
	    .res = res,
	};
	struct emu_thread *t;
	int err;

	memset(res, 0, sizeof(*res));
	err = launch(&tr, argv);
	if (!err) {
		t = tr.threads;
		err = resume(t);
	}
	if (!err)
		err = loop(&tr);
	/* threads that vanished unreported (a non-leader's exec) */
	while (!err && tr.threads)
		err = end_thread(&tr, tr.threads);
	if (err && tr.child > 0 && !res->exec_failed) {
		for (t = tr.threads; t; t = t->next)
			kill(t->tid, SIGKILL);
		kill(tr.child, SIGKILL);
		while (tr.threads)
			drop_thread(&tr, tr.threads);
		reap(-1);
	}
	return err;
}
