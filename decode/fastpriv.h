/* SPDX-License-Identifier: MIT */
/* The fast block decoder's state, shared by fastpt.c (packets and queries)
 * and fastblk.c (blocks and events). */
#ifndef QPT_DECODE_FASTPRIV_H
#define QPT_DECODE_FASTPRIV_H

#include "decode/fast.h"

enum fq_type {
	FP_NONE,
	FP_PAD,
	FP_PSB,
	FP_PSBEND,
	FP_TNT,
	FP_TIP,
	FP_PGE,
	FP_PGD,
	FP_FUP,
	FP_MODE,
	FP_TSC,
	FP_CBR,
	FP_TMA,
	FP_MTC,
};

struct fq_pkt {
	uint8_t type, size;
	uint8_t ipc;   /* IP packets: the compression */
	uint8_t nbits; /* TNT */
	uint64_t val;  /* the ip, TNT bits, TSC, MODE byte, CBR ratio, MTC
			* payload, TMA CTC (bits 0-15) and FC (16-24) */
};

/* libipt's time (struct pt_time) without CYC: fasttime.c */
struct fq_time {
	bool have_tsc, have_tma, have_mtc;
	uint64_t tsc, base, fc;
	uint32_t ctc;
};

/* The clocks of the trace's configuration: MTC's frequency, TSC/CTC. */
struct fq_clock {
	uint8_t mtc_freq;
	uint32_t ctc_den, ctc_num; /* CPUID 0x15 eax, ebx */
};

void ft_init(struct fq_time *t);
void ft_tsc(struct fq_time *t, uint64_t tsc);
int ft_tma(struct fq_time *t, const struct fq_clock *c, uint32_t ctc,
	   uint32_t fc);
int ft_mtc(struct fq_time *t, const struct fq_clock *c, uint8_t payload);
bool ft_equal(const struct fq_time *a, const struct fq_time *b);

/* libipt's event bindings */
enum { FB_PSBEND, FB_TIP, FB_FUP, FB_NR };

#define FQ_EVQ 8
/* the events a binding holds: libipt's queue of 8 keeps a gap of one
 * after its end and before the last event taken (pt_evq_enqueue), so the
 * seventh pending event is -pte_nomem there: left to libipt */
#define FQ_EVQ_CAP (FQ_EVQ - 2)

struct fq_evq {
	struct pt_event ev[FQ_EVQ];
	unsigned head, n;
};

struct qd_fpt {
	/* the query decoder */
	const uint8_t *begin, *end, *pos, *sync;
	struct fq_pkt nx; /* the packet at pos (FP_NONE: none) */
	bool have_ip, ip_suppressed, q_enabled, consume;
	uint64_t last_ip;
	uint64_t tnt, tnt_index; /* bits, and the next one's mask */
	struct fq_evq evq[FB_NR];
	struct pt_event alone;	/* a standalone event */
	struct pt_event *event; /* published by the last packet */
	struct fq_time time, last_time; /* now, and at the last query */
	struct fq_clock clock;
	bool errata_bdm70, errata_skd022;
	uint64_t last_psb, nr_psb;
	bool last_psb_synced;
	bool ev_found; /* fq_event found its event (and reads ahead) */
	unsigned pre;  /* events from before the last PSB, not given */
	bool gave_pre; /* the event given last was one of them */
	/* the last PSB+: nothing was pending at it, it gave an ip, a mode */
	bool psb_clean, psb_ip, psb_mode;
	/* the time libipt would have, had it started at the last PSB (its
	 * PSB+'s timing packets alone), and whether it was the time at the
	 * PSBEND: a PSB+ without a TSC carries the time from before it */
	struct fq_time psb_time;
	bool psb_time_ok, psb_time_same;
	/* the block decoder */
	struct qd_runs *runs;
	struct qd_space *space;
	uint64_t ip;
	bool enabled, process_event;
	enum pt_exec_mode mode;
	int status;
	struct pt_event ev; /* in process */
	uint64_t ret[64];
	unsigned ret_top, ret_n;
	unsigned ret_fresh; /* of ret_n, those pushed since the last PSB */
	bool stale; /* a compressed return took one pushed before it */
	/* the last instruction reached */
	uint64_t li_ip, li_target;
	uint8_t li_cls, li_len;
	/* the window of TNT bits (fastpath.c) where pos and tnt_index were
	 * win_pos and win_tnti: its bits, the packet to read next */
	const uint8_t *win_pos, *win_scan;
	uint64_t win_tnti, win_bits;
	unsigned win_n;
	bool win_end; /* the run ends at win_scan */
	bool win_tip; /* ... where a TIP is */
};

/* fastpt.c: libipt's queries (pt_qry_*), their status bits, -pte_eos,
 * -pte_bad_query (cond_branch: not a TNT bit next) or QD_FAST_BAIL. */
int fq_start(struct qd_fpt *d, const uint8_t *sync, uint64_t *ip,
	     bool *have_ip);
const uint8_t *fq_next_psb(const struct qd_fpt *d);
int fq_cond_branch(struct qd_fpt *d, int *taken);
int fq_indirect_branch(struct qd_fpt *d, uint64_t *ip);
int fq_event(struct qd_fpt *d, struct pt_event *ev);
/* The packet at @p (read_pkt), the query status (status_flags). */
int fq_read_pkt(const struct qd_fpt *d, const uint8_t *p, struct fq_pkt *k);
int fq_status(const struct qd_fpt *d);

/* The run of instructions at @ip (runs.c), NULL where the fast decoder
 * does not walk: runs.c decodes 64-bit code, and in another mode, or an
 * unknown one (a synchronisation with no MODE.Exec), libipt decodes
 * differently or not at all. */
const struct qd_run_ent *fq_run_at(struct qd_fpt *d, uint64_t ip);

/* The return stack (64 deep, the oldest lost): a call's push, and a
 * compressed return's pop (the stack not empty), which marks the
 * decoder stale when it takes an address pushed before the last PSB. */
static inline void fq_ret_push(struct qd_fpt *d, uint64_t ip)
{
	d->ret_top = (d->ret_top + 1) & 63;
	d->ret[d->ret_top] = ip;
	if (d->ret_n < 64)
		d->ret_n++;
	if (d->ret_fresh < 64)
		d->ret_fresh++;
}

static inline uint64_t fq_ret_pop(struct qd_fpt *d)
{
	uint64_t ip = d->ret[d->ret_top];

	d->ret_top = (d->ret_top + 63) & 63;
	d->ret_n--;
	if (d->ret_fresh)
		d->ret_fresh--;
	else /* hardware compresses no such return */
		d->stale = true;
	return ip;
}

#endif
