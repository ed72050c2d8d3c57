// SPDX-License-Identifier: MIT
/*
 * qpt's QEMU plugin: install, the blocks QEMU translates and runs, and
 * the guest threads' packet generators (see plugin.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/emulate/qemu/plugin.h"
#include "capture/emulate/qemu/qemu_api.h"
#include "capture/simkern.h"

QPT_QEMU_EXPORT int qemu_plugin_version = QPT_QEMU_PLUGIN_API;

struct qplugin qp;

static __thread struct qthread *cur __attribute__((tls_model("initial-exec")));

/* Blocks' descriptions live as long as QEMU may run their code. */
static pthread_mutex_t tb_lock = PTHREAD_MUTEX_INITIALIZER;

/* The thread's clock for timing packets: the host's, read every
 * QP_CLOCK_BLOCKS blocks and at each system call (a read per block
 * would cost more than the block). */
#define QP_CLOCK_BLOCKS 64

static uint64_t clock_ns(void *ctx)
{
	const struct qthread *t = ctx;

	return t->now;
}

static void pt_opts(struct emu_pt_opts *o, struct qthread *t)
{
	struct qemu_slot_ctl *ctl = t->ctl;
	const struct qemu_arena *a = qp.arena;

	memset(o, 0, sizeof(*o));
	o->retcomp = a->retcomp;
	o->psb_period = a->psb_period;
	o->chunk = a->chunk;
	o->clock = qp.timing ? clock_ns : NULL;
	o->clock_ctx = t;
	o->tsc = a->tsc;
	o->mtc = a->mtc;
	o->cyc = a->cyc;
	o->mtc_period = a->mtc_period;
	o->cyc_thresh = a->cyc_thresh;
	o->live = &ctl->live;
	o->stage = ctl->stage;
}

/* The thread's first records: ITRACE_START as the kernel's event
 * starts, how the task came (COMM of the command, FORK), then PSB+ (its
 * time after theirs, for decoders that place sideband by time). */
static int announce(struct qthread *t)
{
	char comm[17];
	int err;

	err = emu_sb_itrace_start(&qp.sb, t->pid, t->tid);
	memcpy(comm, qp.arena->comm, 16);
	comm[16] = '\0';
	if (!err && t->tid != t->pid)
		err = emu_sb_task(&qp.sb, PERF_RECORD_FORK, t->pid, t->pid,
				  t->tid, t->pid);
	else if (!err && qp.forked)
		err = emu_sb_task(&qp.sb, PERF_RECORD_FORK, t->pid, qp.ppid,
				  t->tid, qp.ppid);
	if (!err && t->tid == t->pid)
		err = emu_sb_comm(&qp.sb, t->pid, t->tid, comm, !qp.forked);
	t->now = emu_sb_time();
	return err ? err : emu_pt_start(t->pt);
}

struct qthread *qp_thread(void)
{
	struct emu_pt_opts po;
	struct qthread *t = cur;
	int slot;

	if (t)
		return t->dead ? NULL : t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = getpid();
	t->tid = (pid_t)syscall(SYS_gettid);
	cur = t;
	slot = qp_slot_claim();
	if (slot < 0) {
		t->dead = true;
		return NULL;
	}
	t->slot = (uint32_t)slot;
	t->ctl = qemu_slot_ctl(qp.arena, t->slot);
	t->flush_gen = __atomic_load_n(&qp.arena->flush_gen, __ATOMIC_ACQUIRE);
	t->psb_gen = __atomic_load_n(&qp.arena->psb_gen, __ATOMIC_ACQUIRE);
	if (qp_out_open(t)) {
		t->dead = true;
		return NULL;
	}
	t->now = emu_sb_time();
	pt_opts(&po, t);
	t->pt = emu_pt_new(&po, qp_out_aux, t);
	if (!t->pt || announce(t)) {
		t->dead = true;
		return NULL;
	}
	qp.first = false;
	return t;
}

void qp_thread_end(struct qthread *t)
{
	pid_t ppid = t->pid == t->tid ? qp.ppid : t->pid;

	if (!t->dead) {
		qp_enter_kernel(t); /* exit ends the block */
		if (!emu_pt_flush(t->pt))
			emu_sb_task(&qp.sb, PERF_RECORD_EXIT, t->pid, ppid,
				    t->tid, ppid);
		qp_out_close(t);
	}
	emu_pt_free(t->pt);
	if (cur == t)
		cur = NULL;
	free(t);
}

void qp_forked(pid_t parent)
{
	/* the parent's thread, as it was: its slot is the parent's */
	cur = NULL;
	qp.ppid = parent;
	qp.pid = getpid();
	qp.forked = true;
	qp.first = true;
}

void qp_enter_kernel(struct qthread *t)
{
	const struct qtb *p = t->prev;
	int err;

	qp_sig_settle(t);
	t->ctl->insns = t->insns;
	if (qp.timing)
		t->now = emu_sb_time();
	if (!p || t->prev_told)
		return;
	t->prev_told = true;
	if (p->insn.cls == EMU_INSN_FAR)
		err = emu_pt_insn(t->pt, p->last, &p->insn, p->end);
	else /* the block ended otherwise (exit of another thread, ...) */
		err = emu_pt_async(t->pt, p->end);
	if (err)
		t->dead = true;
}

/* Where a block that is not a branch goes: on (a rep string
 * instruction may run again). */
static bool straight_on(const struct qtb *p, uint64_t next)
{
	return next == p->end || ((p->flags & QTB_REP) && next == p->last);
}

void qp_block_end(struct qthread *t, const struct qtb *p, const struct qtb *b)
{
	const struct emu_insn *in = &p->insn;
	uint64_t next = b->pc;
	int err;

	switch (in->cls) {
	case EMU_INSN_OTHER:
		if (!straight_on(p, next))
			break;
		if (qp.timing && emu_pt_insn(t->pt, p->last, in, next))
			t->dead = true;
		return;
	case EMU_INSN_JCC:
		if (next != p->end && next != in->x.target)
			break;
		goto packet;
	case EMU_INSN_JMP:
	case EMU_INSN_CALL:
		if (next != in->x.target)
			break;
		goto packet;
	case EMU_INSN_JMP_IND:
	case EMU_INSN_CALL_IND:
	case EMU_INSN_RET:
		if (qp_sig_is_handler(next))
			break; /* a branch there, or a signal after it */
		goto packet;
	case EMU_INSN_FAR:
		goto packet;
	}
	qp_sig_async(t, p, b);
	return;
packet:
	err = emu_pt_insn(t->pt, p->last, in, next);
	if (err)
		t->dead = true;
}

/* Requests of qpt's that each thread answers at its next block. */
static void answer(struct qthread *t)
{
	uint32_t g = __atomic_load_n(&qp.arena->psb_gen, __ATOMIC_ACQUIRE);

	if (g != t->psb_gen) {
		t->psb_gen = g;
		emu_pt_psb_next(t->pt);
	}
	g = __atomic_load_n(&qp.arena->flush_gen, __ATOMIC_ACQUIRE);
	if (g != t->flush_gen) {
		t->flush_gen = g;
		if (emu_pt_drain(t->pt))
			t->dead = true;
		__atomic_store_n(&t->ctl->flush_ack, g, __ATOMIC_RELEASE);
		qp_notify();
	}
}

static void on_exec(unsigned int vcpu, void *udata)
{
	const struct qtb *b = udata;
	struct qthread *t = cur;
	int err;

	if (__builtin_expect(!t || t->dead, 0)) {
		t = qp_thread();
		if (!t)
			return;
	}
	if (__builtin_expect(qp.arena->psb_gen != t->psb_gen ||
				 qp.arena->flush_gen != t->flush_gen,
			     0))
		answer(t);
	t->insns += b->ninsns;
	if (qp.timing && !(++t->ticks % QP_CLOCK_BLOCKS))
		t->now = emu_sb_time();
	if (__builtin_expect(t->sig != NULL, 0))
		qp_sig_settle(t);
	if (t->prev && !t->prev_told)
		qp_block_end(t, t->prev, b);
	else if (!emu_pt_enabled(t->pt)) {
		/* back from the kernel, or the thread's start: TIP.PGE */
		static const struct emu_insn other;

		err = emu_pt_insn(t->pt, b->pc, &other, b->pc);
		if (err)
			t->dead = true;
	}
	if ((b->flags & QTB_REP) && t->prev && t->prev->last == b->pc &&
	    b->ninsns == 1)
		t->insns--; /* the same instruction, once more */
	t->prev = b;
	t->prev_told = false;
	t->ctl->block = b->pc;
}

/*
 * The block's last instruction, classified from the bytes translated:
 * false when its bytes end before it does.  (QEMU 7.2 leaves in a
 * block's list an instruction it took back because it crosses into the
 * next page: the block ends before it.)
 */
static bool classify(struct qtb *b, const struct qemu_plugin_insn *last)
{
	const uint8_t *p = qemu_plugin_insn_data(last);
	size_t n = qemu_plugin_insn_size(last);
	struct qx86_insn x;
	int len;

	b->last = qemu_plugin_insn_vaddr(last);
	b->end = b->last + n;
	len = qx86_decode(qp.x86, p, n, 64, b->last, &x);
	if (len == -QPT_E_TRUNCATED)
		return false;
	if (len > 0) {
		emu_insn_classify(&x, &b->insn);
		if (x.flags & QX86_F_REP)
			b->flags |= QTB_REP;
	} else {
		/* bytes QEMU runs that the x86 layer does not know: nothing
		 * says where they go; an unexplained next is asynchronous */
		emu_insn_classify(NULL, &b->insn);
	}
	return true;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	const struct qemu_plugin_insn *first, *last;
	struct qthread *t;
	const uint8_t *host;
	struct qtb *b;

	if (!n)
		return;
	first = qemu_plugin_tb_get_insn(tb, 0);
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	pthread_mutex_lock(&tb_lock);
	b = calloc(1, sizeof(*b));
	pthread_mutex_unlock(&tb_lock);
	if (!b)
		return;
	b->pc = qemu_plugin_tb_vaddr(tb);
	b->ninsns = (uint32_t)n;
	if (!classify(b, last) && n > 1) {
		b->ninsns--;
		classify(b, qemu_plugin_tb_get_insn(tb, n - 2));
	}
	host = qemu_plugin_insn_haddr(first);
	if (!qp.have_base) {
		qp.guest_base = (int64_t)((uintptr_t)host - b->pc);
		qp.have_base = true;
	}
	t = qp_thread();
	if (t)
		qp_maps_code(t, b->pc, b->end, host);
	if (qp_sig_is_handler(b->pc))
		qp_sig_probe(b, tb);
	if (qp.trig.nr)
		qp_trigger_probe(tb, b->ninsns);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_thread_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
	if (cur)
		qp_thread_end(cur);
}

static void on_guest_exit(qemu_plugin_id_t id, void *udata)
{
	if (cur)
		qp_thread_end(cur);
	qp_notify();
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	const uint64_t a[6] = {a1, a2, a3, a4, a5, a6};
	struct qthread *t = cur;

	if (!t || t->dead)
		return;
	qp_enter_kernel(t);
	qp_sys_enter(t, num, a);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
			   int64_t ret)
{
	qp_sys_ret(cur, num, ret);
}

/* Refuse to load, saying why in the arena when there is one. */
static int refuse(const char *why)
{
	if (qp.arena)
		snprintf(qp.arena->error, sizeof(qp.arena->error), "%s", why);
	fprintf(stderr, "qpt-qemu: %s\n", why);
	return 1;
}

static int map_arena(int fd)
{
	struct qemu_arena *a;
	uint64_t size;

	a = mmap(NULL, QEMU_ARENA_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	size = a->magic == QEMU_ARENA_MAGIC ? a->size : 0;
	munmap(a, QEMU_ARENA_PAGE);
	if (!size)
		return -EINVAL;
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	qp.arena = a;
	return 0;
}

QPT_QEMU_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					const qemu_info_t *info, int argc,
					char **argv)
{
	int fd = -1, i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "arena=", 6))
			fd = atoi(argv[i] + 6);
	if (fd < 0 || map_arena(fd))
		return refuse("no arena: qpt record --emulate=qemu loads this "
			      "plugin");
	if (qp.arena->version != QEMU_ARENA_VERSION)
		return refuse("the arena is of another qpt");
	if (info->system_emulation || strcmp(info->target_name, "x86_64"))
		return refuse("qemu-x86_64 (user mode) only");
	if (info->version.min > QPT_QEMU_PLUGIN_API ||
	    info->version.cur < QPT_QEMU_PLUGIN_API)
		return refuse("the plugin API of this QEMU is not version 1");
	qp.x86 = qx86_new();
	if (!qp.x86)
		return refuse("out of memory");
	qp.pid = getpid();
	qp.ppid = getppid();
	qp.first = true;
	qp.timing = qp.arena->tsc || qp.arena->mtc || qp.arena->cyc;
	if (qp.arena->snapshot_on[0] &&
	    emu_trigger_parse(&qp.trig, qp.arena->snapshot_on))
		return refuse("bad --snapshot-on");
	qp.sb.ops = &qp_sink_ops;
	qp.sb.id = 1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_exit_cb(id, on_thread_exit);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
	__atomic_store_n(&qp.arena->installed, 1, __ATOMIC_RELEASE);
	/* QEMU's messages so far went to qpt; the command's go where its
	 * standard error is */
	if (qp.arena->stderr_fd >= 0) {
		dup2(qp.arena->stderr_fd, STDERR_FILENO);
		close(qp.arena->stderr_fd);
	}
	return 0;
}
