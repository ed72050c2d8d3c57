// SPDX-License-Identifier: MIT
/*
 * The fast block decoder's blocks and events: libipt 2.0's block decoder
 * (end_on_call and end_on_jump set, as flow.c asks) again, over the runs
 * of runs.c instead of one instruction at a time: the same blocks, the
 * same events bound to the same instructions, the same return stack.
 * Whatever libipt would call an error is QD_FAST_BAIL: flow.c then
 * decodes that part with libipt itself.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/fastpriv.h"

struct qd_fpt *qd_fpt_new(const struct pt_config *cfg, struct qd_runs *runs)
{
	struct qd_fpt *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->begin = cfg->begin;
	d->end = cfg->end;
	d->errata_bdm70 = cfg->errata.bdm70;
	d->errata_skd022 = cfg->errata.skd022;
	d->clock.mtc_freq = cfg->mtc_freq;
	d->clock.ctc_den = cfg->cpuid_0x15_eax;
	d->clock.ctc_num = cfg->cpuid_0x15_ebx;
	d->runs = runs;
	return d;
}

void qd_fpt_free(struct qd_fpt *d)
{
	free(d);
}

void qd_fpt_set_space(struct qd_fpt *d, struct qd_space *space)
{
	d->space = space;
}

uint64_t qd_fpt_offset(const struct qd_fpt *d)
{
	return d->pos ? (uint64_t)(d->pos - d->begin) : 0;
}

uint64_t qd_fpt_sync_offset(const struct qd_fpt *d)
{
	return d->sync ? (uint64_t)(d->sync - d->begin) : 0;
}

int qd_fpt_time(const struct qd_fpt *d, uint64_t *tsc)
{
	*tsc = d->last_time.tsc;
	return d->last_time.have_tsc ? 0 : -pte_no_time;
}

uint64_t qd_fpt_last_psb(const struct qd_fpt *d)
{
	return d->last_psb;
}

bool qd_fpt_last_psb_synced(const struct qd_fpt *d)
{
	return d->last_psb_synced;
}

uint64_t qd_fpt_psbs(const struct qd_fpt *d)
{
	return d->nr_psb;
}

void qd_fpt_last(const struct qd_fpt *d, uint8_t *len, uint8_t *cls)
{
	*len = d->li_len;
	*cls = d->li_cls;
}

bool qd_fpt_stale(const struct qd_fpt *d)
{
	return d->stale;
}

bool qd_fpt_psb_fresh(const struct qd_fpt *d)
{
	return d->psb_clean && d->psb_time_same && d->enabled == d->psb_ip &&
	       (d->psb_mode || d->mode == ptem_unknown);
}

unsigned qd_fpt_pre(const struct qd_fpt *d)
{
	return d->pre + d->gave_pre;
}

static int bail(int err)
{
	return err == -pte_eos ? err : QD_FAST_BAIL;
}

const struct qd_run_ent *fq_run_at(struct qd_fpt *d, uint64_t ip)
{
	return d->mode == ptem_64bit ? qd_runs_get(d->runs, d->space, ip)
				     : NULL;
}

/* pt_blk_status */
static int blk_status(const struct qd_fpt *d, int flags)
{
	if (!d->enabled)
		flags |= pts_ip_suppressed;
	if ((d->status & pts_eos) && !d->process_event)
		flags |= pts_eos;
	return flags;
}

/* pt_blk_fetch_event: 1 when an event is in process, 0 when none. */
static int fetch_event(struct qd_fpt *d)
{
	int st;

	if (d->process_event)
		return 1;
	if (!(d->status & pts_event_pending))
		return 0;
	st = fq_event(d, &d->ev);
	if (st < 0)
		return bail(st);
	d->process_event = true;
	d->status = st;
	return 1;
}

static bool vm_entry_at(struct qd_fpt *d, uint64_t ip)
{
	uint8_t buf[16];
	const uint8_t *p;
	size_t n = d->space ? qd_space_code(d->space, ip, buf, &p) : 0;

	return n >= 3 && p[0] == 0x0f && p[1] == 0x01 &&
	       (p[2] == 0xc2 || p[2] == 0xc3);
}

/* pt_blk_proceed_trailing_event (no postponed instructions here) */
static int trailing_event(struct qd_fpt *d)
{
	const struct pt_event *ev = &d->ev;
	int st = fetch_event(d);

	if (st <= 0)
		return st < 0 ? st : blk_status(d, 0);
	switch (ev->type) {
	case ptev_enabled:
	case ptev_cbr:
	case ptev_tick:
		return blk_status(d, pts_event_pending);
	case ptev_async_disabled:
		if (d->ip != ev->variant.async_disabled.at)
			break;
		if (d->errata_skd022 && vm_entry_at(d, d->ip))
			return QD_FAST_BAIL;
		return blk_status(d, pts_event_pending);
	case ptev_async_branch:
		if (d->ip != ev->variant.async_branch.from)
			break;
		return blk_status(d, pts_event_pending);
	case ptev_exec_mode:
		if (!ev->ip_suppressed && d->ip != ev->variant.exec_mode.ip)
			break;
		return blk_status(d, pts_event_pending);
	case ptev_disabled:
		break;
	default:
		return QD_FAST_BAIL;
	}
	return blk_status(d, 0);
}

/* Add instructions to @b: @n of them, the last at @last_ip. */
static int add_insns(struct pt_block *b, uint32_t n, uint64_t last_ip,
		     uint8_t cls)
{
	static const uint8_t iclass[QX86_NCLASSES] = {
	    [QX86_NONE] = ptic_other,	      [QX86_JCC] = ptic_cond_jump,
	    [QX86_LOOP] = ptic_cond_jump,     [QX86_JMP] = ptic_jump,
	    [QX86_JMP_IND] = ptic_jump,	      [QX86_CALL] = ptic_call,
	    [QX86_CALL_IND] = ptic_call,      [QX86_RET] = ptic_return,
	    [QX86_FAR_JMP] = ptic_far_jump,   [QX86_FAR_CALL] = ptic_far_call,
	    [QX86_FAR_RET] = ptic_far_return, [QX86_SYSCALL] = ptic_far_call,
	    [QX86_SYSENTER] = ptic_far_call,  [QX86_SYSRET] = ptic_far_return,
	    [QX86_INT] = ptic_far_call,	      [QX86_IRET] = ptic_far_return,
	};

	if ((uint32_t)b->ninsn + n > 0xffff)
		return QD_FAST_BAIL; /* libipt would end the block here */
	b->ninsn = (uint16_t)(b->ninsn + n);
	b->end_ip = last_ip;
	b->iclass = iclass[cls];
	return 0;
}

/* Remember the instruction reached (the run's last when @k is its last). */
static void reach(struct qd_fpt *d, const struct qd_run_ent *r, uint64_t ip,
		  uint32_t k)
{
	d->li_ip = ip;
	if (k + 1 == r->ninsn) {
		d->li_cls = r->cls;
		d->li_len = r->last_len;
		d->li_target = r->target;
	} else {
		d->li_cls = QX86_NONE;
		d->li_len = r->lens[k];
	}
}

/* After reaching the run's last instruction: where it goes without
 * trace (1, d->ip set; for direct jumps and calls 2: the block ends), or
 * 0: it needs trace (d->ip stays at it). */
static int step_over(struct qd_fpt *d)
{
	uint64_t next = d->li_ip + d->li_len;

	switch (d->li_cls) {
	case QX86_NONE:
		d->ip = next;
		return 1;
	case QX86_JMP:
		d->ip = d->li_target;
		return 2;
	case QX86_CALL:
		if (d->li_target != next)
			fq_ret_push(d, next);
		d->ip = d->li_target;
		return 2;
	case QX86_CALL_IND:
		fq_ret_push(d, next);
		d->ip = d->li_ip;
		return 0;
	default:
		d->ip = d->li_ip;
		return 0;
	}
}

/*
 * pt_blk_proceed_to_ip: walk to *@ip without trace (@ip NULL: to the
 * first instruction that needs trace; every address is one that code
 * may have, all ones too).  1: reached; 0: the block ended first (a
 * direct jump or call); -pte_bad_query: an instruction needs trace first
 * (d->ip at it); QD_FAST_BAIL.
 */
static int to_ip(struct qd_fpt *d, struct pt_block *b, const uint64_t *ip)
{
	for (;;) {
		const struct qd_run_ent *r;
		uint64_t at = d->ip;
		uint32_t k;
		int st;

		if (ip && at == *ip)
			return 1;
		r = fq_run_at(d, at);
		if (!r)
			return QD_FAST_BAIL;
		for (k = 0; k < r->ninsn && !(ip && at == *ip); k++)
			at += r->lens[k];
		if (k < r->ninsn) {
			/* reached inside the run, after k instructions */
			if (add_insns(b, k, at - r->lens[k - 1], QX86_NONE))
				return QD_FAST_BAIL;
			reach(d, r, at - r->lens[k - 1], k - 1);
			d->ip = *ip;
			return 1;
		}
		if (add_insns(b, r->ninsn, r->end_ip, r->cls))
			return QD_FAST_BAIL;
		reach(d, r, r->end_ip, r->ninsn - 1);
		st = step_over(d);
		if (!st)
			return -pte_bad_query;
		if (st == 2)
			return ip && d->ip == *ip;
	}
}

/* pt_blk_tick (flow.c enables tick events): after a query that found a
 * new time, a tick event for the instruction at @ip, unless an event is
 * in process. */
static int tick(struct qd_fpt *d, uint64_t ip)
{
	struct pt_event *ev = &d->ev;

	if (!d->enabled)
		return QD_FAST_BAIL; /* libipt: -pte_internal */
	if (d->process_event || d->last_time.tsc == ev->tsc)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->type = ptev_tick;
	ev->variant.tick.ip = ip;
	ev->has_tsc = d->last_time.have_tsc;
	ev->tsc = d->last_time.tsc;
	d->process_event = true;
	return 0;
}

/* pt_blk_next_ip and pt_blk_proceed_with_trace for the instruction
 * reached, which needs trace: d->ip the next block's start. */
static int with_trace(struct qd_fpt *d)
{
	uint64_t next = d->li_ip + d->li_len, ip = 0;
	int st, taken;

	switch (d->li_cls) {
	case QX86_JCC:
	case QX86_LOOP:
		st = fq_cond_branch(d, &taken);
		if (st < 0 || tick(d, d->li_ip))
			return st < 0 ? bail(st) : QD_FAST_BAIL;
		d->ip = taken ? d->li_target : next;
		d->status = st;
		return 0;
	case QX86_RET:
		st = fq_cond_branch(d, &taken);
		if (st >= 0 && tick(d, d->li_ip))
			return QD_FAST_BAIL;
		if (st >= 0) {
			if (!taken || !d->ret_n)
				return QD_FAST_BAIL;
			d->ip = fq_ret_pop(d);
			d->status = st;
			return 0;
		}
		if (st != -pte_bad_query)
			return bail(st);
		break;
	case QX86_NONE:
	case QX86_JMP:
	case QX86_CALL:
		return QD_FAST_BAIL;
	default:
		break;
	}
	st = fq_indirect_branch(d, &ip);
	if (st < 0)
		return bail(st);
	if (tick(d, d->li_ip))
		return QD_FAST_BAIL;
	d->status = st;
	if (st & pts_ip_suppressed)
		return QD_FAST_BAIL; /* libipt: -pte_noip */
	d->ip = ip;
	return 0;
}

/* pt_blk_proceed_no_event: one block up to a branch that needs trace, or
 * a direct jump or call. */
static int no_event(struct qd_fpt *d, struct pt_block *b)
{
	for (;;) {
		const struct qd_run_ent *r;
		int st;

		r = fq_run_at(d, d->ip);
		if (!r)
			return QD_FAST_BAIL;
		if (add_insns(b, r->ninsn, r->end_ip, r->cls))
			return QD_FAST_BAIL;
		reach(d, r, r->end_ip, r->ninsn - 1);
		st = step_over(d);
		if (st == 2)
			return 0;
		if (!st)
			return with_trace(d);
	}
}

/* Where a disable ends tracing: after a call, else unknown. */
static void disable_resume_ip(struct qd_fpt *d)
{
	switch (d->li_cls) {
	case QX86_CALL:
	case QX86_CALL_IND:
	case QX86_FAR_CALL:
	case QX86_SYSCALL:
	case QX86_SYSENTER:
	case QX86_INT:
		d->ip = d->li_ip + d->li_len;
		break;
	default:
		d->ip = 0;
		break;
	}
}

/* pt_blk_proceed_event for the event in process. */
static int proceed_event(struct qd_fpt *d, struct pt_block *b)
{
	const struct pt_event *ev = &d->ev;
	int st;

	switch (ev->type) {
	case ptev_enabled:
	case ptev_cbr:
	case ptev_tick:
		break;
	case ptev_disabled:
		/* binds to the next branch that needs trace (no CR3 writes
		 * in user code), or to its ip */
		st = to_ip(d, b,
			   ev->ip_suppressed ? NULL : &ev->variant.disabled.ip);
		if (st <= 0) {
			if (st != -pte_bad_query)
				return st;
			disable_resume_ip(d);
		}
		break;
	case ptev_async_disabled:
		st = to_ip(d, b, &ev->variant.async_disabled.at);
		if (st <= 0)
			return st < 0 ? bail(st) : 0;
		if (d->errata_skd022 && vm_entry_at(d, d->ip))
			return QD_FAST_BAIL;
		break;
	case ptev_async_branch:
		st = to_ip(d, b, &ev->variant.async_branch.from);
		if (st <= 0)
			return st < 0 ? bail(st) : 0;
		break;
	case ptev_exec_mode:
		if (ev->ip_suppressed)
			break;
		st = to_ip(d, b, &ev->variant.exec_mode.ip);
		if (st == -pte_bad_query)
			st = with_trace(d);
		if (st < 0)
			return bail(st);
		if (d->ip != ev->variant.exec_mode.ip)
			return 0;
		break;
	default:
		return QD_FAST_BAIL;
	}
	return blk_status(d, pts_event_pending);
}

int qd_fpt_tail(struct qd_fpt *d)
{
	int st = with_trace(d); /* as no_event's last step */

	return st < 0 ? st : trailing_event(d);
}

int qd_fpt_next(struct qd_fpt *d, struct pt_block *b)
{
	int st;

	memset(b, 0, sizeof(*b));
	b->ip = d->ip;
	b->mode = d->mode;
	st = fetch_event(d);
	if (st)
		return st < 0 ? st : proceed_event(d, b);
	if (!d->enabled)
		return d->status & pts_eos ? -pte_eos : QD_FAST_BAIL;
	st = no_event(d, b);
	if (st < 0)
		return st;
	return trailing_event(d);
}

int qd_fpt_event(struct qd_fpt *d, struct pt_event *uev)
{
	struct pt_event *ev = &d->ev;

	if (!d->process_event)
		return QD_FAST_BAIL;
	switch (ev->type) {
	case ptev_enabled:
		if (ev->variant.enabled.ip == d->ip)
			ev->variant.enabled.resumed = 1;
		if (ev->status_update || ev->ip_suppressed || d->enabled)
			return QD_FAST_BAIL;
		d->ip = ev->variant.enabled.ip;
		d->enabled = true;
		break;
	case ptev_async_disabled:
		if (d->ip != ev->variant.async_disabled.at)
			return QD_FAST_BAIL;
		/* fall through */
	case ptev_disabled:
		if (ev->status_update || !d->enabled)
			return QD_FAST_BAIL;
		d->enabled = false;
		break;
	case ptev_async_branch:
		if (d->ip != ev->variant.async_branch.from ||
		    ev->status_update || !d->enabled || ev->ip_suppressed)
			return QD_FAST_BAIL;
		d->ip = ev->variant.async_branch.to;
		break;
	case ptev_exec_mode:
		if ((!ev->ip_suppressed && d->ip != ev->variant.exec_mode.ip) ||
		    ev->variant.exec_mode.mode != ptem_64bit)
			return QD_FAST_BAIL;
		d->mode = ptem_64bit;
		break;
	case ptev_cbr:
	case ptev_tick:
		break;
	default:
		return QD_FAST_BAIL;
	}
	d->process_event = false;
	d->gave_pre = d->pre != 0;
	if (d->pre)
		d->pre--;
	*uev = *ev;
	return trailing_event(d);
}

/* Start at the PSB @sync: pt_blk_sync_* after the reset. */
static int start(struct qd_fpt *d, const uint8_t *sync)
{
	bool have_ip;
	int st;

	d->mode = ptem_unknown;
	d->ip = 0;
	d->status = 0;
	d->enabled = false;
	d->process_event = false;
	d->ev_found = false;
	d->gave_pre = false;
	d->ret_n = 0;
	d->ret_top = 0;
	d->ret_fresh = 0;
	d->stale = false;
	memset(&d->ev, 0, sizeof(d->ev));
	st = fq_start(d, sync, &d->ip, &have_ip);
	if (st < 0)
		return QD_FAST_BAIL;
	d->last_psb_synced = true;
	d->status = st;
	if (!(st & pts_ip_suppressed))
		d->enabled = true;
	st = trailing_event(d);
	return st < 0 ? QD_FAST_BAIL : st;
}

int qd_fpt_sync_forward(struct qd_fpt *d)
{
	const uint8_t *sync = fq_next_psb(d);

	return sync ? start(d, sync) : QD_FAST_BAIL;
}

int qd_fpt_sync_set(struct qd_fpt *d, uint64_t offset)
{
	if (offset + 16 > (uint64_t)(d->end - d->begin))
		return QD_FAST_BAIL;
	return start(d, d->begin + offset);
}
