// SPDX-License-Identifier: MIT
/*
 * qpt_split's plan: the input read once through the session's tables (the
 * queues as the decode rejoins their AUXTRACE buffers, the AUX records'
 * losses), each queue's runs cut where trace was lost and at the PSBs
 * libipt's packet decoder finds, in the decode's order, and the units
 * dealt out to shards of about equal trace bytes.  split.c writes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/split.h"

static int add_unit(struct split *sp, size_t queue, size_t run, uint64_t from,
		    uint64_t to, uint64_t tail, bool at_psb)
{
	struct split_unit *u;

	if (qd_reserve(&sp->units, &sp->cap_units, sp->nr_units, sizeof(*u)))
		return -ENOMEM;
	u = &sp->units[sp->nr_units++];
	u->queue = queue;
	u->run = run;
	u->from = from;
	u->to = to;
	u->tail = tail;
	u->at_psb = at_psb;
	return 0;
}

/* Whether the PSB+ that @d has just read a PSB of says where the trace
 * is (a FUP: tracing is on, the decode goes through it); one without
 * (tracing off) is told as a disable at its end, which a shard ending
 * there could not tell alike. */
static bool psb_traced(struct pt_packet_decoder *d, uint64_t *end)
{
	struct pt_packet pkt;
	bool fup = false;

	while (pt_pkt_next(d, &pkt, sizeof(pkt)) >= 0) {
		fup |= pkt.type == ppt_fup;
		if (pkt.type == ppt_psbend)
			return fup && pt_pkt_get_offset(d, end) >= 0;
	}
	return false;
}

/* Whether packet @type leaves something for a later packet to tell (an
 * enable or disable, a FUP's event, a MODE's binding), which would be told
 * after a PSB+ that follows: 1 it does, 0 it tells (TNT, TIP: what waited
 * is told), -1 neither (timing, padding). */
static int pends(enum pt_packet_type type)
{
	switch (type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_tip:
		return 0;
	case ppt_pad:
	case ppt_tsc:
	case ppt_mtc:
	case ppt_cyc:
	case ppt_cbr:
	case ppt_tma:
	case ppt_psbend:
		return -1;
	default:
		return 1;
	}
}

/* The trace is scanned a window at a time, with bytes to spare after it:
 * a packet that starts in the window ends in them, and a PSB+ there is
 * read whole (psb_traced).  Memory stays a window's, whatever the run. */
#define SCAN_WINDOW (1u << 20)
#define SCAN_SPARE (64u << 10)

/* Where a scan of a run's bytes stands between windows. */
struct scan {
	uint64_t from;	 /* the bytes scanned start here */
	uint64_t start;	 /* the unit being read starts here */
	uint64_t last;	 /* the last resynchronisation (0: none) */
	bool first;	 /* no PSB read yet */
	bool pending;	 /* a packet waits for a later one */
	bool sync;	 /* the next window starts at no known packet */
	bool done;	 /* no more PSBs to resynchronise at */
};

/*
 * The packets of @buf (@n bytes of the run from @at) that start before
 * @limit; returns where the next window starts (a packet boundary, or
 * with sc->sync where to look for a PSB) or -errno.
 */
static int64_t scan_window(struct split *sp, size_t queue, size_t run,
			   struct scan *sc, const uint8_t *buf, uint64_t at,
			   size_t n, size_t limit)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t off, end, next = at + limit;
	int st, err = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = cfg.begin + n;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return -ENOMEM;
	st = sc->sync ? pt_pkt_sync_forward(d) : pt_pkt_sync_set(d, 0);
	sc->sync = st < 0;
	while (st >= 0) {
		if (pt_pkt_get_offset(d, &off) < 0)
			break;
		if (off >= limit) { /* the next window's */
			next = at + off;
			break;
		}
		st = pt_pkt_next(d, &pkt, sizeof(pkt));
		if (st >= 0 && pkt.type == ppt_psb && !sc->first &&
		    at + off - sc->start >= sp->min_unit && !sc->pending &&
		    psb_traced(d, &end)) {
			err = add_unit(sp, queue, run, sc->start, at + off,
				       at + end, sc->start != sc->from);
			if (err)
				break;
			sc->start = at + off;
		}
		if (st >= 0 && pkt.type == ppt_psb)
			sc->first = false;
		if (st >= 0 && pkt.type != ppt_psb && pends(pkt.type) >= 0)
			sc->pending = pends(pkt.type) > 0;
		if (st >= 0)
			continue;
		if (st == -pte_eos) { /* the last window's end */
			sc->done = true;
			break;
		}
		/* a packet libipt does not know: on at the next PSB */
		st = pt_pkt_sync_forward(d);
		sc->sync = st < 0;
		if (st >= 0 && (pt_pkt_get_sync_offset(d, &off) < 0 ||
				(at + off <= sc->last && sc->last))) {
			sc->done = true;
			break;
		}
		sc->last = at + off;
	}
	pt_pkt_free_decoder(d);
	return err ? err : (int64_t)next;
}

/*
 * The units of bytes [from, to) of run @r: cut at each PSB but the first
 * (the decode skips what comes before that one) where tracing is on and
 * nothing waits for a packet after it, as
 * libipt's packet decoder finds them.  A unit's tail is the PSB+ after it:
 * a shard that ends there decodes up to where it says the trace is (the
 * instructions after the last packet before it), and at its time.
 */
static int psb_units(struct split *sp, size_t queue, size_t run,
		     const struct qd_run *r, uint64_t from, uint64_t to)
{
	struct scan sc = {
	    .from = from, .start = from, .first = true, .sync = true};
	/* 8 bytes to spare: libipt may read past a PSB word at the end
	 * (iptbuf.c) */
	uint8_t *buf = to > from ? malloc(SCAN_WINDOW + SCAN_SPARE + 8) : NULL;
	uint64_t at = from;
	int64_t next;
	int err = 0;

	if (to > from && !buf)
		return -ENOMEM;
	while (at < to && !sc.done) {
		size_t n = to - at < SCAN_WINDOW + SCAN_SPARE
				   ? (size_t)(to - at)
				   : SCAN_WINDOW + SCAN_SPARE;
		bool last = at + n == to;

		memset(buf + n, 0, 8);
		err = qd_run_read(&sp->s, r, at - r->start, buf, n);
		if (err)
			break;
		next = scan_window(sp, queue, run, &sc, buf, at, n,
				   last ? n : SCAN_WINDOW);
		if (next < 0) {
			err = (int)next;
			break;
		}
		if (last)
			break;
		at = (uint64_t)next;
	}
	free(buf);
	return err ? err
		   : add_unit(sp, queue, run, sc.start, to, to,
			      sc.start != from);
}

/* A loss the decode tells before unit @u (the first queue to tell it). */
static void tell_at(struct split *sp, size_t lost, size_t u)
{
	if (sp->lost_unit[lost] == SIZE_MAX)
		sp->lost_unit[lost] = u;
}

/*
 * The units of queue @qi, run after run, each in pieces where its ring
 * lost trace (as replay.c's decode_run cuts them); where the decode tells
 * each loss.
 */
static int queue_units(struct split *sp, size_t qi)
{
	const struct qd_queue *q = &sp->s.queues[qi];
	struct qd_cut *cuts;
	size_t nr_cuts, next = 0, k;
	uint64_t from, to, end;
	int err = qd_queue_cuts(&sp->s, q, &cuts, &nr_cuts);

	sp->first_unit[qi] = sp->nr_units;
	for (k = 0; !err && k < q->nr_runs; k++) {
		const struct qd_run *r = &q->runs[k];

		end = r->start + r->len;
		for (from = r->start; !err;) {
			for (; next < nr_cuts && cuts[next].at <= from; next++)
				tell_at(sp, cuts[next].lost, sp->nr_units);
			to = next < nr_cuts && cuts[next].at < end
				 ? cuts[next].at
				 : end;
			err = psb_units(sp, qi, k, r, from, to);
			if (to == end)
				break;
			from = to;
		}
	}
	for (; !err && next < nr_cuts && sp->nr_units; next++)
		tell_at(sp, cuts[next].lost, sp->nr_units - 1);
	free(cuts);
	sp->end_unit[qi] = sp->nr_units;
	return err;
}

/*
 * Deal the units out in order to @shards parts of about equal bytes,
 * none empty (fewer parts when fewer units).
 */
static void deal(struct split *sp, uint32_t shards)
{
	unsigned __int128 total = 0, acc = 0;
	uint32_t n, j = 0;
	size_t u, in_j = 0;

	for (u = 0; u < sp->nr_units; u++)
		total += sp->units[u].to - sp->units[u].from;
	n = sp->nr_units < shards ? (uint32_t)sp->nr_units : shards;
	for (u = 0; u < sp->nr_units; u++) {
		if (in_j && j + 1 < n &&
		    (acc * n >= total * (j + 1) ||
		     sp->nr_units - u == (size_t)(n - 1 - j))) {
			j++;
			in_j = 0;
		}
		sp->units[u].shard = j;
		in_j++;
		acc += sp->units[u].to - sp->units[u].from;
	}
	sp->nr_shards = n;
}

/* Whether queue @q's decode tells the AUXTRACE_ERROR loss @l at its start
 * (replay.c's emit_lost: by cpu, else by thread, else every loss). */
static bool tells_at_start(const struct qd_queue *q, const struct qd_lost *l)
{
	if (q->cpu >= 0)
		return l->cpu == q->cpu;
	if (q->tid >= 0)
		return l->tid == q->tid;
	return true;
}

/*
 * The shard of each loss: a loss cut in the flow goes to the shard of the
 * unit it is told before (else the last shard, after every queue); an
 * AUXTRACE_ERROR to the shard whose queues' starts tell it, which must
 * be every queue of that shard that would (else none can).
 */
static int lost_shards(struct split *sp)
{
	const struct qd_session *s = &sp->s;
	size_t i, qi;

	for (i = 0; i < s->nr_lost; i++) {
		const struct qd_lost *l = &s->lost[i];
		uint32_t want = UINT32_MAX;

		if (l->at_cut) {
			sp->lost_shard[i] =
			    sp->lost_unit[i] == SIZE_MAX
				? sp->nr_shards - 1
				: sp->units[sp->lost_unit[i]].shard;
			continue;
		}
		for (qi = 0; qi < s->nr_queues; qi++) {
			uint32_t a, b;

			if (sp->first_unit[qi] == sp->end_unit[qi] ||
			    !tells_at_start(&s->queues[qi], l))
				continue;
			a = sp->units[sp->first_unit[qi]].shard;
			b = sp->units[sp->end_unit[qi] - 1].shard;
			if (want == UINT32_MAX)
				want = a;
			if (a != want || b != want) {
				sp->errpos = l->pos;
				return split_fail(sp, -QPT_E_UNSUPPORTED,
						  "an AUXTRACE_ERROR record "
						  "queues of two shards "
						  "would tell");
			}
		}
		sp->lost_shard[i] =
		    want == UINT32_MAX ? sp->nr_shards - 1 : want;
	}
	return 0;
}

int split_plan(struct split *sp, uint32_t shards)
{
	size_t n = sp->s.nr_queues ? sp->s.nr_queues : 1, i, k;
	uint64_t total = 0;
	int err = 0;

	qd_session_prepare(&sp->s);
	sp->first_unit = calloc(n, sizeof(*sp->first_unit));
	sp->end_unit = calloc(n, sizeof(*sp->end_unit));
	sp->lost_unit = malloc((sp->s.nr_lost + 1) * sizeof(*sp->lost_unit));
	sp->lost_shard = calloc(sp->s.nr_lost + 1, sizeof(*sp->lost_shard));
	if (!sp->first_unit || !sp->end_unit || !sp->lost_unit ||
	    !sp->lost_shard)
		return -ENOMEM;
	for (i = 0; i < sp->s.nr_lost; i++)
		sp->lost_unit[i] = SIZE_MAX;
	/* units of at least a sixteenth of a shard's share: a shard's bytes
	 * stay within that of the share, and the units' table within
	 * 16 * @shards entries (and one for each loss), whatever the trace
	 * (one for each PSB: 1% of it) */
	for (i = 0; i < sp->s.nr_queues; i++)
		for (k = 0; k < sp->s.queues[i].nr_runs; k++)
			total += sp->s.queues[i].runs[k].len;
	sp->min_unit = total / (16u * (uint64_t)shards);
	if (!sp->min_unit)
		sp->min_unit = 1;
	for (i = 0; !err && i < sp->s.nr_queues; i++)
		err = queue_units(sp, i);
	if (err)
		return err;
	if (!sp->nr_units)
		return split_fail(sp, -QPT_E_UNSUPPORTED,
				  "no Intel PT trace in this file");
	deal(sp, shards);
	return lost_shards(sp);
}
