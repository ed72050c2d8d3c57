// SPDX-License-Identifier: MIT
/*
 * The fast block decoder's packets and queries: libipt's query decoder
 * (its position, look-ahead, TNT cache, last IP and event queues) again
 * for PAD, PSB+, PSBEND, TNT, TIP, TIP.PGE, TIP.PGD, FUP, MODE.Exec, TSC
 * and CBR, on a packet reader of its own.  What is read where, and which
 * events come when, follows libipt 2.0's query decoder, so that offsets
 * and the order of events are the same; any other packet, and any state
 * libipt would call an error, is QD_FAST_BAIL.  The blocks are in
 * fastblk.c.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/fastpriv.h"

/* ---- the packet reader ---- */

static int ip_bytes(unsigned ipc)
{
	static const int8_t n[8] = {0, 2, 4, 6, 6, -1, 8, -1};

	return n[ipc & 7];
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* An IP packet at @p (its first byte @b): QD_FAST_BAIL when malformed. */
static int read_ip(struct fq_pkt *k, const uint8_t *p, size_t avail,
		   unsigned type)
{
	unsigned ipc = p[0] >> 5;
	int n = ip_bytes(ipc);

	if (n < 0 || avail < (size_t)n + 1)
		return QD_FAST_BAIL;
	k->type = type;
	k->size = (uint8_t)(n + 1);
	k->ipc = (uint8_t)ipc;
	k->val = le(p + 1, n);
	return 0;
}

/* The extended (0x02) packets. */
static int read_ext(struct fq_pkt *k, const uint8_t *p, size_t avail)
{
	if (avail < 2)
		return QD_FAST_BAIL;
	switch (p[1]) {
	case 0x82: /* PSB: 02 82 eight times */
		if (avail < 16)
			return QD_FAST_BAIL;
		for (int i = 2; i < 16; i += 2)
			if (p[i] != 0x02 || p[i + 1] != 0x82)
				return QD_FAST_BAIL;
		k->type = FP_PSB;
		k->size = 16;
		return 0;
	case 0x23:
		k->type = FP_PSBEND;
		k->size = 2;
		return 0;
	case 0xa3: { /* TNT-64: 47 bits and a stop bit */
		uint64_t v;
		int top;

		if (avail < 8)
			return QD_FAST_BAIL;
		v = le(p + 2, 6);
		if (!v)
			return QD_FAST_BAIL;
		top = 63 - __builtin_clzll(v);
		if (!top)
			return QD_FAST_BAIL;
		k->type = FP_TNT;
		k->size = 8;
		k->val = v & ((1ull << top) - 1);
		k->nbits = (uint8_t)top;
		return 0;
	}
	case 0x03: /* CBR (libipt: a ratio of 0 is an error) */
		if (avail < 4 || !p[2])
			return QD_FAST_BAIL;
		k->type = FP_CBR;
		k->size = 4;
		k->val = p[2];
		return 0;
	case 0x73: /* TMA: CTC, a reserved byte, 9 bits of FC */
		if (avail < 7 || p[4] || (p[6] & 0xfe))
			return QD_FAST_BAIL;
		k->type = FP_TMA;
		k->size = 7;
		k->val = le(p + 2, 2) | le(p + 5, 2) << 16;
		return 0;
	default:
		return QD_FAST_BAIL;
	}
}

/* The packet at d->pos into @k; -pte_eos at the end, else QD_FAST_BAIL
 * for what the fast decoder leaves to libipt. */
static int read_pkt(const struct qd_fpt *d, const uint8_t *p, struct fq_pkt *k)
{
	size_t avail = (size_t)(d->end - p);
	uint8_t b;

	if (p >= d->end)
		return -pte_eos;
	b = p[0];
	if (!b) {
		k->type = FP_PAD;
		k->size = 1;
		return 0;
	}
	if (b == 0x02)
		return read_ext(k, p, avail);
	if (!(b & 1)) { /* TNT-8: up to 6 bits and a stop bit */
		int top = 31 - __builtin_clz(b);

		if (top < 2)
			return QD_FAST_BAIL;
		k->type = FP_TNT;
		k->size = 1;
		k->nbits = (uint8_t)(top - 1);
		k->val = (uint64_t)(b >> 1) & ((1u << (top - 1)) - 1);
		return 0;
	}
	switch (b & 0x1f) {
	case 0x0d:
		return read_ip(k, p, avail, FP_TIP);
	case 0x11:
		return read_ip(k, p, avail, FP_PGE);
	case 0x01:
		return read_ip(k, p, avail, FP_PGD);
	case 0x1d:
		return read_ip(k, p, avail, FP_FUP);
	}
	if (b == 0x99) { /* MODE: Exec only */
		if (avail < 2 || (p[1] >> 5) != 0)
			return QD_FAST_BAIL;
		k->type = FP_MODE;
		k->size = 2;
		k->val = p[1];
		return 0;
	}
	if (b == 0x59) {
		if (avail < 2)
			return QD_FAST_BAIL;
		k->type = FP_MTC;
		k->size = 2;
		k->val = p[1];
		return 0;
	}
	if (b == 0x19) {
		if (avail < 8)
			return QD_FAST_BAIL;
		k->type = FP_TSC;
		k->size = 8;
		k->val = le(p + 1, 7);
		return 0;
	}
	return QD_FAST_BAIL;
}

/* ---- libipt's query decoder, again ---- */

/* MODE.Exec's CS.L (bit 0) and CS.D (bit 1) as pt_get_exec_mode reads
 * them. */
static enum pt_exec_mode exec_mode(uint64_t bits)
{
	if (bits & 1)
		return bits & 2 ? ptem_unknown : ptem_64bit;
	return bits & 2 ? ptem_32bit : ptem_16bit;
}

static void last_ip_update(struct qd_fpt *d, const struct fq_pkt *k)
{
	uint64_t v = k->val;

	switch (k->ipc) {
	case 0:
		d->ip_suppressed = true;
		return;
	case 1:
		d->last_ip = (d->last_ip & ~0xffffull) | (v & 0xffff);
		break;
	case 2:
		d->last_ip = (d->last_ip & ~0xffffffffull) | (v & 0xffffffff);
		break;
	case 3:
		d->last_ip = v & (1ull << 47) ? v | ~0xffffffffffffull
					      : v & 0xffffffffffffull;
		break;
	case 4:
		d->last_ip =
		    (d->last_ip & ~0xffffffffffffull) | (v & 0xffffffffffffull);
		break;
	default:
		d->last_ip = v;
		break;
	}
	d->have_ip = true;
	d->ip_suppressed = false;
}

/* pt_last_ip_query: 0 and the ip, or nonzero (no ip or suppressed). */
static int last_ip(const struct qd_fpt *d, uint64_t *ip)
{
	*ip = 0;
	if (!d->have_ip || d->ip_suppressed)
		return -1;
	*ip = d->last_ip;
	return 0;
}

/* pt_qry_event_time: the time, wall-clock or not */
static void event_time(const struct qd_fpt *d, struct pt_event *ev)
{
	ev->has_tsc = d->time.have_tsc;
	ev->tsc = d->time.tsc;
}

/* A timing packet: TSC, TMA or MTC, in the header or not. */
static int time_pkt(struct fq_time *t, const struct fq_clock *c,
		    const struct fq_pkt *k)
{
	switch (k->type) {
	case FP_TSC:
		ft_tsc(t, k->val);
		return 0;
	case FP_TMA:
		return ft_tma(t, c, (uint32_t)(k->val & 0xffff),
			      (uint32_t)(k->val >> 16));
	default:
		return ft_mtc(t, c, (uint8_t)k->val);
	}
}

static int timing(struct qd_fpt *d, const struct fq_pkt *k)
{
	return time_pkt(&d->time, &d->clock, k);
}

/* Each binding's queue: a ring of FQ_EVQ events. */
static struct pt_event *evq_enqueue(struct qd_fpt *d, int b)
{
	struct fq_evq *q = &d->evq[b];
	struct pt_event *ev;

	if (q->n == FQ_EVQ_CAP)
		return NULL;
	ev = &q->ev[(q->head + q->n++) % FQ_EVQ];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

static struct pt_event *evq_dequeue(struct qd_fpt *d, int b)
{
	struct fq_evq *q = &d->evq[b];
	struct pt_event *ev;

	if (!q->n)
		return NULL;
	ev = &q->ev[q->head];
	q->head = (q->head + 1) % FQ_EVQ;
	q->n--;
	return ev;
}

static struct pt_event *standalone(struct qd_fpt *d)
{
	memset(&d->alone, 0, sizeof(d->alone));
	return &d->alone;
}

/* pt_qry_will_event */
static bool will_event(const struct qd_fpt *d)
{
	switch (d->nx.type) {
	case FP_PGE:
	case FP_PGD:
	case FP_MODE:
	case FP_CBR:
		return true;
	case FP_PSBEND:
		return d->evq[FB_PSBEND].n != 0;
	case FP_TIP:
		return d->evq[FB_TIP].n != 0;
	case FP_FUP:
		return d->evq[FB_FUP].n != 0;
	default:
		return false;
	}
}

/* pt_df_fetch: the packet at d->pos into d->nx (FP_NONE and the error
 * when there is none). */
static int fetch(struct qd_fpt *d)
{
	int err = read_pkt(d, d->pos, &d->nx);

	if (err)
		d->nx.type = FP_NONE;
	return err;
}

static int status_flags(const struct qd_fpt *d)
{
	int flags = 0;

	if (!d->tnt_index) {
		if (will_event(d))
			flags |= pts_event_pending;
		if (d->nx.type == FP_NONE && d->pos >= d->end)
			flags |= pts_eos;
	}
	return flags;
}

static int decode_psbend(struct qd_fpt *d)
{
	struct pt_event *ev = evq_dequeue(d, FB_PSBEND);

	if (!ev) {
		d->pos += 2;
		return 0;
	}
	ev->status_update = 1;
	event_time(d, ev);
	if (ev->type == ptev_exec_mode && last_ip(d, &ev->variant.exec_mode.ip))
		ev->ip_suppressed = 1;
	d->event = ev;
	return 0;
}

/*
 * Erratum BDM70 (a PSB+ while tracing is disabled may hold a FUP): it
 * applies when a TIP.PGE follows the FUP with only timing, mode, PAD and
 * PSBEND packets between them, as libipt checks.  1: it applies; 0: not;
 * QD_FAST_BAIL: a packet this reader does not know comes first.
 */
static int bdm70_applies(const struct qd_fpt *d, const uint8_t *p)
{
	struct fq_pkt k;

	for (;; p += k.size) {
		if (p >= d->end)
			return 0;
		if (read_pkt(d, p, &k))
			return QD_FAST_BAIL;
		switch (k.type) {
		case FP_PGE:
			return 1;
		case FP_PAD:
		case FP_TSC:
		case FP_CBR:
		case FP_PSBEND:
		case FP_MODE:
		case FP_TMA:
		case FP_MTC:
			continue;
		default:
			return 0;
		}
	}
}

/* A packet of the PSB+ header (pt_qry_header_*). */
static int header_pkt(struct qd_fpt *d)
{
	const struct fq_pkt *k = &d->nx;
	struct pt_event *ev;

	switch (k->type) {
	case FP_PAD:
		break;
	case FP_FUP:
		if (d->errata_bdm70 && !d->q_enabled) {
			int st = bdm70_applies(d, d->pos + k->size);

			if (st < 0)
				return QD_FAST_BAIL;
			if (st)
				break; /* the FUP is consumed, and nothing else */
		}
		last_ip_update(d, k);
		if (k->ipc)
			d->q_enabled = true;
		break;
	case FP_MODE:
	case FP_CBR:
		ev = evq_enqueue(d, FB_PSBEND);
		if (!ev)
			return QD_FAST_BAIL;
		if (k->type == FP_MODE) {
			d->psb_mode = true;
			ev->type = ptev_exec_mode;
			ev->variant.exec_mode.mode = exec_mode(k->val);
		} else {
			ev->type = ptev_cbr;
			ev->variant.cbr.ratio = (uint8_t)k->val;
		}
		break;
	case FP_TSC:
	case FP_TMA:
	case FP_MTC:
		if (timing(d, k))
			return QD_FAST_BAIL;
		if (time_pkt(&d->psb_time, &d->clock, k))
			d->psb_time_ok = false;
		break;
	default:
		return QD_FAST_BAIL; /* libipt: pte_bad_context, or more */
	}
	d->pos += k->size;
	return 0;
}

/* pt_qry_decode_psb: the PSB+ header up to its PSBEND. */
static int decode_psb(struct qd_fpt *d)
{
	int err;

	d->last_psb = (uint64_t)(d->pos - d->begin);
	d->last_psb_synced = false;
	d->nr_psb++;
	/* the event in process, and the one being fetched, came before */
	d->pre = (d->process_event ? 1u : 0u) + (d->ev_found ? 1u : 0u);
	/* nothing carried over that libipt starting here would not have */
	d->psb_clean = !d->evq[FB_TIP].n && !d->evq[FB_FUP].n &&
		       !d->tnt_index && !d->consume;
	d->psb_mode = false;
	ft_init(&d->psb_time);
	d->psb_time_ok = true;
	d->ret_fresh = 0; /* a PSB: hardware compresses no older return */
	d->pos += 16;
	d->have_ip = false;
	d->ip_suppressed = false;
	d->last_ip = 0;
	for (;;) {
		uint64_t ip;

		err = fetch(d);
		if (err)
			return QD_FAST_BAIL;
		if (d->nx.type == FP_PSBEND) {
			d->psb_ip = !last_ip(d, &ip);
			/* equal here, equal after: the same packets follow */
			d->psb_time_same = d->psb_time_ok &&
					   ft_equal(&d->time, &d->psb_time);
			return 0;
		}
		err = header_pkt(d);
		if (err)
			return err;
	}
}

static int decode_tip(struct qd_fpt *d)
{
	struct pt_event *ev;

	last_ip_update(d, &d->nx);
	ev = evq_dequeue(d, FB_TIP);
	if (ev) {
		if (ev->type == ptev_async_branch) {
			d->consume = true;
			if (last_ip(d, &ev->variant.async_branch.to))
				ev->ip_suppressed = 1;
		} else if (ev->type == ptev_exec_mode) {
			if (last_ip(d, &ev->variant.exec_mode.ip))
				ev->ip_suppressed = 1;
		} else {
			return QD_FAST_BAIL;
		}
		d->event = ev;
		if (d->evq[FB_TIP].n || !d->consume)
			return 0;
		d->consume = false;
	}
	d->pos += d->nx.size;
	return 0;
}

static int decode_pge(struct qd_fpt *d)
{
	struct pt_event *ev;

	last_ip_update(d, &d->nx);
	if (!d->consume) {
		ev = standalone(d);
		ev->type = ptev_enabled;
		if (last_ip(d, &ev->variant.enabled.ip))
			return QD_FAST_BAIL;
		event_time(d, ev);
		d->tnt_index = 0;
		d->consume = true;
		d->q_enabled = true;
	} else {
		ev = evq_dequeue(d, FB_TIP);
		if (!ev || ev->type != ptev_exec_mode)
			return QD_FAST_BAIL;
		if (last_ip(d, &ev->variant.exec_mode.ip))
			ev->ip_suppressed = 1;
	}
	d->event = ev;
	if (d->evq[FB_TIP].n)
		return 0;
	d->consume = false;
	d->pos += d->nx.size;
	return 0;
}

static int decode_pgd(struct qd_fpt *d)
{
	struct pt_event *ev;

	last_ip_update(d, &d->nx);
	ev = evq_dequeue(d, FB_TIP);
	if (ev && ev->type == ptev_async_branch) {
		uint64_t at = ev->variant.async_branch.from;

		ev->type = ptev_async_disabled;
		ev->variant.async_disabled.at = at;
		if (last_ip(d, &ev->variant.async_disabled.ip))
			ev->ip_suppressed = 1;
	} else if (ev && ev->type == ptev_exec_mode) {
		ev->ip_suppressed = 1;
	} else if (ev) {
		return QD_FAST_BAIL;
	} else {
		ev = standalone(d);
		ev->type = ptev_disabled;
		if (last_ip(d, &ev->variant.disabled.ip))
			ev->ip_suppressed = 1;
		event_time(d, ev);
	}
	d->event = ev;
	if (d->evq[FB_TIP].n)
		return 0;
	d->q_enabled = false;
	d->pos += d->nx.size;
	return 0;
}

static int decode_fup(struct qd_fpt *d)
{
	struct pt_event *ev;
	uint64_t ip;

	last_ip_update(d, &d->nx);
	if (d->evq[FB_FUP].n)
		return QD_FAST_BAIL; /* only OVF, TSX, ... bind to FUP */
	if (last_ip(d, &ip))
		return QD_FAST_BAIL;
	ev = evq_enqueue(d, FB_TIP);
	if (!ev)
		return QD_FAST_BAIL;
	ev->type = ptev_async_branch;
	ev->variant.async_branch.from = ip;
	event_time(d, ev);
	d->pos += d->nx.size;
	return 0;
}

/* Apply the packet d->nx (a decoder function of libipt's). */
static int decode(struct qd_fpt *d)
{
	struct pt_event *ev;

	switch (d->nx.type) {
	case FP_PAD:
		d->pos += 1;
		return 0;
	case FP_PSB:
		return decode_psb(d);
	case FP_PSBEND:
		return decode_psbend(d);
	case FP_TNT:
		if (d->tnt_index)
			return QD_FAST_BAIL;
		d->tnt = d->nx.val;
		d->tnt_index = 1ull << (d->nx.nbits - 1);
		d->pos += d->nx.size;
		return 0;
	case FP_TIP:
		return decode_tip(d);
	case FP_PGE:
		return decode_pge(d);
	case FP_PGD:
		return decode_pgd(d);
	case FP_FUP:
		return decode_fup(d);
	case FP_MODE:
		ev = evq_enqueue(d, FB_TIP);
		if (!ev)
			return QD_FAST_BAIL;
		ev->type = ptev_exec_mode;
		ev->variant.exec_mode.mode = exec_mode(d->nx.val);
		event_time(d, ev);
		d->pos += 2;
		return 0;
	case FP_TSC:
	case FP_TMA:
	case FP_MTC:
		if (timing(d, &d->nx))
			return QD_FAST_BAIL;
		d->pos += d->nx.size;
		return 0;
	case FP_CBR:
		ev = standalone(d);
		ev->type = ptev_cbr;
		ev->variant.cbr.ratio = (uint8_t)d->nx.val;
		d->event = ev;
		event_time(d, ev);
		d->pos += 4;
		return 0;
	default:
		return QD_FAST_BAIL;
	}
}

/* pt_qry_read_ahead: up to the next packet a query needs. */
static int read_ahead(struct qd_fpt *d)
{
	for (;;) {
		int err = fetch(d);

		if (err)
			return err;
		if (d->nx.type == FP_TIP || d->nx.type == FP_TNT)
			return 0;
		if (will_event(d))
			return 0;
		err = decode(d);
		if (err)
			return err;
	}
}

/* After a query: keep the time, read ahead (the end is no error). */
static int query_done(struct qd_fpt *d)
{
	int err;

	d->last_time = d->time;
	err = read_ahead(d);
	if (err && err != -pte_eos)
		return QD_FAST_BAIL;
	return 0;
}

/* A packet that is missing: at the end, -pte_eos (libipt's fetch error). */
static int missing(const struct qd_fpt *d)
{
	return d->pos >= d->end ? -pte_eos : QD_FAST_BAIL;
}

int fq_cond_branch(struct qd_fpt *d, int *taken)
{
	int err;

	if (!d->tnt_index) {
		for (;;) {
			if (d->nx.type == FP_NONE)
				return missing(d);
			if (will_event(d) || d->nx.type == FP_TIP)
				return -pte_bad_query;
			d->event = NULL;
			err = decode(d);
			if (err)
				return QD_FAST_BAIL;
			if (d->event)
				return QD_FAST_BAIL;
			if (d->nx.type == FP_TNT)
				break;
			if (read_ahead(d))
				return QD_FAST_BAIL;
		}
		err = query_done(d);
		if (err)
			return err;
	}
	*taken = (d->tnt & d->tnt_index) != 0;
	d->tnt_index >>= 1;
	return status_flags(d);
}

int fq_indirect_branch(struct qd_fpt *d, uint64_t *ip)
{
	int flags = 0, err;

	for (;;) {
		unsigned type = d->nx.type;

		if (type == FP_NONE)
			return missing(d);
		if (will_event(d))
			return QD_FAST_BAIL;
		if (type == FP_TNT && d->tnt_index)
			return QD_FAST_BAIL;
		d->event = NULL;
		err = decode(d);
		if (err || d->event)
			return QD_FAST_BAIL;
		if (type == FP_TIP) {
			if (last_ip(d, ip))
				flags |= pts_ip_suppressed;
			break;
		}
		if (read_ahead(d))
			return QD_FAST_BAIL;
	}
	err = query_done(d);
	if (err)
		return err;
	return flags | status_flags(d);
}

int fq_event(struct qd_fpt *d, struct pt_event *ev)
{
	int err;

	if (d->tnt_index)
		return QD_FAST_BAIL;
	for (;;) {
		if (d->nx.type == FP_NONE)
			return missing(d);
		if ((d->nx.type == FP_TIP || d->nx.type == FP_TNT) &&
		    !will_event(d))
			return QD_FAST_BAIL;
		d->event = NULL;
		err = decode(d);
		if (err)
			return QD_FAST_BAIL;
		if (d->event) {
			*ev = *d->event;
			break;
		}
		if (read_ahead(d))
			return QD_FAST_BAIL;
	}
	d->ev_found = true;
	err = query_done(d);
	d->ev_found = false;
	if (err)
		return err;
	return status_flags(d);
}

/*
 * pt_sync_forward: the first PSB at or after @from, as libipt finds it
 * (8-byte aligned words of its pattern, by address), or NULL.
 */
static const uint8_t *find_psb(const struct qd_fpt *d, const uint8_t *from)
{
	const uint8_t *pos, *cur, *p;
	uintptr_t a = ((uintptr_t)from + 7) & ~(uintptr_t)7;

	for (pos = (const uint8_t *)a;;) {
		uint64_t v;

		cur = pos;
		pos += 8;
		if (pos > d->end)
			return NULL;
		memcpy(&v, cur, 8);
		if (v != 0x8202820282028202ull && v != 0x0282028202820282ull)
			continue;
		p = pos;
		if (p < d->end && *p != 0x02) /* the word may end the buffer */
			p++;
		for (; p + 1 < d->end; p += 2)
			if (p[0] != 0x02 || p[1] != 0x82)
				break;
		p -= 16;
		if (p < d->begin || p[0] != 0x02 || p[1] != 0x82)
			continue;
		if (p + 16 > d->end)
			continue;
		if (p < from)
			continue;
		return p;
	}
}

/*
 * pt_qry_start: decode the PSB+ at @sync and read ahead; *@ip the start
 * ip (*@have_ip false: tracing is disabled).  Returns the status bits.
 */
int fq_start(struct qd_fpt *d, const uint8_t *sync, uint64_t *ip, bool *have_ip)
{
	int err, status;

	memset(d->evq, 0, sizeof(d->evq));
	d->q_enabled = false;
	d->consume = false;
	d->event = NULL;
	d->have_ip = d->ip_suppressed = false;
	d->last_ip = 0;
	d->tnt_index = 0;
	ft_init(&d->time);
	ft_init(&d->last_time);
	d->sync = d->pos = sync;
	if (fetch(d) || d->nx.type != FP_PSB)
		return QD_FAST_BAIL;
	err = decode_psb(d);
	if (err)
		return err;
	*have_ip = !last_ip(d, ip);
	err = read_ahead(d);
	if (err)
		return QD_FAST_BAIL;
	status = status_flags(d);
	if (!*have_ip) {
		*have_ip = !last_ip(d, ip);
		if (!*have_ip)
			status |= pts_ip_suppressed;
	}
	return status;
}

/* pt_qry_sync_forward's search: the PSB to start at next, or NULL. */
const uint8_t *fq_next_psb(const struct qd_fpt *d)
{
	const uint8_t *pos = d->pos ? d->pos : d->begin;
	size_t space;

	if (pos == d->sync)
		pos += 16;
	space = (size_t)(pos - d->begin);
	pos -= space >= 16 ? 15 : space;
	return find_psb(d, pos);
}

int fq_read_pkt(const struct qd_fpt *d, const uint8_t *p, struct fq_pkt *k)
{
	return read_pkt(d, p, k);
}

int fq_status(const struct qd_fpt *d)
{
	return status_flags(d);
}
