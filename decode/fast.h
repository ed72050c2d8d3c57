/* SPDX-License-Identifier: MIT */
/*
 * The fast block decoder: libipt's block decoder (pt_blk_*) again, for
 * the packets of user-space traces, on qpt's own packet reader and a
 * cache of straight-line runs of instructions.  It gives the blocks,
 * events, offsets and times libipt gives (flow.c drives either); where a
 * trace needs more (another packet, a decode error, an overflow), it
 * bails out and flow.c decodes from the last PSB again with libipt.
 */
#ifndef QPT_DECODE_FAST_H
#define QPT_DECODE_FAST_H

#include "decode/internal.h"

/* A fast decoder call's answer: "libipt must decode this part". */
#define QD_FAST_BAIL (-(QPT_E_LAST + 100))

/* ---- runs.c: straight-line runs of instructions, by address ---- */

/*
 * The instructions from @ip up to and including the first branch of any
 * kind (or up to QD_RUN_MAX of them): in one executable range of the
 * address space.
 */
struct qd_run_ent {
	uint64_t ip;
	const void *space;
	uint64_t end_ip; /* the last instruction's address */
	uint64_t target; /* the last one's, for JCC, LOOP, JMP, CALL */
	uint32_t ninsn;
	uint32_t gen;	     /* the table's generation when it was made */
	uint8_t cls;	     /* the last one's qx86 class */
	uint8_t last_len;    /* its length */
	const uint8_t *lens; /* each instruction's length */
	void *aux;	     /* the user's, per run (fast paths); NULL */
};

#define QD_RUN_MAX 4096

struct qd_runs;

struct qd_runs *qd_runs_new(void);
void qd_runs_free(struct qd_runs *r);
/* Forget every run (the code may differ from now on: another run of a
 * decoder); a new generation, no memory cleared. */
void qd_runs_forget(struct qd_runs *r);
/*
 * The run at @ip in @space (64-bit code): cached, else decoded from the
 * space's code.  NULL where libipt would find no code or no instruction
 * (the fast decoder bails out there), or on -ENOMEM.
 */
const struct qd_run_ent *qd_runs_get(struct qd_runs *r, struct qd_space *space,
				     uint64_t ip);

/* ---- fastpt.c: packets, queries and blocks ---- */

struct qd_fpt;

/* A decoder over @cfg's buffer (begin, end, errata); NULL: -ENOMEM. */
struct qd_fpt *qd_fpt_new(const struct pt_config *cfg, struct qd_runs *runs);
void qd_fpt_free(struct qd_fpt *d);
void qd_fpt_set_space(struct qd_fpt *d, struct qd_space *space);
/* As pt_blk_sync_forward, pt_blk_next and pt_blk_event (libipt's status
 * bits and -pte_eos), or QD_FAST_BAIL. */
int qd_fpt_sync_forward(struct qd_fpt *d);
/* Start at the PSB at @offset (pt_blk_sync_set). */
int qd_fpt_sync_set(struct qd_fpt *d, uint64_t offset);
int qd_fpt_next(struct qd_fpt *d, struct pt_block *block);
int qd_fpt_event(struct qd_fpt *d, struct pt_event *ev);
/* As pt_blk_get_offset, pt_blk_get_sync_offset, pt_blk_time. */
uint64_t qd_fpt_offset(const struct qd_fpt *d);
uint64_t qd_fpt_sync_offset(const struct qd_fpt *d);
int qd_fpt_time(const struct qd_fpt *d, uint64_t *tsc);
/* The PSB the decoder last synchronised at or decoded through. */
uint64_t qd_fpt_last_psb(const struct qd_fpt *d);
/* Whether that PSB was a synchronisation (not decoded through). */
bool qd_fpt_last_psb_synced(const struct qd_fpt *d);
/* How many PSBs it has decoded (synchronised at or through). */
uint64_t qd_fpt_psbs(const struct qd_fpt *d);
/* The length and qx86 class of the last block's last instruction. */
void qd_fpt_last(const struct qd_fpt *d, uint8_t *len, uint8_t *cls);
/* How many events from before the last PSB it has still to give, and
 * whether it gave one last: the flow there is known once they are
 * given and the next begins. */
unsigned qd_fpt_pre(const struct qd_fpt *d);
/* Whether its state after the last PSB+ (given its events) is what
 * libipt's decoder starting at that PSB would have: nothing pending from
 * before it (events, TNT bits), tracing enabled as the PSB+ says, the
 * mode it gives, the time its timing packets give.  A trace that breaks the rules may differ; the flow
 * there is then no place to start libipt from. */
bool qd_fpt_psb_fresh(const struct qd_fpt *d);
/* Whether a compressed return took a return address pushed before the
 * last PSB (the trace breaks the rules: libipt starting at that PSB
 * would not have it) since the decoder's synchronisation. */
bool qd_fpt_stale(const struct qd_fpt *d);

/* ---- fastpath.c: the decoder's side of the path cache ---- */

/* Whether a path may start here: tracing on, no event pending, the time
 * of the next query already that of the last. */
bool qd_fpt_path_ready(const struct qd_fpt *d);
/* Where the next block starts. */
uint64_t qd_fpt_ip(const struct qd_fpt *d);
/* The TNT bits that can be consumed with nothing else happening, the
 * first at bit 0 of *@w (at most 64; the first @need of them, or
 * more, when there are as many): how many. */
unsigned qd_fpt_window(struct qd_fpt *d, unsigned need, uint64_t *w);
/* Consume @n of them as conditional branch queries would; the status. */
int qd_fpt_skip_bits(struct qd_fpt *d, unsigned n);
/* The return stack: its depth, its top @n entries (the oldest first). */
unsigned qd_fpt_ret_depth(const struct qd_fpt *d);
void qd_fpt_ret_top(const struct qd_fpt *d, uint64_t *ret, unsigned n);
/* The state a path ends in (the next block's start, the instruction
 * reached last), and setting it again: the return address it returned
 * to without calling taken off the stack (@pop 1; as a compressed
 * return takes it), then those it pushed and left on. */
void qd_fpt_path_end(const struct qd_fpt *d, uint64_t *ip, uint64_t *li_ip,
		     uint64_t *li_target, uint8_t *li_len, uint8_t *li_cls);
void qd_fpt_path_set(struct qd_fpt *d, uint64_t ip, uint64_t li_ip,
		     uint64_t li_target, uint8_t li_len, uint8_t li_cls,
		     unsigned pop, const uint64_t *push, unsigned n);
/*
 * Whether the next block may be part of a path (@own: the return
 * addresses on the stack the path may return to, those it pushed and
 * its key's; @bit: the next TNT bit, -1 when the path may use no more):
 * the bits it uses (0 or 1), or -1 (a return address the path may not
 * take, a far branch, ...).  A block that ends with a near indirect
 * jump or call (its target a TIP's) is one (0, *@tail set) that ends
 * the path.
 */
int qd_fpt_peek(struct qd_fpt *d, unsigned own, int bit, bool *tail);
/* The end of such a block, taken from the cache: the decoder stands at
 * its indirect jump or call (qd_fpt_path_set), whose TIP it reads now;
 * the status, as qd_fpt_next's for the block. */
int qd_fpt_tail(struct qd_fpt *d);

#endif
