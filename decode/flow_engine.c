// SPDX-License-Identifier: MIT
/*
 * Which block decoder the flow reads: the fast one (fastpt.c, fastblk.c)
 * while it can, libipt's otherwise.  At each PSB the fast decoder decodes
 * through, the flow's state is kept, and the items and locate() answers
 * since are counted and kept.  When the fast decoder bails out (a packet
 * it does not know, anything libipt calls an error), libipt's decoder
 * starts at that PSB with the flow as it was there: it gives the same
 * items again, which are not told twice, then what the fast decoder could
 * not.  After libipt's next resynchronisation the fast decoder takes over
 * again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/flowpriv.h"

static struct qd_space *locate_live(struct flow *f, uint64_t off, bool has_tsc,
				    uint64_t tsc)
{
	struct qd_flow_ctx *fc = f->fc;

	return fc->locate(fc, fc->offset_base + off, has_tsc, tsc,
			  fc->locate_arg);
}

struct qd_space *eng_locate(struct flow *f, uint64_t off, bool has_tsc,
			    uint64_t tsc)
{
	struct qd_flow_ctx *fc = f->fc;
	struct flow_loc *m;
	struct qd_space *sp;

	if (!fc->locate)
		return NULL;
	if (f->replay && f->memo_pos >= f->nr_memo)
		f->replay_live++;
	if (f->replay && f->memo_pos < f->nr_memo) {
		m = &f->memo[f->memo_pos];
		if (++f->memo_used == m->n) {
			f->memo_pos++;
			f->memo_used = 0;
		}
		fc->pid = m->pid;
		fc->tid = m->tid;
		return m->space;
	}
	sp = locate_live(f, off, has_tsc, tsc);
	if (!f->fast)
		return sp;
	m = f->nr_memo && !f->memo_split ? &f->memo[f->nr_memo - 1] : NULL;
	f->memo_split = false;
	if (m && m->space == sp && m->pid == fc->pid && m->tid == fc->tid &&
	    m->n < UINT32_MAX)
		m->n++;
	else if (f->nr_memo < FLOW_MEMO)
		f->memo[f->nr_memo++] =
		    (struct flow_loc){sp, fc->pid, fc->tid, 1};
	return sp;
}

static int libipt_new(struct flow *f)
{
	if (f->dec)
		return 0;
	f->dec = pt_blk_alloc_decoder(f->cfg);
	return f->dec ? 0 : -ENOMEM;
}

int eng_init(struct flow *f, const struct pt_config *cfg)
{
	struct qd_flow_ctx *fc = f->fc;

	f->cfg = cfg;
	f->snap_psb = f->after_psb = UINT64_MAX;
	if (!fc->libipt_only && !(fc->want & QPT_WANT_CYCLES)) {
		f->runs = fc->runs ? fc->runs : (f->own_runs = qd_runs_new());
		if (f->runs)
			f->fast = qd_fpt_new(cfg, f->runs);
		if (f->fast) {
			qd_fpt_set_space(f->fast, fc->space);
			return 0;
		}
	}
	if (libipt_new(f))
		return -ENOMEM;
	if (fc->space && pt_blk_set_image(f->dec, fc->space->image) < 0)
		return -QPT_E_INVAL;
	return 0;
}

void eng_fini(struct flow *f)
{
	qd_fpt_free(f->fast_off ? f->fast_off : f->fast);
	qd_runs_free(f->own_runs);
	pt_blk_free_decoder(f->dec);
}

int eng_set_space(struct flow *f, struct qd_space *sp)
{
	if (f->fast) {
		qd_fpt_set_space(f->fast, sp);
		return 0;
	}
	return pt_blk_set_image(f->dec, sp->image);
}

/* The flow now, as at the PSB at @off (the @psbs-th the fast decoder
 * decoded), where libipt would start if the fast decoder bailed out. */
static void snap(struct flow *f, uint64_t psbs, uint64_t off, bool synced)
{
	struct flow_snap *s = &f->snap;
	struct qd_flow_ctx *fc = f->fc;

	f->snap_psb = psbs;
	f->snap_synced = synced;
	f->snap_off = off;
	s->pending = f->pending;
	s->enabled = f->enabled;
	s->has_time = f->has_time;
	s->head = f->head;
	s->p_ip = f->p_ip;
	s->time = f->time;
	s->loc_tsc = f->loc_tsc;
	s->next_ip = f->next_ip;
	s->p_size = f->p_size;
	s->p_kind = f->p_kind;
	s->p_timed = f->p_timed;
	s->p_time = f->p_time;
	s->mode = f->mode;
	s->space = fc->space;
	s->next_space = f->next_space;
	s->pid = fc->pid;
	s->tid = fc->tid;
	s->cov_open = f->cov_open;
	s->cov_ip = f->cov_ip;
	s->cov_end = f->cov_end;
	s->cov_space = f->cov_space;
	s->held = f->held;
	s->held_it = f->held_it;
	f->s_insn += f->n_insn;
	f->s_branch += f->n_branch;
	f->s_event += f->n_event;
	f->s_cov += f->n_cov;
	f->n_insn = f->n_branch = f->n_event = f->n_cov = 0;
	if (f->nr_memo > FLOW_MEMO / 2) { /* room for what comes next */
		f->nr_memo = 0;
		f->sync_ok = false;
	}
	f->memo_snap0 = f->nr_memo;
	f->memo_split = true; /* the next answer starts an entry */
}

void eng_after(struct flow *f)
{
	uint64_t psbs;

	if (!f->fast || qd_fpt_pre(f->fast))
		return;
	psbs = qd_fpt_psbs(f->fast);
	if (psbs == f->snap_psb || psbs == f->after_psb)
		return;
	/* one chance: past the PSB's first event, the flow has moved on
	 * from it (a state that later matches libipt's start there, say
	 * disabled again, is not the flow at the PSB) */
	f->after_psb = psbs;
	if (qd_fpt_psb_fresh(f->fast))
		snap(f, psbs, qd_fpt_last_psb(f->fast),
		     qd_fpt_last_psb_synced(f->fast));
}

/* Synchronised at a PSB: the flow there, whatever the fast decoder read
 * ahead (its status events, and a next PSB, may be read already). */
static void eng_synced(struct flow *f)
{
	uint64_t psbs = qd_fpt_psbs(f->fast), off = qd_fpt_sync_offset(f->fast);

	if (qd_fpt_last_psb(f->fast) != off)
		psbs--; /* the next PSB's flow is taken when it is reached */
	f->nr_memo = 0;
	snap(f, psbs, off, true);
	f->sync_snap = f->snap;
	f->sync_off = off;
	f->s_insn = f->s_branch = f->s_event = f->s_cov = 0;
	f->sync_ok = true;
	f->far = false;
}

static void restore(struct flow *f, const struct flow_snap *s)
{
	struct qd_flow_ctx *fc = f->fc;

	f->pending = s->pending;
	f->enabled = s->enabled;
	f->has_time = s->has_time;
	f->head = s->head;
	f->p_ip = s->p_ip;
	f->time = s->time;
	f->loc_tsc = s->loc_tsc;
	f->next_ip = s->next_ip;
	f->p_size = s->p_size;
	f->p_kind = s->p_kind;
	f->p_timed = s->p_timed;
	f->p_time = s->p_time;
	f->mode = s->mode;
	fc->space = s->space;
	f->next_space = s->next_space;
	fc->pid = s->pid;
	fc->tid = s->tid;
	f->cov_open = s->cov_open;
	f->cov_ip = s->cov_ip;
	f->cov_end = s->cov_end;
	f->cov_space = s->cov_space;
	f->held = s->held;
	f->held_it = s->held_it;
}

int eng_fall_back(struct flow *f, bool *synced)
{
	struct qd_flow_ctx *fc = f->fc;

	/* a compressed return went past what was called since the last
	 * PSB: libipt starting there would not know where it goes */
	bool far = qd_fpt_stale(f->fast) && f->sync_ok;

	*synced = false;
	if (libipt_new(f))
		return -ENOMEM;
	restore(f, far ? &f->sync_snap : &f->snap);
	f->fast_off = f->fast;
	f->fast = NULL;
	if (fc->space && pt_blk_set_image(f->dec, fc->space->image) < 0)
		return -QPT_E_INVAL;
	f->replay = true;
	f->skip_insn = f->n_insn + (far ? f->s_insn : 0);
	f->skip_branch = f->n_branch + (far ? f->s_branch : 0);
	f->skip_event = f->n_event + (far ? f->s_event : 0);
	f->skip_cov = f->n_cov + (far ? f->s_cov : 0);
	f->memo_pos = far ? 0 : f->memo_snap0;
	f->memo_used = 0;
	f->replay_live = 0;
	f->far = far;
	*synced = far || f->snap_synced;
	return pt_blk_sync_set(f->dec, far ? f->sync_off : f->snap_off);
}

bool eng_fall_back_far(struct flow *f, int *status, bool *synced)
{
	struct qd_flow_ctx *fc = f->fc;

	if (!f->replay || f->far || !f->sync_ok || f->replay_live ||
	    f->snap_off == f->sync_off)
		return false;
	restore(f, &f->sync_snap);
	if (fc->space && pt_blk_set_image(f->dec, fc->space->image) < 0)
		return false;
	/* the items told since the PSB: the fast decoder's, libipt's new */
	f->skip_insn = f->s_insn + f->n_insn;
	f->skip_branch = f->s_branch + f->n_branch;
	f->skip_event = f->s_event + f->n_event;
	f->skip_cov = f->s_cov + f->n_cov;
	f->memo_pos = f->memo_used = 0;
	f->far = true;
	*synced = true;
	*status = pt_blk_sync_set(f->dec, f->sync_off);
	return true;
}

int eng_resume(struct flow *f, int status)
{
	uint64_t off = 0;
	int st;

	if (!f->fast_off || flow_skipping(f))
		return status;
	pt_blk_get_sync_offset(f->dec, &off);
	qd_fpt_set_space(f->fast_off, f->fc->space);
	st = qd_fpt_sync_set(f->fast_off, off);
	if (st < 0)
		return status;
	f->fast = f->fast_off;
	f->fast_off = NULL;
	f->replay = false;
	f->nr_memo = f->memo_pos = f->memo_used = 0;
	eng_synced(f);
	return st;
}

int eng_sync_forward(struct flow *f)
{
	int st;

	if (!f->fast)
		return pt_blk_sync_forward(f->dec);
	st = qd_fpt_sync_forward(f->fast);
	if (st != QD_FAST_BAIL) {
		eng_synced(f);
		return st;
	}
	/* libipt from the start */
	f->fast_off = f->fast;
	f->fast = NULL;
	if (libipt_new(f))
		return -ENOMEM;
	if (f->fc->space && pt_blk_set_image(f->dec, f->fc->space->image) < 0)
		return -QPT_E_INVAL;
	return pt_blk_sync_forward(f->dec);
}

int eng_next(struct flow *f, struct pt_block *b)
{
	if (!f->fast)
		return pt_blk_next(f->dec, b, sizeof(*b));
	/* room in the memo for what this call may locate */
	if (f->nr_memo > FLOW_MEMO - 4)
		return QD_FAST_BAIL;
	return qd_fpt_next(f->fast, b);
}

int eng_event(struct flow *f, struct pt_event *ev)
{
	if (!f->fast)
		return pt_blk_event(f->dec, ev, sizeof(*ev));
	if (f->nr_memo > FLOW_MEMO - 4)
		return QD_FAST_BAIL;
	return qd_fpt_event(f->fast, ev);
}

uint64_t eng_offset(const struct flow *f)
{
	uint64_t off = 0;

	if (f->fast)
		return qd_fpt_offset(f->fast);
	if (f->dec)
		pt_blk_get_offset(f->dec, &off);
	return off;
}

uint64_t eng_sync_offset(const struct flow *f)
{
	uint64_t off = 0;

	if (f->fast)
		return qd_fpt_sync_offset(f->fast);
	pt_blk_get_sync_offset(f->dec, &off);
	return off;
}

bool eng_time(struct flow *f, uint64_t *tsc)
{
	uint32_t lost_mtc, lost_cyc;

	*tsc = 0;
	if (f->fast)
		return qd_fpt_time(f->fast, tsc) >= 0 && *tsc;
	return pt_blk_time(f->dec, tsc, &lost_mtc, &lost_cyc) >= 0 && *tsc;
}
