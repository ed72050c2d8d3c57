/* SPDX-License-Identifier: MIT */
/*
 * qpt's QEMU plugin (qpt-qemu.so, loaded by qemu-x86_64 -plugin): the PMU
 * of an emulated Intel PT.  It sees each block QEMU translates (its
 * instructions' bytes) and each block a guest thread starts to run; the
 * last instruction of a block, classified by the x86 layer, says what the
 * next block's address means (a TNT bit, a TIP, nothing, or an
 * asynchronous transfer), and the packet generator of the emulated source
 * (emulate/pt.c) makes the packets.  Bytes and sideband go into the
 * thread's slot of the arena qpt shares (arena.h), by the kernel's ring
 * rules (capture/simkern.c): the writer waits for qpt rather than lose a
 * byte.
 *
 * Internal to the plugin; the files: plugin.c (install, blocks and their
 * execution, threads), plugin_out.c (the slot's rings and records),
 * plugin_maps.c (the MMAP2 records of the code that runs, JIT code's
 * bytes), plugin_sys.c (system calls: fork, exec, exit, mappings,
 * signal handlers), plugin_sig.c (signal delivery: where the thread was).
 */
#ifndef QPT_QEMU_PLUGIN_H
#define QPT_QEMU_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/emulate/insn.h"
#include "capture/emulate/pt.h"
#include "capture/emulate/qemu/arena.h"
#include "capture/emulate/sideband.h"
#include "capture/emulate/trigger.h"

struct qpt_simkern;
struct qemu_plugin_tb;
struct qsig_probe;
struct qsig_pending;

/* qtb.flags */
#define QTB_REP 1u     /* the last instruction is a REP string one */
#define QTB_HANDLER 2u /* a signal handler's entry (plugin_sig.c) */

/* A translated block: where it is and how it ends (what running it
 * reads first, in its first cache line). */
struct qtb {
	uint64_t pc;   /* its first instruction */
	uint64_t last; /* its last instruction */
	uint64_t end;  /* after the last instruction */
	uint32_t ninsns;
	uint32_t flags;
	struct emu_insn insn; /* the last instruction */
	struct qsig_probe *probe; /* QTB_HANDLER: where its frame is read */
};

/* A guest thread (a host thread of QEMU's). */
struct qthread {
	pid_t pid, tid;
	uint32_t slot;
	struct qemu_slot_ctl *ctl;
	struct qpt_simkern *sk;
	struct emu_pt *pt;
	const struct qtb *prev; /* the block entered last */
	bool prev_told;		/* its end is in the trace (a syscall) */
	bool dead;		/* no more writes (qpt is gone) */
	uint32_t flush_gen, psb_gen;
	uint64_t aux_since;	  /* AUX bytes since qpt was woken */
	uint64_t insns;		  /* run so far (ctl.insns: as handed on) */
	uint64_t now;		  /* the clock of its timing packets */
	uint32_t ticks;		  /* blocks run, modulo */
	uint64_t sys_args[6];	  /* of the system call in progress */
	struct qsig_pending *sig; /* plugin_sig.c: an entry not told yet */
};

/* The plugin's process-wide state (each forked QEMU has its copy). */
struct qplugin {
	struct qemu_arena *arena;
	pid_t pid;	    /* this process */
	pid_t ppid;	    /* its parent, for FORK and EXIT */
	bool forked;	    /* a child: FORK and COMM at its first thread */
	bool first;	    /* no thread begun yet in this process */
	bool timing;	    /* TSC, MTC or CYC asked */
	int64_t guest_base; /* host address - guest address */
	bool have_base;
	struct qx86 *x86;
	struct emu_sb sb;
	struct emu_trigger trig; /* --snapshot-on's addresses */
};

extern struct qplugin qp;

/* plugin.c */
/* The calling thread's state, begun (slot, sideband, PSB+) if new; NULL
 * when tracing is off for it (no slot, qpt gone). */
struct qthread *qp_thread(void);
/* The thread's end: its last bytes and EXIT out, its slot ENDED. */
void qp_thread_end(struct qthread *t);
/* This process is a fork's child: the thread state it inherited is the
 * parent's (left alone); its own begins at its next block. */
void qp_forked(pid_t parent);
/* The block @p of @t ended (its last instruction ran) and the thread
 * went on to block @b. */
void qp_block_end(struct qthread *t, const struct qtb *p, const struct qtb *b);
/* A system call starts: the block that made it ends there (TIP.PGD). */
void qp_enter_kernel(struct qthread *t);

/* plugin_out.c */
/* Lay out slot @t->slot (claimed) and make it LIVE. */
int qp_out_open(struct qthread *t);
/* emu_pt's output: trace bytes into the AUX area. */
int qp_out_aux(void *ctx, const uint8_t *buf, size_t len);
/* emu_sb's record output into the calling thread's data ring. */
extern const struct emu_sink_ops qp_sink_ops;
/* Wake qpt. */
void qp_notify(void);
/* Claim a free slot (waiting for qpt to free one): its index, or -1 when
 * qpt is gone. */
int qp_slot_claim(void);
/* The slot's last bytes written: ENDED. */
void qp_out_close(struct qthread *t);
/* Whether qpt still runs (a producer that waits for it checks). */
bool qp_consumer_alive(void);
/* Read @len bytes of guest memory at guest address @addr (safely: a bad
 * address is -EFAULT, not a crash).  Returns 0 or -errno. */
int qp_guest_read(uint64_t addr, void *buf, size_t len);

/* plugin_maps.c */
/* The code of a block being translated, [@start, @end): its mapping
 * announced (MMAP2) if new, JIT code's bytes copied out.  @host: the
 * host address of @start. */
void qp_maps_code(struct qthread *t, uint64_t start, uint64_t end,
		  const uint8_t *host);
/* The guest's mappings may have changed (mmap, munmap, mprotect,
 * mremap): look again at the next translation. */
void qp_maps_changed(uint64_t start, uint64_t len);

/* Instrument the --snapshot-on addresses among @tb's instructions. */
void qp_trigger_probe(struct qemu_plugin_tb *tb, size_t n);

/* plugin_sys.c */
void qp_sys_enter(struct qthread *t, int64_t num, const uint64_t *a);
void qp_sys_ret(struct qthread *t, int64_t num, int64_t ret);

/* plugin_sig.c */
/* Whether @pc is a signal handler's entry (translation marks it). */
bool qp_sig_is_handler(uint64_t pc);
/* rt_sigaction(@sig, @act): the handler it sets. */
void qp_sig_action(int sig, uint64_t act);
/* A translated handler entry @b: find where its frame will be read. */
void qp_sig_probe(struct qtb *b, struct qemu_plugin_tb *tb);
/* @t went from @p to block @b by no branch @p's end can take (or by an
 * indirect one into a handler): told now, or pending until the handler's
 * frame is read. */
void qp_sig_async(struct qthread *t, const struct qtb *p, const struct qtb *b);
/* A pending entry told without the frame (the next block starts, the
 * thread enters the kernel or ends). */
void qp_sig_settle(struct qthread *t);

#endif /* QPT_QEMU_PLUGIN_H */
