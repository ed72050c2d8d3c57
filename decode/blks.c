// SPDX-License-Identifier: MIT
/*
 * The instructions of blocks by their start (blks.h): a direct-mapped
 * table on huge pages (bigmem.h: a block's entry is anywhere in it).
 */
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "decode/blks.h"

#define BLKS_ORDER 11

struct qd_blks {
	struct qd_blk *ent; /* 1 << BLKS_ORDER of them */
	bool used; /* since made or reset: else nothing to forget */
};

#define BLKS_BYTES (((size_t)1 << BLKS_ORDER) * sizeof(struct qd_blk))

struct qd_blks *qd_blks_new(void)
{
	struct qd_blks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ent = bigmem_zalloc(BLKS_BYTES);
	if (!c->ent) {
		free(c);
		return NULL;
	}
	return c;
}

void qd_blks_free(struct qd_blks *c)
{
	if (!c)
		return;
	bigmem_free(c->ent, BLKS_BYTES);
	free(c);
}

void qd_blks_reset(struct qd_blks *c)
{
	size_t i;

	if (!c || !c->used)
		return;
	c->used = false;
	for (i = 0; i < (size_t)1 << BLKS_ORDER; i++)
		c->ent[i].ninsn = 0;
}

struct qd_blk *qd_blks_slot(struct qd_blks *c, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	c->used = true;
	return &c->ent[h >> (64 - BLKS_ORDER)];
}
