// SPDX-License-Identifier: MIT
/*
 * A queue's trace is read from the input as it is decoded, a part at a
 * time, never held whole: each run (contiguous trace bytes of a queue)
 * is a list of pieces of AUXTRACE payloads, read with pread where the
 * input is a file (its pages never enter the process), from the spill
 * file where they were not in one (spill.c), or copied from memory.  A
 * run is cut at PSBs into parts of at least QD_PART_MIN bytes, which
 * flows decode one after another, carrying the pending instruction
 * across each cut, or in parallel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/session.h"

/* The PSB packet: 02 82 eight times. */
static const uint8_t psb[16] = {
    0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
    0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* Bytes read at a time while looking for a cut. */
#define PART_CHUNK (64u << 10)
/* The longest PSB+ (PSB to PSBEND) looked for at a cut. */
#define PSB_PLUS_MAX 1024u

static bool piece_ends_by(const void *p, const void *off)
{
	const struct qd_piece *x = p;

	return x->at + x->len <= *(const uint64_t *)off;
}

static int piece_read(const struct qd_session *s, const struct qd_piece *p,
		      uint64_t from, uint8_t *buf, size_t n)
{
	int fd = p->spilled ? s->spill.fd : s->fd;
	ssize_t got;

	if (!p->spilled && (s->fd < 0 || p->own)) {
		memcpy(buf, p->data + from, n);
		return 0;
	}
	while (n) {
		got = pread(fd, buf, n, (off_t)(p->pos + from));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO; /* the file shrank */
		buf += got;
		from += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

int qd_run_read(const struct qd_session *s, const struct qd_run *r,
		uint64_t off, void *buf, size_t n)
{
	uint8_t *out = buf;
	size_t i = qd_partition(r->pieces, r->nr_pieces, sizeof(*r->pieces),
				piece_ends_by, &off);
	int err;

	for (; n && i < r->nr_pieces; i++) {
		const struct qd_piece *p = &r->pieces[i];
		uint64_t from = off - p->at;
		size_t k = p->len - from < n ? (size_t)(p->len - from) : n;

		err = piece_read(s, p, from, out, k);
		if (err)
			return err;
		out += k;
		off += k;
		n -= k;
	}
	return n ? -EIO : 0;
}

void qd_cutter_init(struct qd_cutter *c, const struct qd_session *s,
		    const struct qd_run *run, uint64_t from, uint64_t to)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->run = run;
	c->pos = from;
	c->end = to < run->len ? to : run->len;
}

void qd_cutter_fini(struct qd_cutter *c)
{
	free(c->left);
	c->left = NULL;
	c->nr_left = 0;
}

/*
 * The first PSB of @buf[from, have) that starts a run of PSB bytes (two
 * PSBs in a row match at every other byte of the first), or @have.
 */
static size_t find_psb(const uint8_t *buf, size_t from, size_t have)
{
	const uint8_t *p;

	while (from + sizeof(psb) <= have &&
	       (p = memmem(buf + from, have - from, psb, sizeof(psb)))) {
		size_t i = (size_t)(p - buf);

		if (i < 2 || buf[i - 2] != 0x02 || buf[i - 1] != 0x82)
			return i;
		from = i + 2;
	}
	return have;
}

/*
 * The length of the PSB+ at the start of [p, p + n) (its PSBEND
 * included), by libipt's packet decoder; 0 when it does not end there.
 * With @timing, and the packets of time (and PADs) right after it: a
 * decoder reads ahead over those before the next query (pt_qry_read_ahead,
 * fastpt.c's read_ahead), so a flow that ends at the PSB+ stands where
 * one flow over the cut would, and what it tells there (an event's
 * offset) is the same.
 */
static size_t psb_plus(const struct pt_config *config, const uint8_t *p,
		       size_t n, bool timing)
{
	struct pt_config cfg = *config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t off = 0;
	size_t len = 0;

	cfg.begin = (uint8_t *)p;
	cfg.end = (uint8_t *)p + n;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return 0;
	if (pt_pkt_sync_set(dec, 0) >= 0)
		while (pt_pkt_next(dec, &pkt, sizeof(pkt)) > 0) {
			if (pkt.type == ppt_psbend) {
				if (pt_pkt_get_offset(dec, &off) >= 0)
					len = (size_t)off;
				break;
			}
		}
	while (len && timing && pt_pkt_next(dec, &pkt, sizeof(pkt)) > 0 &&
	       (pkt.type == ppt_pad || pkt.type == ppt_mtc ||
		pkt.type == ppt_tsc || pkt.type == ppt_tma ||
		pkt.type == ppt_cyc) &&
	       pt_pkt_get_offset(dec, &off) >= 0)
		len = (size_t)off;
	pt_pkt_free_decoder(dec);
	return len;
}

int qd_cutter_next(struct qd_cutter *c, struct qd_part *part)
{
	uint64_t rest = c->end > c->pos ? c->end - c->pos : 0;
	size_t have = c->nr_left, cap, cut;
	size_t from = QD_PART_MIN;
	uint8_t *buf;
	int err;

	memset(part, 0, sizeof(*part));
	if (!rest)
		return 0;
	/* room for a part's least and a chunk, or for what is left (a short
	 * queue's part waits in memory for its turn) */
	cap = QD_PART_MIN + PART_CHUNK < rest ? QD_PART_MIN + PART_CHUNK
					      : (size_t)rest;
	if (cap < have)
		cap = have;
	buf = malloc(cap); /* rest > 0: cap > 0 */
	if (!buf)
		return -ENOMEM;
	if (have)
		memcpy(buf, c->left, have);
	for (;;) {
		size_t k;

		cut = find_psb(buf, from, have);
		/* a cut with its PSB+ read (or all there is) */
		if ((cut < have && have - cut >= PSB_PLUS_MAX) || have == rest)
			break;
		if (cut == have)
			from = have > from + sizeof(psb)
				   ? have - sizeof(psb) + 1
				   : from;
		k = rest - have < PART_CHUNK ? (size_t)(rest - have)
					     : PART_CHUNK;
		while (have + k > cap) {
			uint8_t *nb = realloc(buf, 2 * cap);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		err = qd_run_read(c->s, c->run, c->pos + have, buf + have, k);
		if (err) {
			free(buf);
			return err;
		}
		have += k;
	}
	/* a PSB+ cut short by the end is no place to cut (no flow starts
	 * there): the part goes on to the end, as one flow would */
	if (cut < have && have == rest && have - cut < PSB_PLUS_MAX &&
	    !psb_plus(&c->s->cfg, buf + cut, have - cut, false))
		cut = have;
	if (have - cut > c->nr_left || !c->left) {
		uint8_t *nl = realloc(c->left, have - cut ? have - cut : 1);

		if (!nl) {
			free(buf);
			return -ENOMEM;
		}
		c->left = nl;
	}
	memcpy(c->left, buf + cut, have - cut);
	c->nr_left = have - cut;
	part->buf = buf;
	part->own = cut;
	/* the next part's PSB+ too: where the trace is at the cut */
	part->len = cut + psb_plus(&c->s->cfg, buf + cut,
				   have - cut < PSB_PLUS_MAX ? have - cut
							     : PSB_PLUS_MAX,
				   true);
	part->off = c->pos;
	part->last = cut == rest;
	c->pos += cut;
	return 1;
}
