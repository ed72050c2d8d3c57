// SPDX-License-Identifier: MIT
/*
 * Cycle counts of the CYC packets, by decision.  A packet decoder walks
 * the same bytes as the block decoder and turns them into decisions, in
 * trace order: each TNT bit, each TIP, TIP.PGE and TIP.PGD; each carries
 * the CYC cycles counted since the decision before it (a TNT packet's
 * first bit all of them).  The flow takes one decision for each one the
 * block decoder consumes (a conditional branch, taken or not; an indirect
 * branch or return; a trace enable or disable; an asynchronous branch), so
 * the counts stay in step whatever the block decoder reads ahead.  A taken
 * branch gets the cycles since the previous taken branch: those of its
 * decision, and of the decisions taken since that were no taken branch
 * (conditional branches not taken).
 */
#include <stdlib.h>

#include "decode/internal.h"

struct qd_cyc {
	struct pt_packet_decoder *dec;
	bool synced, done;
	uint64_t acc;	  /* CYC cycles since the last decision read */
	uint64_t tnt_left; /* decisions left in the last TNT read */
	uint64_t carry;	  /* cycles taken, not yet given to a branch */
};

struct qd_cyc *qd_cyc_new(const struct pt_config *config)
{
	struct qd_cyc *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->dec = pt_pkt_alloc_decoder(config);
	if (!c->dec) {
		free(c);
		return NULL;
	}
	return c;
}

void qd_cyc_free(struct qd_cyc *c)
{
	if (!c)
		return;
	pt_pkt_free_decoder(c->dec);
	free(c);
}

void qd_cyc_sync(struct qd_cyc *c, uint64_t offset)
{
	c->acc = c->tnt_left = c->carry = 0;
	c->done = pt_pkt_sync_set(c->dec, offset) < 0;
	c->synced = !c->done;
}

/* The cycles of the next decision; 0 when the trace has no more. */
static uint64_t next_decision(struct qd_cyc *c)
{
	struct pt_packet pkt;
	uint64_t v;

	if (c->tnt_left) {
		c->tnt_left--;
		return 0;
	}
	if (!c->synced && !c->done) {
		c->done = pt_pkt_sync_forward(c->dec) < 0;
		c->synced = !c->done;
	}
	while (!c->done) {
		if (pt_pkt_next(c->dec, &pkt, sizeof(pkt)) < 0) {
			c->done = true;
			break;
		}
		switch (pkt.type) {
		case ppt_cyc:
			c->acc += pkt.payload.cyc.value;
			continue;
		case ppt_tnt_8:
		case ppt_tnt_64:
			if (!pkt.payload.tnt.bit_size)
				continue;
			c->tnt_left = pkt.payload.tnt.bit_size - 1u;
			break;
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			break;
		default:
			continue;
		}
		v = c->acc;
		c->acc = 0;
		return v;
	}
	return 0;
}

void qd_cyc_pass(struct qd_cyc *c)
{
	c->carry += next_decision(c);
}

uint64_t qd_cyc_take(struct qd_cyc *c, bool decision)
{
	uint64_t v = c->carry + (decision ? next_decision(c) : 0);

	c->carry = 0;
	return v;
}

void qd_cyc_give(struct qd_cyc *c, uint64_t cycles, uint64_t next)
{
	c->carry += cycles;
	c->acc += next;
}

uint64_t qd_cyc_rest(struct qd_cyc *c, uint64_t end, uint64_t *next)
{
	uint64_t v = c->carry, off = 0;
	struct pt_packet pkt;

	*next = c->acc;
	while (c->synced && !c->done &&
	       pt_pkt_get_offset(c->dec, &off) >= 0 && off < end &&
	       pt_pkt_next(c->dec, &pkt, sizeof(pkt)) >= 0)
		if (pkt.type == ppt_cyc)
			*next += pkt.payload.cyc.value;
	c->acc = c->carry = 0;
	c->done = true;
	return v;
}
