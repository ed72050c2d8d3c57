/* SPDX-License-Identifier: MIT */
/*
 * The memory qpt shares with its QEMU plugin (a memfd qpt creates, the
 * plugin maps by its descriptor, inherited by every process QEMU forks):
 * a header, then slots.  A slot is one guest thread's perf mmap as the
 * kernel lays it out (control page, data ring, AUX area: the plugin
 * writes them by the kernel's rules, capture/simkern.c, and qpt's ring
 * consumer drains them) and the part of the thread's state qpt needs to
 * take a snapshot of it, or to end its stream when its process died
 * without a word (a fatal signal, SIGKILL, another thread's exit).
 *
 * A slot's life: FREE; a thread that starts claims it (FREE -> BUSY),
 * lays it out and makes it LIVE; when it exits it writes its last bytes
 * and makes it ENDED; qpt drains an ENDED slot to the end and frees it.
 * A LIVE slot whose process is gone is ended by qpt (emu_pt_finish on
 * what the slot says).
 */
#ifndef QPT_QEMU_ARENA_H
#define QPT_QEMU_ARENA_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "capture/emulate/pt.h"

#define QEMU_ARENA_MAGIC 0x756d65712d747071ULL /* "qpt-qemu" */
#define QEMU_ARENA_VERSION 1
#define QEMU_ARENA_SLOTS 256
#define QEMU_ARENA_PAGE 4096
#define QEMU_TRIGGERS 64

enum qemu_slot_state {
	QEMU_SLOT_FREE,
	QEMU_SLOT_BUSY, /* being laid out */
	QEMU_SLOT_LIVE,
	QEMU_SLOT_ENDED,
};

/* qemu_slot_ctl.flags: in execve (exec_path; the trace ends there if it
 * succeeds); parked: its bytes handed on, it waits (in a system call in
 * snapshot mode, or for the snapshot of its --snapshot-on hit) */
#define QEMU_SLOT_EXEC 1u
#define QEMU_SLOT_PARKED 2u

/* A --snapshot-on address reached: where, by whom, when. */
struct qemu_trigger {
	int32_t pid, tid;
	uint64_t ip, time;
};

struct qemu_arena {
	uint64_t magic;
	uint32_t version, nr_slots;
	uint64_t size;		      /* of the whole memfd */
	uint64_t slot_size;	      /* bytes of a slot */
	uint64_t data_size, aux_size; /* of each slot's rings */
	/* what qpt asks (the intel_pt config's terms) */
	uint8_t snapshot, retcomp, tsc, mtc, cyc, mtc_period, cyc_thresh;
	uint8_t pad0;
	uint32_t psb_period; /* bytes */
	uint32_t chunk;	     /* AUX bytes handed on at a time */
	int32_t notify_fd;   /* an eventfd the plugin writes to wake qpt */
	int32_t jit_fd;	     /* JIT code copied there (-1: none) */
	int32_t consumer;    /* qpt's pid: a producer waiting checks it */
	int32_t stderr_fd;   /* the command's standard error: QEMU's goes
			      * to qpt until the plugin is in */
	uint32_t pad2;
	char snapshot_on[256]; /* --snapshot-on's SYMBOL[+OFF], or "" */
	char jit_path[4096];   /* the JIT file's name in MMAP2 records */
	char comm[16];	       /* the command's name (COMM) */
	/* written by the plugin */
	uint32_t installed; /* the plugin took the arena */
	uint32_t next_idx;  /* AUXTRACE idx of the next slot laid out */
	char error[256];    /* why the plugin refused to load */
	uint64_t jit_off;   /* the JIT file's size */
	/* qpt asks every LIVE thread to hand its staged bytes on (the
	 * thread acks in its slot), and for a PSB at its next branch */
	uint32_t flush_gen, psb_gen;
	/* --snapshot-on hits: the plugin appends, qpt takes */
	uint32_t trig_head, trig_tail;
	uint32_t trig_done; /* snapshots taken for hits up to here */
	uint32_t pad1;
	struct qemu_trigger trig[QEMU_TRIGGERS];
	uint32_t state[QEMU_ARENA_SLOTS]; /* enum qemu_slot_state */
};

/* After the rings of a slot, page-aligned. */
struct qemu_slot_ctl {
	int32_t pid, tid;
	int32_t ppid; /* the process's parent */
	uint32_t pad0;
	uint32_t idx;	    /* AUXTRACE idx of this ring */
	uint32_t flags;	    /* QEMU_SLOT_* */
	uint32_t disabled;  /* qpt takes a snapshot: no byte is written */
	uint32_t writing;   /* the thread writes the rings */
	uint32_t flush_ack; /* the arena's flush_gen handed on */
	uint32_t pad;
	uint64_t block; /* the block the thread entered last */
	uint64_t insns; /* instructions run so far */
	struct emu_pt_live live;
	char exec_path[256];
	uint8_t stage[EMU_PT_STAGE];
};

/* A slot's size for rings of @data and @aux bytes (powers of two,
 * at least a page). */
static inline uint64_t qemu_slot_size(uint64_t data, uint64_t aux)
{
	uint64_t ctl = (sizeof(struct qemu_slot_ctl) + QEMU_ARENA_PAGE - 1) &
		       ~(uint64_t)(QEMU_ARENA_PAGE - 1);

	return QEMU_ARENA_PAGE + data + aux + ctl;
}

static inline uint64_t qemu_arena_hdr_size(void)
{
	return (sizeof(struct qemu_arena) + QEMU_ARENA_PAGE - 1) &
	       ~(uint64_t)(QEMU_ARENA_PAGE - 1);
}

static inline uint8_t *qemu_slot(struct qemu_arena *a, uint32_t i)
{
	return (uint8_t *)a + qemu_arena_hdr_size() +
	       (uint64_t)i * a->slot_size;
}

static inline struct qemu_slot_ctl *qemu_slot_ctl(struct qemu_arena *a,
						  uint32_t i)
{
	return (struct qemu_slot_ctl *)(qemu_slot(a, i) + QEMU_ARENA_PAGE +
					a->data_size + a->aux_size);
}

#endif /* QPT_QEMU_ARENA_H */
