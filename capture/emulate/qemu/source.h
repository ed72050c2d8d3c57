/* SPDX-License-Identifier: MIT */
/*
 * The QEMU source of a recording (rec_source_qemu): the command runs under
 * qemu-x86_64 with qpt's plugin, which writes each guest thread's trace
 * and sideband into a slot of the arena (arena.h); this process drains
 * the slots with the ring consumer into the recorder's output.
 * source.c: the recorder's ops, QEMU's start and end; slots.c: the slots.
 */
#ifndef QPT_QEMU_SOURCE_H
#define QPT_QEMU_SOURCE_H

#include <stdbool.h>
#include <sys/types.h>

#include "capture/crash.h"
#include "capture/emulate/qemu/arena.h"
#include "capture/recorder.h"

struct qemu_src;

/* This process's side of a slot. */
struct qslot {
	struct qemu_src *qs; /* the ring ops' context: this slot */
	uint32_t i;
	struct qpt_consumer *cons; /* NULL: not drained (FREE, or not seen) */
	pid_t pid, tid;
	uint32_t idx;
	bool exec_told;
};

struct qemu_src {
	struct qpt_recorder *rec;
	struct qemu_arena *arena;
	size_t arena_size;
	int arena_fd, notify_fd, jit_fd;
	int err_pipe;	  /* QEMU's standard error until the plugin is in */
	char *qemu;	  /* the qemu-x86_64 that runs the command */
	char *plugin;	  /* qpt-qemu.so */
	char *jit_path;	  /* the JIT file (NULL: none) */
	char cpuid[64];	  /* of the CPU QEMU emulates */
	char cpudesc[64]; /* its brand string */
	struct qslot slots[QEMU_ARENA_SLOTS];
	struct qpt_ring_ops ring_ops;
	uint64_t reference;
	struct qpt_capture_stats closed; /* of the slots ended */
	uint64_t insns, threads;
	pid_t child;
	bool done;
	struct crash_list crashes;
	uint32_t trig_seen;
	/* the command's thread found in user code when it died */
	pid_t crash_tid;
	uint64_t crash_ip;
};

/* slots.c */
/* Every slot: new ones taken up, data drained (full-trace mode: the
 * trace too), ended ones (by their thread, or their process gone) drained
 * to the end and freed; @all_gone: the command is over, every LIVE slot
 * is ended.  Returns 0 or the first error. */
int qsrc_drain(struct qemu_src *qs, bool all_gone);
/* A snapshot of every slot: the bytes written, or an error. */
int64_t qsrc_snapshot(struct qemu_src *qs);
/* The counters of the slots drained so far. */
void qsrc_stats(const struct qemu_src *qs, struct qpt_capture_stats *st);
void qsrc_slots_free(struct qemu_src *qs);

#endif
