/* SPDX-License-Identifier: MIT */
/*
 * The flow's state, shared by flow.c (items from blocks and events) and
 * flow_engine.c (which block decoder gives them: the fast one, or libipt's
 * from the last PSB when the fast one bails out).
 */
#ifndef QPT_DECODE_FLOWPRIV_H
#define QPT_DECODE_FLOWPRIV_H

#include <stddef.h>
#include <string.h>

#include "decode/fast.h"
#include "decode/blks.h"
#include "decode/paths.h"

/* What the flow was at a PSB, to decode on from there with libipt. */
struct flow_snap {
	bool pending, enabled, has_time, head, p_timed;
	uint64_t p_ip, time, loc_tsc, next_ip, p_time;
	uint8_t p_size;
	unsigned p_kind;
	enum pt_exec_mode mode;
	struct qd_space *space, *next_space;
	int32_t pid, tid;
	bool cov_open;
	uint64_t cov_ip, cov_end;
	struct qd_space *cov_space;
	bool held;
	struct qpt_item held_it;
};

/* A locate() answer, given again when libipt decodes the same part. */
/* A locate() answer, given @n times in a row (ticks at each MTC ask
 * often, and the answer rarely changes). */
struct flow_loc {
	struct qd_space *space;
	int32_t pid, tid;
	uint32_t n;
};

#define FLOW_MEMO 4096

struct flow {
	struct qd_flow_ctx *fc;
	struct pt_config own_cfg; /* cfg: the buffer's */
	size_t len, own; /* the buffer; its own bytes (then the next PSB+) */
	int status;	/* the block decoder's, between steps */
	bool started, done;
	bool lost;	/* the trace ended out of sync (after an error) */
	int stop;	/* an event's item stopped the flow with this */
	/* an event with a new time (held_time), read and not yet told
	 * (drain_events) */
	bool ev_held;
	struct pt_event held_ev;
	uint64_t held_time;
	bool head;	/* before the first use of the carried state */
	struct qx86_cache *own_cache; /* the cache, when fc has none */
	uint8_t *ipt_copy; /* the buffer as libipt reads it (qd_ipt_buf) */
	struct qx86_cache *cache; /* decoded instructions by ip */
	const struct pt_config *cfg;
	struct pt_block_decoder *dec; /* libipt's, made when needed */
	struct qd_fpt *fast;	      /* the fast one, while it is used */
	struct qd_fpt *fast_off;      /* ... and while libipt decodes */
	struct qd_runs *runs, *own_runs;
	/* the last instruction, while its successor is unknown */
	bool pending;
	uint64_t p_ip;
	uint8_t p_size;
	unsigned p_kind; /* qpt_branch_kind, or QPT_BR_NR: not a branch */
	/* its time (p_time), when a PSB+ with a new time came before its
	 * successor was known: its branch was decided before that PSB (a
	 * PSB flushes the decisions before it), and perf times it so */
	bool p_timed;
	uint64_t p_time;
	bool enabled;
	/* the time of the last packet read: an event's, or a tick's (the
	 * block decoder's, at a query that found a new time) */
	uint64_t time;
	bool has_time;
	uint64_t loc_tsc; /* the last time stamp located */
	/* the last instruction of the last block, when it read the trace:
	 * told when a tick, or its own event, has told its time */
	bool held;
	struct qpt_item held_it;
	enum pt_exec_mode mode;
	uint64_t next_ip;   /* after the last block's last instruction */
	/* where a PSB+ after the last block says the trace goes on (its
	 * FUP, told with its MODE.Exec): the pending instruction's
	 * successor when the trace ends there */
	uint64_t resume_ip;
	bool resume_known;
	struct qd_cyc *cyc; /* QPT_WANT_CYCLES */
	bool cyc_nodec;	    /* the next branch consumed no decision */
	bool cyc_carried;   /* the pending one's was read before the cut */
	struct qd_space *next_space; /* to use after the current block */
	char msg[160];
	/* the fast decoder's last PSB: the flow there, the items since
	 * (instructions, branches, events), the locate() answers since */
	uint64_t snap_psb, snap_off;
	uint64_t after_psb; /* the last PSB eng_after looked at */
	bool snap_synced;
	struct flow_snap snap;
	uint64_t n_insn, n_branch, n_event;
	unsigned nr_memo, memo_pos, memo_used; /* used: of memo[memo_pos] */
	/* and the same at the fast decoder's last synchronisation (for a
	 * trace that breaks the rules between it and the last PSB): the
	 * items from there to the last PSB, the memo's first answer since
	 * that PSB (answers before it are there while sync_ok) */
	struct flow_snap sync_snap;
	uint64_t sync_off, s_insn, s_branch, s_event, s_cov;
	unsigned memo_snap0, replay_live; /* live answers in a replay */
	bool sync_ok, memo_split, far;	   /* far: replaying from sync */
	/* QPT_WANT_PROFILE: functions counted lately and their ranges (the
	 * last found first), the thread counted last */
	struct {
		struct qpt_profile_func *fn;
		const struct qd_space *space;
		uint64_t lo, hi;
	} pf[4];
	struct qpt_profile_thread *pth;
	/* QPT_WANT_COVERAGE: the block being walked (open: its last
	 * instruction is no branch, the next block may go on with it);
	 * blocks and fall-through edges counted since the last PSB */
	bool cov_open;
	uint64_t cov_ip, cov_end;
	struct qd_space *cov_space;
	uint64_t n_cov;
	struct path_rec *rec; /* a path being recorded (flow_path.c) */
	bool paths; /* the flow may take paths (no insns, fast decoder) */
	bool replay; /* libipt decodes what the fast decoder did: */
	uint64_t skip_insn, skip_branch, skip_event; /* not told again */
	uint64_t skip_cov;
	/* last: a run clears what comes before it (flow_clear) */
	struct flow_loc memo[FLOW_MEMO]; /* nr_memo of them */
};

/* A flow zeroed but for its memo, which holds nothing (nr_memo 0). */
#define flow_clear(f) memset((f), 0, offsetof(struct flow, memo))

/* flow_engine.c: the block decoder calls, on the decoder in use. */
int eng_init(struct flow *f, const struct pt_config *cfg);
void eng_fini(struct flow *f);
int eng_sync_forward(struct flow *f);
int eng_next(struct flow *f, struct pt_block *b);
int eng_event(struct flow *f, struct pt_event *ev);
uint64_t eng_offset(const struct flow *f);
uint64_t eng_sync_offset(const struct flow *f);
bool eng_time(struct flow *f, uint64_t *tsc);
int eng_set_space(struct flow *f, struct qd_space *sp);
/* A fall-back's replay still has items of the fast decoder's to pass. */
static inline bool flow_skipping(const struct flow *f)
{
	return f->skip_insn || f->skip_branch || f->skip_event || f->skip_cov;
}
/* Before the flow takes an event of the fast decoder (not a tick): if a
 * PSB passed, the flow here is the flow at that PSB. */
void eng_after(struct flow *f);
/* The fast decoder bailed out: libipt from its last PSB (the flow as it
 * was there).  Returns the sync status; *@synced: call on_sync. */
int eng_fall_back(struct flow *f, bool *synced);
/* libipt, started at the fast decoder's last PSB, found a compressed
 * return without call: if the return's call came before that PSB (the
 * trace breaks the rules; libipt from the synchronisation had it),
 * libipt from the synchronisation instead.  False when it cannot;
 * otherwise *@status is the sync status and *@synced as above. */
bool eng_fall_back_far(struct flow *f, int *status, bool *synced);
/* libipt resynchronised after an error: the fast decoder takes over
 * there when it can (the status of its start, else @status). */
int eng_resume(struct flow *f, int status);
/* flow_prof.c (QPT_WANT_PROFILE): @n instructions from @ip on, all in
 * one function; a taken branch to @to; the first ninsn - 1 instructions
 * of @b (in @bits mode). */
void prof_insns(struct flow *f, uint64_t ip, uint64_t n);
void prof_branch(struct flow *f, unsigned kind, uint64_t to);
void prof_block(struct flow *f, const struct pt_block *b, int bits);
/* flow_cov.c (QPT_WANT_COVERAGE): a block was walked from @ip to the
 * pending instruction; the block being walked ends here; an edge from a
 * branch to @to, taken or not; the tables' error at the end of a run. */
void cov_walked(struct flow *f, uint64_t ip);
void cov_close(struct flow *f);
void cov_edge(struct flow *f, uint64_t from, uint64_t to);
void cov_fallthrough(struct flow *f, uint64_t from, uint64_t to);
/* flow_path.c: a path of blocks from where the fast decoder stands:
 * PATH_DONE (taken: the decoder status in *@status), PATH_BLOCK (a block
 * from the decoder, *@b and *@status, to be taken on as eng_next's), 0
 * (none here), or the callback's error. */
#define PATH_DONE 1
#define PATH_BLOCK 2
int path_step(struct flow *f, struct pt_block *b, int *status);
/* what the flow counts while a path is recorded (f->rec) */
void path_rec_prof(struct flow *f, struct qpt_profile_func *fn,
		   uint64_t insns, uint64_t branches, uint64_t calls);
void path_rec_cov(struct flow *f, bool edge, uint32_t i);
void path_rec_branch(struct flow *f, const struct qd_path_br *br);
/* flow_prof.c: a path's counts added to the thread and its functions */
void prof_path(struct flow *f, uint64_t insns, uint64_t branches,
	       const struct qd_path_fn *fn, unsigned n);
/* flow.c: a block from the block decoder, walked (as decode_loop walks
 * it); whether a path may start (the time moves on at no block of it);
 * what the first block of a path at @ip does before its instructions. */
int flow_walk(struct flow *f, const struct pt_block *b);
/* flow.c: the items of the @n taken branches a path recorded, told
 * again as run @run (qpt_item's; 0 or the callback's error) */
int flow_tell_branches(struct flow *f, const struct qd_path_br *br,
		       uint32_t n, uint64_t run);
bool flow_path_ready(struct flow *f);
int flow_path_enter(struct flow *f, uint64_t ip);
/* flow.c: what follows a block's walk, after a path whose last block
 * read a TIP too: the thread located at the time the decoder has now */
void flow_block_done(struct flow *f);
/* flow.c: the instruction at @ip (of @b; @last: its last), or NULL */
const struct qx86_cached *flow_insn_at(struct flow *f,
				       const struct pt_block *b, bool last,
				       uint64_t ip, int bits,
				       struct qx86_cached *tmp);
/* locate() through the memo (replays) */
struct qd_space *eng_locate(struct flow *f, uint64_t off, bool has_tsc,
			    uint64_t tsc);

#endif
