// SPDX-License-Identifier: MIT
/*
 * The plugin's side of the arena: a thread's slot laid out as a perf
 * mmap, trace bytes and records written into it by the kernel's rules
 * (capture/simkern.c), never lost: a writer that finds no room wakes qpt
 * and waits until it drained, and while qpt takes a snapshot of the slot
 * (disabled) nothing is written.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "capture/emulate/qemu/plugin.h"
#include "capture/emulate/qemu/qemu_api.h"
#include "capture/simkern.h"

/* Wake qpt's poll: a ring is half full, a slot came or went. */
void qp_notify(void)
{
	uint64_t one = 1;
	ssize_t n;

	n = write(qp.arena->notify_fd, &one, sizeof(one));
	(void)n;
}

bool qp_consumer_alive(void)
{
	return kill(qp.arena->consumer, 0) == 0 || errno == EPERM;
}

/* A short nap while qpt catches up: false when qpt is gone. */
static bool nap(unsigned int *round)
{
	struct timespec ts = {0, *round < 10 ? 20000 : 1000000};

	if (++*round % 256 == 0 && !qp_consumer_alive())
		return false;
	nanosleep(&ts, NULL);
	return true;
}

int qp_slot_claim(void)
{
	struct qemu_arena *a = qp.arena;
	unsigned int round = 0;
	uint32_t i, want;

	for (;;) {
		for (i = 0; i < a->nr_slots; i++) {
			want = QEMU_SLOT_FREE;
			if (__atomic_compare_exchange_n(
				&a->state[i], &want, QEMU_SLOT_BUSY, false,
				__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return (int)i;
		}
		qp_notify(); /* every slot taken: qpt frees the ended ones */
		if (!nap(&round))
			return -1;
	}
}

int qp_out_open(struct qthread *t)
{
	struct qemu_arena *a = qp.arena;
	struct qemu_slot_ctl *ctl = t->ctl;
	struct qpt_simkern_opts so;

	memset(ctl, 0, offsetof(struct qemu_slot_ctl, stage));
	ctl->pid = t->pid;
	ctl->tid = t->tid;
	ctl->ppid = t->pid == t->tid ? qp.ppid : t->pid;
	ctl->idx = __atomic_fetch_add(&a->next_idx, 1, __ATOMIC_RELAXED);
	qpt_simkern_opts_init(&so);
	so.data_size = a->data_size;
	so.aux_size = a->aux_size;
	so.aux_overwrite = a->snapshot;
	so.sample_id_all = true;
	so.sample_type = EMU_SAMPLE_TYPE;
	so.id = qp.sb.id;
	so.pid = (uint32_t)t->pid;
	so.tid = (uint32_t)t->tid;
	so.cpu = UINT32_MAX;
	so.idx = ctl->idx;
	so.ring_tid = (uint32_t)t->tid;
	so.ring_cpu = UINT32_MAX;
	if (qpt_simkern_new_at(&so, qemu_slot(a, t->slot), false, &t->sk))
		return -1;
	__atomic_store_n(&a->state[t->slot], QEMU_SLOT_LIVE, __ATOMIC_RELEASE);
	qp_notify();
	return 0;
}

void qp_out_close(struct qthread *t)
{
	struct qemu_arena *a = qp.arena;

	t->ctl->insns = t->insns;
	__atomic_store_n(&a->state[t->slot], QEMU_SLOT_ENDED, __ATOMIC_RELEASE);
	qpt_simkern_free(t->sk);
	t->sk = NULL;
	t->dead = true;
	qp_notify();
}

/*
 * Hold the rings for a write of @aux trace bytes and a record of @data
 * bytes: not while qpt takes a snapshot (disabled), and (full-trace mode)
 * only with room for both.  False when qpt is gone (the thread writes
 * nothing more).
 */
static bool hold(struct qthread *t, uint64_t aux, uint64_t data)
{
	struct qemu_slot_ctl *ctl = t->ctl;
	unsigned int round = 0;

	for (;;) {
		__atomic_store_n(&ctl->writing, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&ctl->disabled, __ATOMIC_SEQ_CST) &&
		    qpt_simkern_aux_room(t->sk) >= aux &&
		    qpt_simkern_data_room(t->sk) >= data)
			return true;
		__atomic_store_n(&ctl->writing, 0, __ATOMIC_SEQ_CST);
		qp_notify();
		if (!nap(&round)) {
			t->dead = true;
			return false;
		}
	}
}

static void release(struct qthread *t)
{
	__atomic_store_n(&t->ctl->writing, 0, __ATOMIC_SEQ_CST);
}

int qp_out_aux(void *ctx, const uint8_t *buf, size_t len)
{
	struct qthread *t = ctx;
	uint64_t half = qp.arena->aux_size / 2;

	if (t->dead || !t->sk)
		return -EPIPE;
	/* the PERF_RECORD_AUX it makes: 24 bytes and the sample_id */
	if (!hold(t, len, 24 + 8 + qpt_simkern_sample_id_size(t->sk)))
		return -EPIPE;
	qpt_simkern_set_time(t->sk, emu_sb_time());
	qpt_simkern_aux_write(t->sk, buf, len, 0);
	t->ctl->insns = t->insns;
	release(t);
	t->aux_since += len;
	if (t->aux_since >= half && !qp.arena->snapshot) {
		t->aux_since = 0;
		qp_notify();
	}
	return 0;
}

static int out_record(void *ctx, pid_t tid, const struct perf_event_header *h)
{
	struct qthread *t = qp_thread();

	if (!t || !t->sk || !hold(t, 0, h->size))
		return -EPIPE;
	qpt_simkern_output(t->sk, h);
	release(t);
	return 0;
}

const struct emu_sink_ops qp_sink_ops = {
    .record = out_record,
};

int qp_guest_read(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len};
	struct iovec remote = {
	    (void *)(uintptr_t)(addr + (uint64_t)qp.guest_base), len};

	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) !=
	    (ssize_t)len)
		return -EFAULT;
	return 0;
}

/* A --snapshot-on address is about to run: the thread's bytes out, the
 * hit to qpt, which takes a snapshot; the thread waits for it. */
static void on_trigger(unsigned int vcpu, void *udata)
{
	struct qemu_arena *a = qp.arena;
	struct qthread *t = qp_thread();
	struct qemu_trigger *tg;
	unsigned int round = 0;
	uint32_t k;

	if (!t || emu_pt_flush(t->pt))
		return;
	__atomic_or_fetch(&t->ctl->flags, QEMU_SLOT_PARKED, __ATOMIC_RELEASE);
	k = __atomic_fetch_add(&a->trig_tail, 1, __ATOMIC_ACQ_REL);
	tg = &a->trig[k % QEMU_TRIGGERS];
	tg->pid = t->pid;
	tg->tid = t->tid;
	tg->ip = (uint64_t)(uintptr_t)udata;
	tg->time = emu_sb_time();
	/* published in order of reservation */
	while (__atomic_load_n(&a->trig_head, __ATOMIC_ACQUIRE) != k)
		if (!nap(&round))
			goto out;
	__atomic_store_n(&a->trig_head, k + 1, __ATOMIC_RELEASE);
	qp_notify();
	while ((int32_t)(__atomic_load_n(&a->trig_done, __ATOMIC_ACQUIRE) -
			 (k + 1)) < 0)
		if (!nap(&round))
			break;
out:
	__atomic_and_fetch(&t->ctl->flags, ~QEMU_SLOT_PARKED, __ATOMIC_RELEASE);
}

void qp_trigger_probe(struct qemu_plugin_tb *tb, size_t n)
{
	struct qemu_plugin_insn *in;
	uint64_t ip;
	size_t i;

	for (i = 0; i < n; i++) {
		in = qemu_plugin_tb_get_insn(tb, i);
		ip = qemu_plugin_insn_vaddr(in);
		if (emu_trigger_hit(&qp.trig, ip))
			qemu_plugin_register_vcpu_insn_exec_cb(
			    in, on_trigger, QEMU_PLUGIN_CB_NO_REGS,
			    (void *)(uintptr_t)ip);
	}
}
