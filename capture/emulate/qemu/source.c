// SPDX-License-Identifier: MIT
/*
 * The QEMU source of a recording (rec_source_qemu, see source.h): the
 * arena and the JIT file made, the CPU QEMU emulates asked (its CPUID in
 * the recording), the command started under qemu-x86_64 with the plugin,
 * its slots drained while it runs, --snapshot-on hits snapshotted, and
 * at its end (or at the recording's) every slot ended, the crash facts
 * of a command that died of a signal written.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/emulate/header.h"
#include "capture/emulate/qemu/source.h"
#include "capture/emulate/sideband.h"
#include "capture/emulate/trigger.h"
#include "qpt/writer.h"

#ifndef QPT_QEMU_PLUGIN_DEFAULT
#define QPT_QEMU_PLUGIN_DEFAULT "/usr/local/lib/qpt/qpt-qemu.so"
#endif

/* The descriptors QEMU inherits, moved out of the guest's usual way. */
#define QEMU_FD_BASE 900

static struct qemu_src *src_of(const struct qpt_recorder *rec)
{
	return rec->src_priv;
}

/* @name as execvp finds it: as given when it has a '/', else the first
 * DIR/@name of PATH that may be run. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : strdup(name);
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p,
			     name) >= (int)sizeof(buf))
			continue;
		if (!access(buf, X_OK))
			return strdup(buf);
	}
	return NULL;
}

/* Run @argv with its standard output into @buf (@size bytes at most):
 * the bytes read, or -errno. */
static ssize_t run_capture(char *const argv[], void *buf, size_t size)
{
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((size_t)got < size &&
	       (n = read(fds[0], (char *)buf + got, size - (size_t)got)) > 0)
		got += n;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -ENOEXEC;
	return got;
}

/* The CPU QEMU emulates, as CPUID shows it to a guest (qpt-qemu-cpuid
 * beside the plugin): perf's "vendor,family,model,stepping". */
static int probe_cpu(struct qemu_src *qs)
{
	uint32_t r[6][4], fam, model;
	char probe[PATH_MAX], vendor[13];
	char *argv[] = {qs->qemu, probe, NULL};
	const char *slash = strrchr(qs->plugin, '/');
	ssize_t n;

	snprintf(probe, sizeof(probe), "%.*s/qpt-qemu-cpuid",
		 slash ? (int)(slash - qs->plugin) : 1,
		 slash ? qs->plugin : ".");
	n = run_capture(argv, r, sizeof(r));
	if (n != (ssize_t)sizeof(r))
		return rec_fail(qs->rec, n < 0 ? (int)n : -ENOEXEC,
				"%s: cannot run %s under it: %s", qs->qemu,
				probe, strerror(n < 0 ? (int)-n : ENOEXEC));
	memcpy(vendor, &r[0][1], 4);
	memcpy(vendor + 4, &r[0][3], 4);
	memcpy(vendor + 8, &r[0][2], 4);
	vendor[12] = '\0';
	fam = r[1][0] >> 8 & 15;
	model = r[1][0] >> 4 & 15;
	if (fam == 15)
		fam += r[1][0] >> 20 & 255;
	if (fam == 6 || fam >= 15)
		model += (r[1][0] >> 16 & 15) << 4;
	snprintf(qs->cpuid, sizeof(qs->cpuid), "%s,%u,%u,%u", vendor, fam,
		 model, r[1][0] & 15);
	if (r[2][0] >= 0x80000004) {
		memcpy(qs->cpudesc, r[3], 48);
		qs->cpudesc[48] = '\0';
	}
	return 0;
}

static uint64_t arena_bytes(uint64_t data, uint64_t aux)
{
	return qemu_arena_hdr_size() +
	       QEMU_ARENA_SLOTS * qemu_slot_size(data, aux);
}

/* The arena and what the plugin is asked, from the options. */
static int make_arena(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	uint64_t page = QEMU_ARENA_PAGE, c;
	uint64_t data = rec->data_pages * page, aux = rec->aux_pages * page;
	struct qemu_arena *a;

	qs->arena_size = arena_bytes(data, aux);
	qs->arena_fd = memfd_create("qpt-qemu", MFD_CLOEXEC);
	if (qs->arena_fd < 0 || ftruncate(qs->arena_fd, (off_t)qs->arena_size))
		return -errno;
	a = mmap(NULL, qs->arena_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 qs->arena_fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	qs->arena = a;
	a->magic = QEMU_ARENA_MAGIC;
	a->version = QEMU_ARENA_VERSION;
	a->nr_slots = QEMU_ARENA_SLOTS;
	a->size = qs->arena_size;
	a->slot_size = qemu_slot_size(data, aux);
	a->data_size = data;
	a->aux_size = aux;
	c = qpt_event_attr(rec->aux_ev)->config;
	a->snapshot = rec->o.snapshot;
	a->retcomp = !(c >> 11 & 1);
	a->tsc = c >> 10 & 1;
	a->mtc = c >> 9 & 1;
	a->cyc = c >> 1 & 1;
	a->mtc_period = (uint8_t)(c >> 14 & 15);
	a->cyc_thresh = (uint8_t)(c >> 19 & 15);
	a->psb_period = 1u << ((c >> 24 & 15) + 11);
	/* a reader keeps up at half the area, as perf's aux_watermark */
	a->chunk = (uint32_t)(aux / 2 < 8192 ? aux / 2 : 8192);
	a->consumer = getpid();
	a->notify_fd = QEMU_FD_BASE + 1;
	a->stderr_fd = QEMU_FD_BASE + 3;
	a->jit_fd = qs->jit_fd >= 0 ? QEMU_FD_BASE + 2 : -1;
	if (qs->jit_path)
		snprintf(a->jit_path, sizeof(a->jit_path), "%s", qs->jit_path);
	snprintf(a->comm, sizeof(a->comm), "%s",
		 strrchr(rec->o.argv[0], '/') ? strrchr(rec->o.argv[0], '/') + 1
					      : rec->o.argv[0]);
	if (rec->o.snapshot_on)
		snprintf(a->snapshot_on, sizeof(a->snapshot_on), "%s",
			 rec->o.snapshot_on);
	qs->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return qs->notify_fd < 0 ? -errno : 0;
}

/* OUTPUT.jit, where JIT code's bytes go (none in pipe mode). */
static int make_jit_file(struct qemu_src *qs)
{
	const char *out = qs->rec->o.output;
	char *abs;

	qs->jit_fd = -1;
	if (!strcmp(out, "-"))
		return 0;
	if (asprintf(&qs->jit_path, "%s.jit", out) < 0) {
		qs->jit_path = NULL;
		return -ENOMEM;
	}
	qs->jit_fd =
	    open(qs->jit_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (qs->jit_fd < 0)
		return rec_fail(qs->rec, -errno, "%s: %s", qs->jit_path,
				strerror(errno));
	abs = realpath(qs->jit_path, NULL);
	if (!abs)
		return -errno;
	free(qs->jit_path);
	qs->jit_path = abs;
	return 0;
}

static int check_setup(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	const char *q = rec->o.qemu ? rec->o.qemu : "qemu-x86_64";
	const char *plugin =
	    rec->o.qemu_plugin ? rec->o.qemu_plugin : QPT_QEMU_PLUGIN_DEFAULT;
	struct emu_trigger trig;
	char *found;

	if (rec->o.snapshot_on &&
	    (!rec->o.snapshot || emu_trigger_parse(&trig, rec->o.snapshot_on)))
		return rec_fail(rec, -QPT_E_INVAL,
				"--snapshot-on needs snapshot mode and "
				"SYMBOL[+OFF]");
	found = find_program(q);
	qs->qemu = found ? realpath(found, NULL) : NULL;
	free(found);
	if (!qs->qemu)
		return rec_fail(rec, -ENOENT,
				"%s: not found (Debian's qemu-user has it; or "
				"give --qemu PATH)",
				q);
	if (access(plugin, R_OK))
		return rec_fail(rec, -errno, "%s: %s (qpt's QEMU plugin)",
				plugin, strerror(errno));
	qs->plugin = strdup(plugin);
	return qs->plugin ? 0 : -ENOMEM;
}

static int qemu_open(struct qpt_recorder *rec)
{
	struct qemu_src *qs;
	int err;

	err = emu_check_opts(rec);
	if (err < 0)
		return err;
	qs = calloc(1, sizeof(*qs));
	if (!qs)
		return -ENOMEM;
	rec->src_priv = qs;
	qs->rec = rec;
	qs->arena_fd = qs->notify_fd = qs->jit_fd = qs->err_pipe = -1;
	err = check_setup(qs);
	if (!err)
		err = probe_cpu(qs);
	if (!err)
		err = make_jit_file(qs);
	if (!err)
		err = make_arena(qs);
	if (!err)
		err = emu_write_header(rec, qpt_event_attr(rec->aux_ev)->config,
				       qs->cpuid);
	if (!err && qs->cpudesc[0])
		err = qpt_writer_set_feature_string(
		    rec->writer, QPT_FEAT_CPUDESC, qs->cpudesc);
	if (err < 0 && rec->o.errbuf && !rec->o.errbuf[0])
		rec_fail(rec, err, "%s", qpt_strerror(err));
	return err;
}

/* Descriptor @fd as @to, kept across exec. */
static int keep_fd(int fd, int to)
{
	return fd < 0 || dup2(fd, to) == to ? 0 : -1;
}

/* The interpreter of a script @path ("#!INTERP [ARG]"), as the kernel
 * reads it into @line: 0 with *@interp (and *@arg or NULL), or -1. */
static int script_of(const char *path, char *line, size_t size, char **interp,
		     char **arg)
{
	ssize_t n;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, line, size - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	p = line + 2 + strspn(line + 2, " \t");
	*interp = p;
	p += strcspn(p, " \t");
	*arg = NULL;
	if (*p) {
		*p++ = '\0';
		p += strspn(p, " \t");
		if (*p)
			*arg = p;
	}
	return **interp ? 0 : -1;
}

/* In the child: the command under QEMU with the plugin (a script's
 * interpreter, which QEMU does not find itself); QEMU's standard error
 * into @qemu_err until the plugin puts the command's back. */
static void exec_qemu(struct qemu_src *qs, int err_fd, int qemu_err)
{
	struct qpt_recorder *rec = qs->rec;
	char plugin[PATH_MAX + 32], line[256], *interp, *arg, *path;
	size_t argc = 0, i;
	char **argv;
	int e;

	for (argc = 0; rec->o.argv[argc]; argc++)
		;
	argv = calloc(argc + 10, sizeof(*argv));
	path = find_program(rec->o.argv[0]);
	if (!rec->o.aslr)
		personality(ADDR_NO_RANDOMIZE);
	snprintf(plugin, sizeof(plugin), "%s,arena=%d", qs->plugin,
		 QEMU_FD_BASE);
	errno = ENOENT;
	if (argv && path && !keep_fd(qs->arena_fd, QEMU_FD_BASE) &&
	    !keep_fd(qs->notify_fd, QEMU_FD_BASE + 1) &&
	    !keep_fd(qs->jit_fd, QEMU_FD_BASE + 2) &&
	    !keep_fd(STDERR_FILENO, QEMU_FD_BASE + 3) &&
	    dup2(qemu_err, STDERR_FILENO) == STDERR_FILENO) {
		i = 0;
		argv[i++] = qs->qemu;
		argv[i++] = (char *)"-plugin";
		argv[i++] = plugin;
		argv[i++] = (char *)"-0";
		if (!script_of(path, line, sizeof(line), &interp, &arg)) {
			argv[i++] = interp;
			argv[i++] = interp;
			if (arg)
				argv[i++] = arg;
			argv[i++] = rec->o.argv[0];
		} else {
			argv[i++] = rec->o.argv[0];
			argv[i++] = path;
		}
		memcpy(&argv[i], &rec->o.argv[1], argc * sizeof(*argv));
		execv(qs->qemu, argv);
	}
	e = errno ? errno : ENOENT;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* QEMU ended without the plugin: what it said (its first line). */
static int not_loaded(struct qemu_src *qs)
{
	char msg[512];
	ssize_t n = -1;

	if (qs->err_pipe >= 0)
		n = read(qs->err_pipe, msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	if (qs->arena->error[0])
		snprintf(msg, sizeof(msg), "%s", qs->arena->error);
	return rec_fail(qs->rec, -QPT_E_STATE, "%s: %s did not load it: %s",
			qs->plugin, qs->qemu,
			msg[0] ? msg : "(it said nothing)");
}

static bool any_slot(const struct qemu_src *qs)
{
	uint32_t i;

	for (i = 0; i < qs->arena->nr_slots; i++)
		if (__atomic_load_n(&qs->arena->state[i], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* QEMU runs the command (its first thread took a slot), or it ended
 * before: it did not load the plugin, or could not run the command
 * (exit 127, as a shell). */
static int wait_first_thread(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	struct pollfd p = {qs->notify_fd, POLLIN, 0};
	pid_t r;

	while (!any_slot(qs)) {
		r = waitpid(qs->child, &rec->status, WNOHANG);
		if (r == qs->child)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (rec_stop_signal(rec))
			return 0; /* the stop ends it */
		poll(&p, 1, 10);
	}
	if (any_slot(qs))
		return 0;
	qs->done = true;
	if (!__atomic_load_n(&qs->arena->installed, __ATOMIC_ACQUIRE))
		return not_loaded(qs);
	rec->exec_failed = true;
	return rec_fail(
	    rec, -ENOEXEC, "%s: QEMU cannot run it (%s)", rec->o.argv[0],
	    WIFEXITED(rec->status) ? "not an x86-64 program?" : "QEMU died");
}

static int qemu_start(struct qpt_recorder *rec)
{
	struct qemu_src *qs = src_of(rec);
	int fds[2], errs[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (pipe2(errs, O_CLOEXEC)) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		close(errs[0]);
		close(errs[1]);
		return -errno;
	}
	if (!pid) {
		close(fds[0]);
		exec_qemu(qs, fds[1], errs[1]);
	}
	close(fds[1]);
	close(errs[1]);
	qs->err_pipe = errs[0];
	n = read(fds[0], &e, sizeof(e));
	close(fds[0]);
	rec->child = qs->child = pid;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, &rec->status, 0);
		qs->done = true;
		return rec_fail(rec, -e, "%s: %s", qs->qemu, strerror(e));
	}
	return wait_first_thread(qs);
}

/* --snapshot-on hits the plugin reported: a trigger fact and a snapshot
 * each (the thread that hit waits for it). */
static int fire_triggers(struct qemu_src *qs)
{
	struct qemu_arena *a = qs->arena;
	uint32_t head = __atomic_load_n(&a->trig_head, __ATOMIC_ACQUIRE);
	struct user_regs_struct regs;
	const struct qemu_trigger *tg;
	int64_t n;
	int err;

	while (qs->trig_seen != head) {
		tg = &a->trig[qs->trig_seen % QEMU_TRIGGERS];
		memset(&regs, 0, sizeof(regs));
		regs.rip = tg->ip;
		err = crash_add(&qs->crashes, QPT_CRASH_TRIGGER, tg->pid,
				tg->tid, NULL, &regs, NULL, 0, tg->time, NULL, 0);
		if (err)
			return err;
		qs->crashes.list[qs->crashes.nr - 1].nr_regs = 0;
		n = qsrc_snapshot(qs);
		if (n < 0)
			return (int)n;
		qs->trig_seen++;
		__atomic_store_n(&a->trig_done, qs->trig_seen,
				 __ATOMIC_RELEASE);
	}
	return 0;
}

/* The command died of a crash signal: what the trace says of it (no
 * registers: QEMU's are its own). */
static int crash_fact(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	uint64_t sigs = rec->o.crash_signals ? rec->o.crash_signals
					     : crash_default_signals();
	struct user_regs_struct regs;
	siginfo_t si;
	int sig, err;

	if (!WIFSIGNALED(rec->status))
		return 0;
	sig = WTERMSIG(rec->status);
	if (!(sigs >> (sig - 1) & 1) || !qs->crash_tid)
		return 0;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_KERNEL; /* which fault, QEMU does not say */
	memset(&regs, 0, sizeof(regs));
	regs.rip = qs->crash_ip;
	err = crash_add(&qs->crashes, QPT_CRASH_SIGNAL, qs->child,
			qs->crash_tid, &si, &regs, NULL, 0, emu_sb_time(),
			NULL, 0);
	if (!err)
		qs->crashes.list[qs->crashes.nr - 1].nr_regs = 0;
	return err;
}

/* The command is over: every slot ended, the file flushed. */
static int run_over(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	int err;

	qs->done = true;
	err = qsrc_drain(qs, true);
	if (!err)
		err = crash_fact(qs);
	if (!err && !__atomic_load_n(&qs->arena->installed, __ATOMIC_ACQUIRE))
		err = not_loaded(qs);
	if (!err)
		err = qpt_writer_flush(rec->writer);
	return err < 0 ? err : 1;
}

/* Reaped now, or still running (0). */
static int reap(struct qemu_src *qs, int options)
{
	pid_t r = waitpid(qs->child, &qs->rec->status, options);

	if (r == qs->child)
		return 1;
	return r < 0 && errno != EINTR ? -errno : 0;
}

static void wait_notify(struct qemu_src *qs, int timeout_ms)
{
	struct pollfd p = {qs->notify_fd, POLLIN, 0};
	uint64_t v;

	if (poll(&p, 1, timeout_ms) > 0 && read(qs->notify_fd, &v, 8) < 0)
		v = 0;
}

static int qemu_poll(struct qpt_recorder *rec, int timeout_ms)
{
	struct qemu_src *qs = src_of(rec);
	int err, r;

	if (!qs->child)
		return -QPT_E_STATE;
	if (qs->done)
		return 1;
	err = qsrc_drain(qs, false);
	if (!err)
		err = fire_triggers(qs);
	if (err)
		return err;
	r = reap(qs, WNOHANG);
	if (r)
		return r < 0 ? r : run_over(qs);
	/* QEMU's end wakes no one: look at least every 20 ms */
	wait_notify(qs, timeout_ms < 20 ? timeout_ms : 20);
	err = qsrc_drain(qs, false);
	return err ? err : qpt_writer_flush(rec->writer);
}

static int64_t qemu_snapshot(struct qpt_recorder *rec)
{
	return qsrc_snapshot(src_of(rec));
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The recording ends first: the command is ended as perf record ends
 * its workload (the stop signal, then SIGKILL), drained meanwhile. */
static int end_command(struct qemu_src *qs)
{
	struct qpt_recorder *rec = qs->rec;
	uint32_t grace = rec->o.stop_grace_ms ? rec->o.stop_grace_ms : 2000;
	int sig = rec_stop_signal(rec), r = 0, err = 0;
	uint64_t until = now_ms() + grace;
	bool killed = false;

	kill(qs->child, sig > 0 ? sig : SIGTERM);
	while (!err && !(r = reap(qs, WNOHANG))) {
		if (!killed && now_ms() >= until) {
			kill(qs->child, SIGKILL);
			killed = true;
		}
		wait_notify(qs, 10);
		err = qsrc_drain(qs, false);
	}
	return err ? err : r < 0 ? r : 0;
}

static int qemu_stop(struct qpt_recorder *rec)
{
	struct qemu_src *qs = src_of(rec);
	int err = 0, err2;

	if (qs->child && !qs->done) {
		err = end_command(qs);
		err2 = run_over(qs);
		if (!err && err2 < 0)
			err = err2;
	}
	err2 = crash_write(&qs->crashes, rec->writer);
	return err ? err : err2;
}

static void qemu_stats(const struct qpt_recorder *rec,
		       struct qpt_capture_stats *st)
{
	const struct qemu_src *qs = src_of(rec);

	if (qs && qs->arena)
		qsrc_stats(qs, st);
}

static void qemu_free(struct qpt_recorder *rec)
{
	struct qemu_src *qs = src_of(rec);

	if (!qs)
		return;
	if (qs->child && !qs->done) {
		kill(qs->child, SIGKILL);
		waitpid(qs->child, NULL, 0);
	}
	if (qs->arena)
		qsrc_slots_free(qs);
	if (qs->arena_fd >= 0)
		close(qs->arena_fd);
	if (qs->notify_fd >= 0)
		close(qs->notify_fd);
	if (qs->err_pipe >= 0)
		close(qs->err_pipe);
	if (qs->jit_fd >= 0) {
		close(qs->jit_fd);
		if (!qs->arena || !qs->arena->jit_off)
			unlink(qs->jit_path); /* no JIT code ran */
	}
	if (qs->arena)
		munmap(qs->arena, qs->arena_size);
	free(qs->qemu);
	free(qs->plugin);
	free(qs->jit_path);
	crash_release(&qs->crashes);
	free(qs);
	rec->child = 0; /* reaped here */
}

const struct rec_source_ops rec_source_qemu = {
    .data_pages = 128,
    .aux_pages = 1024,
    .build_ids = true,
    .open = qemu_open,
    .start = qemu_start,
    .poll = qemu_poll,
    .snapshot = qemu_snapshot,
    .stop = qemu_stop,
    .stats = qemu_stats,
    .free = qemu_free,
};
