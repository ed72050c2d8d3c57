// SPDX-License-Identifier: MIT
/*
 * The arena's slots on qpt's side: each LIVE slot drained by a ring
 * consumer as a per-thread perf mmap is; a slot its thread ENDED drained
 * to the end and freed; a LIVE slot whose thread is gone without a word
 * (its process died of a signal or was killed, another thread's exit
 * ended it) ended here as its plugin would have: the bytes it staged, its
 * pending TNT bits and FUP + TIP.PGD at the block it was in (what the
 * slot's state says, emu_pt_finish), and its EXIT.  The consumer's
 * snapshot disables a slot by a handshake with its writer (ctl.disabled,
 * ctl.writing) as the kernel stops the PMU before the copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/emulate/header.h"
#include "capture/emulate/qemu/source.h"
#include "capture/emulate/sideband.h"
#include "capture/ring.h"
#include "capture/simkern.h"

static struct qemu_slot_ctl *ctl_of(struct qemu_src *qs, uint32_t i)
{
	return qemu_slot_ctl(qs->arena, i);
}

static uint32_t state_of(struct qemu_src *qs, uint32_t i)
{
	return __atomic_load_n(&qs->arena->state[i], __ATOMIC_ACQUIRE);
}

/* Whether thread @tid of @pid is gone (or a zombie), by /proc. */
static bool thread_gone(pid_t pid, pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

/* Whether the thread of an execve left QEMU (runs the new program). */
static bool exec_done(struct qemu_src *qs, pid_t tid)
{
	char path[64], exe[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strcmp(exe, qs->qemu) != 0;
}

static int ring_disable(void *ctx)
{
	struct qslot *c = ctx;
	struct qemu_slot_ctl *ctl = ctl_of(c->qs, c->i);
	struct timespec ts = {0, 20000};
	int round;

	__atomic_store_n(&ctl->disabled, 1, __ATOMIC_SEQ_CST);
	/* the writer finishes its write (a dead one never does: 1 s) */
	for (round = 0; round < 50000; round++) {
		if (!__atomic_load_n(&ctl->writing, __ATOMIC_SEQ_CST))
			return 0;
		if (round > 100)
			nanosleep(&ts, NULL);
	}
	return 0;
}

static int ring_enable(void *ctx)
{
	struct qslot *c = ctx;

	__atomic_store_n(&ctl_of(c->qs, c->i)->disabled, 0, __ATOMIC_SEQ_CST);
	return 0;
}

static uint64_t ring_reference(void *ctx)
{
	struct qslot *c = ctx;

	return ++c->qs->reference;
}

static void slot_ring(struct qemu_src *qs, uint32_t i, struct qpt_ring *r)
{
	uint8_t *mem = qemu_slot(qs->arena, i);

	memset(r, 0, sizeof(*r));
	r->page = (struct perf_event_mmap_page *)mem;
	r->data = mem + QEMU_ARENA_PAGE;
	r->data_size = qs->arena->data_size;
	r->aux = r->data + r->data_size;
	r->aux_size = qs->arena->aux_size;
	r->aux_overwrite = qs->arena->snapshot;
	r->idx = ctl_of(qs, i)->idx;
	r->tid = (uint32_t)ctl_of(qs, i)->tid;
	r->cpu = UINT32_MAX;
	qs->ring_ops.disable = ring_disable;
	qs->ring_ops.enable = ring_enable;
	qs->ring_ops.reference = ring_reference;
	r->ops = &qs->ring_ops;
	qs->slots[i].qs = qs;
	qs->slots[i].i = i;
	r->ops_ctx = &qs->slots[i];
}

static int take_up(struct qemu_src *qs, uint32_t i)
{
	struct qslot *s = &qs->slots[i];
	struct qemu_slot_ctl *ctl = ctl_of(qs, i);
	struct qpt_ring r;
	int err;

	slot_ring(qs, i, &r);
	err = qpt_consumer_new(&r, &qs->rec->sink, &s->cons);
	if (err)
		return err;
	s->pid = ctl->pid;
	s->tid = ctl->tid;
	s->idx = ctl->idx;
	s->exec_told = false;
	qs->threads++;
	return 0;
}

static int drain_one(struct qemu_src *qs, struct qslot *s)
{
	int err = qs->rec->o.snapshot ? qpt_consumer_read_data(s->cons)
				      : qpt_consumer_drain(s->cons);

	return err < 0 ? err : 0;
}

/* The slot's last bytes out (in snapshot mode, its last snapshot), its
 * counters kept, the slot FREE. */
static int close_slot(struct qemu_src *qs, uint32_t i)
{
	struct qslot *s = &qs->slots[i];
	int64_t n = 0;
	int err;

	if (qs->rec->o.snapshot)
		n = qpt_consumer_snapshot(s->cons, qs->rec->o.snapshot_size);
	err = drain_one(qs, s);
	qpt_consumer_add_stats(s->cons, &qs->closed);
	qs->insns += ctl_of(qs, i)->insns;
	qpt_consumer_free(s->cons);
	s->cons = NULL;
	__atomic_store_n(&qs->arena->state[i], QEMU_SLOT_FREE,
			 __ATOMIC_RELEASE);
	return n < 0 ? (int)n : err;
}

static int finish_record(void *ctx, pid_t tid,
			 const struct perf_event_header *h)
{
	return qpt_simkern_output(ctx, h) < 0 ? -QPT_E_INVAL : 0;
}

/* The end of the stream of a thread that died without writing it. */
static int finish(struct qemu_src *qs, uint32_t i)
{
	static const struct emu_sink_ops ops = {.record = finish_record};
	struct qemu_slot_ctl *ctl = ctl_of(qs, i);
	struct emu_pt_live live = ctl->live;
	struct qpt_simkern_opts so;
	struct qpt_simkern *sk;
	uint8_t buf[EMU_PT_STAGE + 64];
	struct emu_sb sb = {&ops, NULL, EMU_ID};
	size_t n = live.staged <= EMU_PT_STAGE ? live.staged : 0;
	int t, err;

	err = drain_one(qs, &qs->slots[i]); /* room for what follows */
	if (err)
		return err;
	if (ctl->pid == qs->child && live.enabled &&
	    (!qs->crash_tid || ctl->tid == ctl->pid)) {
		qs->crash_tid = ctl->tid;
		qs->crash_ip = ctl->block;
	}
	memcpy(buf, ctl->stage, n);
	t = emu_pt_finish(&live, ctl->block, buf + n, sizeof(buf) - n);
	qpt_simkern_opts_init(&so);
	so.data_size = qs->arena->data_size;
	so.aux_size = qs->arena->aux_size;
	so.aux_overwrite = qs->arena->snapshot;
	so.sample_id_all = true;
	so.sample_type = EMU_SAMPLE_TYPE;
	so.id = EMU_ID;
	so.pid = (uint32_t)ctl->pid;
	so.tid = (uint32_t)ctl->tid;
	so.cpu = UINT32_MAX;
	err = qpt_simkern_new_at(&so, qemu_slot(qs->arena, i), true, &sk);
	if (err)
		return err;
	qpt_simkern_set_time(sk, emu_sb_time());
	if (t >= 0 && n + (size_t)t)
		qpt_simkern_aux_write(sk, buf, n + (size_t)t, 0);
	sb.ctx = sk;
	emu_sb_task(&sb, PERF_RECORD_EXIT, ctl->pid,
		    ctl->pid == ctl->tid ? ctl->ppid : ctl->pid, ctl->tid,
		    ctl->pid == ctl->tid ? ctl->ppid : ctl->pid);
	qpt_simkern_free(sk);
	return close_slot(qs, i);
}

/* A LIVE slot: drained, ended when its thread is gone (or exec'd). */
static int live_slot(struct qemu_src *qs, uint32_t i, bool all_gone)
{
	struct qslot *s = &qs->slots[i];
	struct qemu_slot_ctl *ctl = ctl_of(qs, i);
	uint32_t flags = __atomic_load_n(&ctl->flags, __ATOMIC_ACQUIRE);

	/* in an execve, and out of QEMU (or gone since: the flag goes when
	 * it fails) */
	if ((flags & QEMU_SLOT_EXEC) &&
	    (thread_gone(s->pid, s->tid) || exec_done(qs, s->tid))) {
		if (!s->exec_told)
			rec_log(qs->rec, QPT_LOG_WARN,
				"process %d: exec of %s is not traced (QEMU "
				"runs the new program natively): its trace "
				"ends at the execve",
				(int)s->pid, ctl->exec_path);
		s->exec_told = true;
		return close_slot(qs, i);
	}
	if (thread_gone(s->pid, s->tid) || (all_gone && s->pid == qs->child))
		return finish(qs, i);
	return drain_one(qs, s);
}

int qsrc_drain(struct qemu_src *qs, bool all_gone)
{
	uint32_t i, st;
	int err = 0;

	for (i = 0; i < qs->arena->nr_slots && !err; i++) {
		st = state_of(qs, i);
		if ((st == QEMU_SLOT_LIVE || st == QEMU_SLOT_ENDED) &&
		    !qs->slots[i].cons)
			err = take_up(qs, i);
		if (err || !qs->slots[i].cons)
			continue;
		if (st == QEMU_SLOT_ENDED)
			err = close_slot(qs, i);
		else
			err = live_slot(qs, i, all_gone);
	}
	return err;
}

int64_t qsrc_snapshot(struct qemu_src *qs)
{
	struct qemu_arena *a = qs->arena;
	struct timespec ts = {0, 100000};
	uint32_t gen, i, st, flags;
	int64_t total = 0, n;
	int round, err;
	bool waiting;

	/* every running thread hands its staged bytes on (one in a
	 * system call did at its entry); at most 200 ms */
	gen = __atomic_add_fetch(&a->flush_gen, 1, __ATOMIC_ACQ_REL);
	for (round = 0; round < 2000; round++) {
		waiting = false;
		for (i = 0; i < a->nr_slots && !waiting; i++) {
			struct qemu_slot_ctl *ctl = ctl_of(qs, i);

			st = state_of(qs, i);
			flags = __atomic_load_n(&ctl->flags, __ATOMIC_ACQUIRE);
			waiting = st == QEMU_SLOT_LIVE &&
				  __atomic_load_n(&ctl->flush_ack,
						  __ATOMIC_ACQUIRE) != gen &&
				  !(flags & QEMU_SLOT_PARKED) &&
				  !thread_gone(ctl->pid, ctl->tid);
		}
		if (!waiting)
			break;
		nanosleep(&ts, NULL);
	}
	err = qsrc_drain(qs, false);
	for (i = 0; i < a->nr_slots && !err; i++) {
		if (!qs->slots[i].cons)
			continue;
		n = qpt_consumer_snapshot(qs->slots[i].cons,
					  qs->rec->o.snapshot_size);
		if (n < 0)
			return n;
		total += n;
		err = drain_one(qs, &qs->slots[i]);
	}
	/* the next snapshot's bytes decode from their start */
	__atomic_add_fetch(&a->psb_gen, 1, __ATOMIC_ACQ_REL);
	return err ? err : total;
}

void qsrc_stats(const struct qemu_src *qs, struct qpt_capture_stats *st)
{
	uint32_t i;

	*st = qs->closed;
	st->insns = qs->insns;
	for (i = 0; i < QEMU_ARENA_SLOTS; i++) {
		if (!qs->slots[i].cons)
			continue;
		qpt_consumer_add_stats(qs->slots[i].cons, st);
		st->insns += qemu_slot_ctl(qs->arena, i)->insns;
	}
	st->threads = qs->threads;
}

void qsrc_slots_free(struct qemu_src *qs)
{
	uint32_t i;

	for (i = 0; i < QEMU_ARENA_SLOTS; i++) {
		qpt_consumer_free(qs->slots[i].cons);
		qs->slots[i].cons = NULL;
	}
}
