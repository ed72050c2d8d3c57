// SPDX-License-Identifier: MIT
/*
 * The fast block decoder's side of the path cache (flow_path.c): the
 * window of TNT bits that can be consumed with nothing else happening
 * (the bits left in the TNT packet at hand, then those of the TNT
 * packets right after it, PADs between them; less the last bit of the
 * run unless a plain TIP follows: consuming that one may find an event
 * or the end next), whether the next block is one a path may hold, and
 * the decoder's state at a path's end, set again when the path is taken
 * from the cache.
 */
#include <string.h>

#include "decode/fastpriv.h"

bool qd_fpt_path_ready(const struct qd_fpt *d)
{
	return d->enabled && d->mode == ptem_64bit && !d->process_event &&
	       !d->status && d->last_time.have_tsc == d->time.have_tsc &&
	       d->last_time.tsc == d->time.tsc;
}

uint64_t qd_fpt_ip(const struct qd_fpt *d)
{
	return d->ip;
}

/* The bits of @v in the reverse order. */
static uint64_t reverse(uint64_t v)
{
	v = ((v >> 1) & 0x5555555555555555ull) |
	    ((v & 0x5555555555555555ull) << 1);
	v = ((v >> 2) & 0x3333333333333333ull) |
	    ((v & 0x3333333333333333ull) << 2);
	v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) |
	    ((v & 0x0f0f0f0f0f0f0f0full) << 4);
	return __builtin_bswap64(v);
}

/* Append the @n (1..47) bits of @v, the first at bit n - 1, to the
 * window of *@nw bits; false when it is full (64). */
static bool add_bits(uint64_t *w, unsigned *nw, uint64_t v, unsigned n)
{
	if (*nw + n > 64)
		return false;
	*w |= (reverse(v) >> (64 - n)) << *nw; /* the first at bit *nw */
	*nw += n;
	return true;
}

/* The next packet of the run at d->win_scan into the window; false at
 * its end (d->win_end) or when the window is full. */
static bool scan(struct qd_fpt *d)
{
	const uint8_t *p = d->win_scan;
	struct fq_pkt k;
	int bad;

	if (p < d->end && !(*p & 1) && *p > 3) { /* TNT-8 */
		unsigned top = 31u - (unsigned)__builtin_clz(*p);

		k.type = FP_TNT;
		k.size = 1;
		k.nbits = (uint8_t)(top - 1);
		k.val = (uint64_t)(*p >> 1) & ((1u << (top - 1)) - 1);
	} else if ((bad = fq_read_pkt(d, p, &k)) ||
		   (k.type != FP_TNT && k.type != FP_PAD)) {
		d->win_end = true;
		/* (a packet that does not read, the end too, sets no type) */
		d->win_tip = !bad && k.type == FP_TIP;
		return false;
	}
	if (k.type == FP_TNT &&
	    !add_bits(&d->win_bits, &d->win_n, k.val, k.nbits))
		return false;
	d->win_scan = p + k.size;
	return true;
}

unsigned qd_fpt_window(struct qd_fpt *d, unsigned need, uint64_t *w)
{
	unsigned n;

	if (d->win_pos != d->pos || d->win_tnti != d->tnt_index) {
		d->win_bits = 0;
		d->win_n = 0;
		d->win_end = false;
		d->win_tip = false;
		if (d->tnt_index) /* the bits left in the packet at hand */
			add_bits(&d->win_bits, &d->win_n,
				 d->tnt & (d->tnt_index * 2 - 1),
				 (unsigned)__builtin_ctzll(d->tnt_index) + 1);
		d->win_scan = d->pos;
		d->win_pos = d->pos;
		d->win_tnti = d->tnt_index;
	}
	while (d->win_n <= need && !d->win_end && scan(d))
		;
	n = d->win_n;
	/* the run's last bit is one too when a TIP that no event waits for
	 * follows (the status after it is as before it), else its query
	 * says what follows (an event pending, the end) */
	if (d->win_end && n && !(d->win_tip && !d->evq[FB_TIP].n))
		n--;
	*w = n < 64 ? d->win_bits & ((1ull << n) - 1) : d->win_bits;
	return n;
}

int qd_fpt_skip_bits(struct qd_fpt *d, unsigned n)
{
	bool win = d->win_pos == d->pos && d->win_tnti == d->tnt_index &&
		   n <= d->win_n;

	if (win) { /* the window goes on after them */
		d->win_bits = n < 64 ? d->win_bits >> n : 0;
		d->win_n -= n;
	}
	while (n) {
		unsigned left, take;
		int taken, st;

		if (!d->tnt_index) { /* the next TNT packet, as a query */
			st = fq_cond_branch(d, &taken);
			if (st < 0)
				return st;
			n--;
			continue;
		}
		left = (unsigned)__builtin_ctzll(d->tnt_index) + 1;
		take = n < left ? n : left;
		d->tnt_index >>= take;
		n -= take;
	}
	d->status = fq_status(d);
	if (win) {
		d->win_pos = d->pos;
		d->win_tnti = d->tnt_index;
	}
	return d->status;
}

unsigned qd_fpt_ret_depth(const struct qd_fpt *d)
{
	return d->ret_n;
}

void qd_fpt_ret_top(const struct qd_fpt *d, uint64_t *ret, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		ret[i] = d->ret[(d->ret_top + 64 - (n - 1 - i)) & 63];
}

void qd_fpt_path_end(const struct qd_fpt *d, uint64_t *ip, uint64_t *li_ip,
		     uint64_t *li_target, uint8_t *li_len, uint8_t *li_cls)
{
	*ip = d->ip;
	*li_ip = d->li_ip;
	*li_target = d->li_target;
	*li_len = d->li_len;
	*li_cls = d->li_cls;
}

void qd_fpt_path_set(struct qd_fpt *d, uint64_t ip, uint64_t li_ip,
		     uint64_t li_target, uint8_t li_len, uint8_t li_cls,
		     unsigned pop, const uint64_t *push, unsigned n)
{
	unsigned i;

	if (pop && d->ret_n)
		fq_ret_pop(d);
	d->ip = ip;
	d->li_ip = li_ip;
	d->li_target = li_target;
	d->li_len = li_len;
	d->li_cls = li_cls;
	for (i = 0; i < n; i++)
		fq_ret_push(d, push[i]);
}

int qd_fpt_peek(struct qd_fpt *d, unsigned own, int bit, bool *tail)
{
	uint64_t ip = d->ip;
	uint32_t n = 0;

	*tail = false;
	for (;;) {
		const struct qd_run_ent *r = fq_run_at(d, ip);

		if (!r)
			return -1;
		n += r->ninsn;
		if (n > 0xffff)
			return -1; /* libipt ends the block there */
		switch (r->cls) {
		case QX86_NONE:
			ip = r->end_ip + r->last_len;
			continue;
		case QX86_JMP:
			return 0;
		case QX86_CALL:
			return d->ret_n < 64 ? 0 : -1;
		case QX86_JCC:
		case QX86_LOOP:
			return bit < 0 ? -1 : 1;
		case QX86_RET:
			return bit == 1 && own ? 1 : -1;
		case QX86_JMP_IND:
			*tail = true;
			return 0;
		case QX86_CALL_IND:
			*tail = d->ret_n < 64;
			return *tail ? 0 : -1;
		default:
			return -1;
		}
	}
}
