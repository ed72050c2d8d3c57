// SPDX-License-Identifier: MIT
/*
 * Cycle counts of the CYC packets, by trace position: a packet decoder
 * walks the same bytes as the block decoder, behind it, and sums the CYC
 * payloads up to the block decoder's position whenever a branch is
 * delivered.  The sum since the previous branch is that branch's cycles
 * (perf_branch_entry.cycles: cycles since the last branch).
 */
#include <stdlib.h>

#include "decode/internal.h"

struct qd_cyc {
	struct pt_packet_decoder *dec;
	uint64_t pos;	 /* the packet decoder's offset */
	bool synced, done;
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

/* Synchronize at the next PSB; false at the end of the trace. */
static bool resync(struct qd_cyc *c)
{
	if (pt_pkt_sync_forward(c->dec) < 0) {
		c->done = true;
		return false;
	}
	pt_pkt_get_offset(c->dec, &c->pos);
	c->synced = true;
	return true;
}

uint64_t qd_cyc_take(struct qd_cyc *c, uint64_t offset)
{
	struct pt_packet pkt;
	uint64_t sum = 0;

	if (!c->synced && !c->done && !resync(c))
		return 0;
	while (!c->done && c->pos < offset) {
		int status = pt_pkt_next(c->dec, &pkt, sizeof(pkt));

		if (status < 0) {
			if (!resync(c))
				break;
			continue;
		}
		if (pkt.type == ppt_cyc)
			sum += pkt.payload.cyc.value;
		pt_pkt_get_offset(c->dec, &c->pos);
	}
	return sum;
}
