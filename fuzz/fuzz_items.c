// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what consumes the decoder's items: the LBR tracker
 * (decode/lbr_flow.c, with sample points and a period) and the crash walk
 * (decode/crash_walk.c, the stack rebuilt from calls and returns), both
 * fed the same items, made from the input as the decoder could never make
 * them: any order, kinds, threads, times and addresses.  Everything they
 * give back is read.
 *
 * Input: 4 bytes of options (LBR depth and mode, period, walk sizes, the
 * number of sample points), then 16 bytes an item (item() says how); the
 * first items are the sample points (tid, time, ip).
 */
#include <string.h>

#include "fuzz/common.h"
#include "qpt/crash_walk.h"
#include "qpt/lbr.h"

#define ITEM 16

static volatile size_t sink;

static const char *const syms[4] = {NULL, "f", "g", "_start"};

static int on_lbr(const struct qpt_lbr_record *r, void *ctx)
{
	size_t i, n = r->ip + r->time + r->insns + r->hw_idx + r->point;

	if (r->nr > QPT_LBR_MAX_DEPTH)
		fz_fail("an LBR record deeper than the most an LBR holds");
	for (i = 0; i < r->nr; i++) {
		const struct qpt_lbr_entry *e = qpt_lbr_record_entry(r, i);

		n += e->from + e->to + e->cycles + e->kind + e->flags +
		     qpt_lbr_entry_perf_flags(e);
	}
	sink += n;
	return 0;
}

static uint64_t addr(const uint8_t *p)
{
	uint16_t v = (uint16_t)(p[0] | p[1] << 8);

	return v >= 0xfff0 ? (uint64_t)0 - (v & 1) : 0x400100u + v;
}

/* Item @p: its type and flags, kind, thread, size and mode, ip, to, time
 * step, value, why a trace ended, and its first instruction bytes. */
static void item(const uint8_t *p, uint64_t *time, struct qpt_item *it)
{
	static const uint8_t modes[4] = {0, 16, 32, 64};

	memset(it, 0, sizeof(*it));
	it->struct_size = sizeof(*it);
	it->type = (enum qpt_item_type)(p[0] % 3);
	it->flags = p[0] >> 2;
	it->kind =
	    p[1] % (it->type == QPT_ITEM_EVENT ? QPT_EV_NR + 1 : QPT_BR_NR + 1);
	it->tid = p[2] & 3;
	it->pid = p[2] & 4 ? it->tid : 1;
	it->cpu = p[2] >> 4;
	it->size = p[3] & 15;
	it->mode = modes[(p[3] >> 4) & 3];
	it->sym = syms[p[3] >> 6];
	it->to_sym = syms[(p[3] >> 5) & 3];
	it->ip = addr(p + 4);
	it->to = addr(p + 6);
	*time += (uint64_t)(int64_t)(int8_t)p[8] * 16;
	it->time = *time;
	it->value = p[9];
	it->via = p[10] % (QPT_BR_NR + 1);
	memcpy(it->raw, p + 11, 5);
	it->symoff = p[11];
	it->msg = it->type == QPT_ITEM_EVENT ? "event" : NULL;
}

static void walk_out(const struct qpt_crash_walk *w)
{
	size_t t, i, n = 0;

	for (t = 0; t < qpt_crash_walk_nr_threads(w); t++) {
		struct qpt_crash_thread th;
		struct qpt_crash_frame f;
		struct qpt_crash_insn in;
		struct qpt_lbr_entry e;
		const char *sym;
		uint64_t off;

		if (qpt_crash_walk_thread(w, t, &th))
			fz_fail("a thread the walk counts but does not give");
		for (i = 0; i < th.nr_frames; i++)
			if (!qpt_crash_walk_frame(w, t, i, &f))
				n += f.site + fz_str(f.sym) + f.signal;
		for (i = 0; i < th.nr_insns; i++)
			if (!qpt_crash_walk_insn(w, t, i, &in)) {
				if (in.size > sizeof(in.raw))
					fz_fail("a kept instruction too long");
				n += in.ip + fz_str(in.sym) + in.raw[0];
			}
		for (i = 0; i < th.nr_branches; i++)
			if (!qpt_crash_walk_branch(w, t, i, &e))
				n += e.from + e.to;
		if (qpt_crash_walk_sym(w, t, th.end_ip, &sym, &off) == 1)
			n += fz_str(sym) + off;
		n += fz_str(th.first_sym) + fz_str(th.base_sym) +
		     fz_str(th.end_sym) + th.below + th.insns;
		if (qpt_crash_walk_find(w, th.tid) != (int)t)
			fz_fail("a thread the walk does not find by its tid");
	}
	sink += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qpt_crash_walk_opts wo;
	struct qpt_crash_walk *w = NULL;
	struct qpt_lbr *lbr = NULL;
	struct qpt_lbr_opts lo;
	struct qpt_item it;
	uint64_t time = 1000;
	size_t i, points;

	if (size < 4)
		return 0;
	qpt_lbr_opts_init(&lo);
	lo.depth = 1 + data[0] % 32;
	lo.mode = (data[0] >> 5) & 1;
	lo.no_end = data[0] >> 7;
	lo.period = data[1];
	qpt_crash_walk_opts_init(&wo);
	wo.last = data[2] % 33;
	wo.insns = data[3] & 63;
	points = data[3] >> 6;
	if (qpt_lbr_new(&lo, on_lbr, NULL, &lbr) || qpt_crash_walk_new(&wo, &w))
		goto out;
	for (i = 4; i + ITEM <= size; i += ITEM) {
		item(data + i, &time, &it);
		if (points) {
			points--;
			if (qpt_lbr_add_point(lbr, it.tid, it.time, it.ip))
				goto out;
			continue;
		}
		if (qpt_lbr_item(&it, lbr) < 0 || qpt_crash_walk_item(&it, w))
			goto out;
	}
	if (!qpt_lbr_finish(lbr) && !qpt_crash_walk_finish(w))
		walk_out(w);
out:
	qpt_lbr_free(lbr);
	qpt_crash_walk_free(w);
	return 0;
}
