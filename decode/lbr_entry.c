// SPDX-License-Identifier: MIT
/*
 * LBR entries in perf's terms: the flags word of struct perf_branch_entry
 * (through the kernel header's bitfields, so the host's layout) and the
 * branch types (PERF_BR_*).
 */
#include <string.h>
#include <linux/perf_event.h>

#include "auxfmt/sized.h"
#include "qpt/lbr.h"

static const uint8_t to_perf[QPT_BR_NR] = {
	[QPT_BR_JCC] = PERF_BR_COND,	     [QPT_BR_JMP] = PERF_BR_UNCOND,
	[QPT_BR_IND_JMP] = PERF_BR_IND,	     [QPT_BR_CALL] = PERF_BR_CALL,
	[QPT_BR_IND_CALL] = PERF_BR_IND_CALL, [QPT_BR_RET] = PERF_BR_RET,
	[QPT_BR_SYSCALL] = PERF_BR_SYSCALL,  [QPT_BR_SYSRET] = PERF_BR_SYSRET,
	[QPT_BR_INT] = PERF_BR_SYSCALL,	     [QPT_BR_IRET] = PERF_BR_ERET,
	[QPT_BR_ASYNC] = PERF_BR_IRQ,
};

static const uint8_t from_perf[16] = {
	[PERF_BR_UNKNOWN] = QPT_BR_NR,	     [PERF_BR_COND] = QPT_BR_JCC,
	[PERF_BR_UNCOND] = QPT_BR_JMP,	     [PERF_BR_IND] = QPT_BR_IND_JMP,
	[PERF_BR_CALL] = QPT_BR_CALL,	     [PERF_BR_IND_CALL] = QPT_BR_IND_CALL,
	[PERF_BR_RET] = QPT_BR_RET,	     [PERF_BR_SYSCALL] = QPT_BR_SYSCALL,
	[PERF_BR_SYSRET] = QPT_BR_SYSRET,    [PERF_BR_COND_CALL] = QPT_BR_CALL,
	[PERF_BR_COND_RET] = QPT_BR_RET,     [PERF_BR_ERET] = QPT_BR_IRET,
	[PERF_BR_IRQ] = QPT_BR_ASYNC,	     [13] = QPT_BR_NR,
	[14] = QPT_BR_NR,		     [15] = QPT_BR_NR,
};

unsigned qpt_lbr_kind_to_perf(unsigned kind)
{
	return kind < QPT_BR_NR ? to_perf[kind] : PERF_BR_UNKNOWN;
}

unsigned qpt_lbr_kind_from_perf(unsigned type)
{
	return type < 16 ? from_perf[type] : QPT_BR_NR;
}

uint64_t qpt_lbr_entry_perf_flags(const struct qpt_lbr_entry *e)
{
	struct perf_branch_entry b;
	uint64_t v;

	memset(&b, 0, sizeof(b));
	b.mispred = !!(e->flags & QPT_LBR_MISPRED);
	b.predicted = !!(e->flags & QPT_LBR_PREDICTED);
	b.in_tx = !!(e->flags & QPT_LBR_IN_TX);
	b.abort = !!(e->flags & QPT_LBR_ABORT);
	b.cycles = e->cycles > 0xffff ? 0xffff : e->cycles;
	b.type = qpt_lbr_kind_to_perf(e->kind) & 15;
	memcpy(&v, (const uint8_t *)&b + 16, sizeof(v));
	return v;
}

/* The first version's entry ends with flags. */
#define ENTRY_SIZE_V1 (offsetof(struct qpt_lbr_entry, flags) + 2)

int qpt_lbr_entry_from_perf_sized(uint64_t from, uint64_t to, uint64_t flags,
				  struct qpt_lbr_entry *out, size_t size)
{
	struct perf_branch_entry b;
	struct qpt_lbr_entry e;

	if (!out || size < ENTRY_SIZE_V1)
		return -QPT_E_INVAL;
	memcpy((uint8_t *)&b + 16, &flags, sizeof(flags));
	memset(&e, 0, sizeof(e));
	e.from = from;
	e.to = to;
	e.cycles = b.cycles;
	e.kind = (uint16_t)qpt_lbr_kind_from_perf(b.type);
	e.flags = (uint16_t)((b.mispred ? QPT_LBR_MISPRED : 0) |
			     (b.predicted ? QPT_LBR_PREDICTED : 0) |
			     (b.in_tx ? QPT_LBR_IN_TX : 0) |
			     (b.abort ? QPT_LBR_ABORT : 0));
	qpt_sized_copy(out, size, &e, sizeof(e));
	return 0;
}
