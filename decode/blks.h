/* SPDX-License-Identifier: MIT */
/*
 * The instructions of blocks (blks.c), for the flows with instruction
 * items: a block of the fast decoder, by its start, its address space,
 * its mode and count, is walked (each instruction's bytes found, decoded
 * and given its symbol) the first time only; each later time its
 * instructions are read from here.  Direct-mapped by the start, of
 * bounded size; a block of more than QD_BLK_MAX instructions is walked
 * each time.
 */
#ifndef QPT_DECODE_BLKS_H
#define QPT_DECODE_BLKS_H

#include <stdbool.h>
#include <stdint.h>

#define QD_BLK_MAX 15

/* An instruction of a block: where, its bytes and class, where a direct
 * jump or call goes, its symbol (NULL: none, or none wanted). */
struct qd_blk_insn {
	uint64_t ip, target;
	const char *sym;
	uint64_t symoff;
	uint8_t len, cls;
	uint8_t raw[15];
};

struct qd_blk {
	uint64_t ip;
	const void *space;
	uint32_t ninsn; /* 0: empty */
	uint32_t bits;
	struct qd_blk_insn insn[QD_BLK_MAX];
};

struct qd_blks;

struct qd_blks *qd_blks_new(void);
void qd_blks_free(struct qd_blks *c);
/* Forget every block (the spaces they name may be gone). */
void qd_blks_reset(struct qd_blks *c);
/* The entry for a block at @ip: its instructions when it holds that
 * block (qd_blk_is), else the one to fill in. */
struct qd_blk *qd_blks_slot(struct qd_blks *c, uint64_t ip);

static inline bool qd_blk_is(const struct qd_blk *e, uint64_t ip,
			     const void *space, uint32_t ninsn, uint32_t bits)
{
	return e->ninsn == ninsn && e->ip == ip && e->space == space &&
	       e->bits == bits;
}

#endif
