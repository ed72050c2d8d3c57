// SPDX-License-Identifier: MIT
/*
 * The packet generator of the emulated source against hand-written packet
 * tables (what user-only Intel PT emits for each step, per the SDM), read
 * back with libipt's packet decoder: PSB+, MODE.Exec + TIP.PGE on entry,
 * TNT bit order and flushing, last-IP compression, return compression on
 * a matching call only, TIP.PGD for far transfers, FUP + TIP.PGD for
 * asynchronous ones, long TNT, and PSB+ with FUP while enabled; with
 * timing, the TSC, TMA, MTC, CBR and CYC fields against the scripted clock
 * values they were made from (CTC = TSC / 40, cycles = TSC ticks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "capture/emulate/pt.h"

struct buf {
	uint8_t b[65536];
	size_t n;
};

static int out(void *ctx, const uint8_t *p, size_t len)
{
	struct buf *b = ctx;

	assert_true(b->n + len <= sizeof(b->b));
	memcpy(b->b + b->n, p, len);
	b->n += len;
	return 0;
}

struct want {
	enum pt_packet_type type;
	int ipc;	  /* for IP packets */
	uint64_t ip;	  /* for IP packets with an IP */
	int tnt_size;	  /* for TNT */
	uint64_t tnt;
	uint64_t val;	  /* TSC, MTC ctc, CYC, CBR ratio, TMA ctc */
	uint64_t fc;	  /* TMA fast counter */
};

#define PKT(t) {(t), 0, 0, 0, 0, 0, 0}
#define IPP(t, c, a) {(t), (c), (a), 0, 0, 0, 0}
#define TNT(t, s, v) {(t), 0, 0, (s), (v), 0, 0}
#define VAL(t, v) {(t), 0, 0, 0, 0, (v), 0}
#define TMA(c, f) {ppt_tma, 0, 0, 0, 0, (c), (f)}

static void check(const struct buf *b, const struct want *w, size_t nw)
{
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	struct pt_config cfg;
	size_t i = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)b->b;
	cfg.end = (uint8_t *)b->b + b->n;
	dec = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(dec);
	assert_int_equal(pt_pkt_sync_set(dec, 0), 0);
	for (;;) {
		st = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (st == -pte_eos)
			break;
		assert_true(st > 0);
		if (pkt.type == ppt_pad)
			continue;
		if (i >= nw)
			fail_msg("extra packet %zu of type %d", i, pkt.type);
		if (pkt.type != w[i].type)
			fail_msg("packet %zu: type %d, want %d", i, pkt.type,
				 w[i].type);
		switch (pkt.type) {
		case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: case ppt_fup:
			if ((int)pkt.payload.ip.ipc != w[i].ipc)
				fail_msg("packet %zu: ipc %d, want %d", i,
					 pkt.payload.ip.ipc, w[i].ipc);
			if (w[i].ipc != pt_ipc_suppressed) {
				uint64_t mask = w[i].ipc == pt_ipc_update_16 ?
					0xffff : w[i].ipc == pt_ipc_update_32 ?
					0xffffffff : 0xffffffffffff;
				assert_int_equal(pkt.payload.ip.ip & mask,
						 w[i].ip & mask);
			}
			break;
		case ppt_tnt_8: case ppt_tnt_64:
			assert_int_equal(pkt.payload.tnt.bit_size,
					 w[i].tnt_size);
			assert_int_equal(pkt.payload.tnt.payload, w[i].tnt);
			break;
		case ppt_tsc:
			assert_int_equal(pkt.payload.tsc.tsc, w[i].val);
			break;
		case ppt_tma:
			assert_int_equal(pkt.payload.tma.ctc, w[i].val);
			assert_int_equal(pkt.payload.tma.fc, w[i].fc);
			break;
		case ppt_mtc:
			assert_int_equal(pkt.payload.mtc.ctc, w[i].val);
			break;
		case ppt_cyc:
			assert_int_equal(pkt.payload.cyc.value, w[i].val);
			break;
		case ppt_cbr:
			assert_int_equal(pkt.payload.cbr.ratio, w[i].val);
			break;
		case ppt_mode:
			assert_int_equal(pkt.payload.mode.leaf, pt_mol_exec);
			assert_int_equal(pt_get_exec_mode(
				&pkt.payload.mode.bits.exec), ptem_64bit);
			break;
		default:
			break;
		}
		i++;
	}
	assert_int_equal(i, nw);
	pt_pkt_free_decoder(dec);
}

static void test_sequence(void **state)
{
	static const struct want w[] = {
		PKT(ppt_psb), PKT(ppt_mode), PKT(ppt_psbend),
		PKT(ppt_mode), IPP(ppt_tip_pge, pt_ipc_update_32, 0x401000),
		TNT(ppt_tnt_8, 3, 0x3),	/* NT, T, compressed RET */
		IPP(ppt_tip, pt_ipc_update_16, 0x403000),
		TNT(ppt_tnt_8, 1, 0x1),	/* compressed RET */
		IPP(ppt_tip, pt_ipc_sext_48, 0x7f0000500000),
		IPP(ppt_tip_pgd, pt_ipc_suppressed, 0),
		IPP(ppt_tip_pge, pt_ipc_update_16, 0x7f0000500012),
		IPP(ppt_fup, pt_ipc_update_16, 0x7f0000500020),
		IPP(ppt_tip_pgd, pt_ipc_suppressed, 0),
	};
	struct emu_pt_opts o = {.retcomp = true, .psb_period = 4096};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt;

	pt = emu_pt_new(&o, out, b);
	assert_non_null(pt);
	assert_int_equal(emu_pt_start(pt), 0);
	assert_false(emu_pt_enabled(pt));
	assert_int_equal(emu_pt_insn(pt, 0x401000,
				     &(struct emu_insn){.cls = 0, .x.len = 0},
				     0x401003),
			 0);
	assert_true(emu_pt_enabled(pt));
	emu_pt_insn(pt, 0x401003,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401005);
	emu_pt_insn(pt, 0x401005,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401020);
	emu_pt_insn(pt, 0x401020,
		    &(struct emu_insn){.cls = EMU_INSN_CALL, .x.len = 5},
		    0x402000);
	emu_pt_insn(pt, 0x402000,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1},
		    0x401025);
	emu_pt_insn(pt, 0x401025,
		    &(struct emu_insn){.cls = EMU_INSN_CALL_IND, .x.len = 2},
		    0x403000);
	emu_pt_insn(pt, 0x403010,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1},
		    0x401027);
	/* a RET with nothing pushed since the last PSB: not compressed */
	emu_pt_insn(pt, 0x401030,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1},
		    0x7f0000500000);
	emu_pt_insn(pt, 0x7f0000500010,
		    &(struct emu_insn){.cls = EMU_INSN_FAR, .x.len = 2}, 0);
	assert_false(emu_pt_enabled(pt));
	emu_pt_insn(pt, 0x7f0000500012, &(struct emu_insn){.cls = 0, .x.len = 0},
		    0x7f0000500015);
	assert_int_equal(emu_pt_async(pt, 0x7f0000500020), 0);
	assert_false(emu_pt_enabled(pt));
	assert_int_equal(emu_pt_async(pt, 0x7f0000500020), 0); /* nothing */
	assert_int_equal(emu_pt_flush(pt), 0);
	assert_int_equal(emu_pt_bytes(pt), b->n);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

/* A gap (what ran after a lost single-step trap is not known): the trace
 * stops where it begins (FUP + TIP.PGD, pending TNT first), OVF, and goes
 * on with the full address (decoders forget the last IP); no RET is
 * compressed against calls from before it. */
static void test_gap(void **state)
{
	static const struct want w[] = {
	    PKT(ppt_psb),
	    PKT(ppt_mode),
	    PKT(ppt_psbend),
	    PKT(ppt_mode),
	    IPP(ppt_tip_pge, pt_ipc_update_32, 0x401000),
	    TNT(ppt_tnt_8, 1, 0x1),
	    IPP(ppt_fup, pt_ipc_update_16, 0x401003),
	    IPP(ppt_tip_pgd, pt_ipc_suppressed, 0),
	    PKT(ppt_ovf),
	    IPP(ppt_tip_pge, pt_ipc_sext_48, 0x401100),
	    IPP(ppt_tip, pt_ipc_update_16, 0x401008),
	};
	struct emu_pt_opts o = {.retcomp = true};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);

	emu_pt_start(pt);
	emu_pt_insn(pt, 0x401000,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401010);
	emu_pt_insn(pt, 0x401010,
		    &(struct emu_insn){.cls = EMU_INSN_CALL, .x.len = 5},
		    0x401003);
	assert_int_equal(emu_pt_gap(pt, 0x401003, 0x401100), 0);
	assert_true(emu_pt_enabled(pt));
	emu_pt_insn(pt, 0x401100,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1},
		    0x401008);
	emu_pt_flush(pt);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

/* A RET to a call made before a TIP.PGD is not compressed; without
 * return compression none is. */
static void test_retcomp_rules(void **state)
{
	static const struct want w[] = {
		PKT(ppt_psb), PKT(ppt_mode), PKT(ppt_psbend),
		PKT(ppt_mode), IPP(ppt_tip_pge, pt_ipc_update_16, 0x1000),
		IPP(ppt_tip_pgd, pt_ipc_suppressed, 0),
		/* re-enabled at the first instruction after the syscall */
		IPP(ppt_tip_pge, pt_ipc_update_16, 0x2002),
		IPP(ppt_tip, pt_ipc_update_16, 0x1005),
	};
	struct emu_pt_opts o = {.retcomp = true};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);

	emu_pt_start(pt);
	emu_pt_insn(pt, 0x1000,
		    &(struct emu_insn){.cls = EMU_INSN_CALL, .x.len = 5}, 0x2000);
	emu_pt_insn(pt, 0x2000,
		    &(struct emu_insn){.cls = EMU_INSN_FAR, .x.len = 2}, 0);
	emu_pt_insn(pt, 0x2002,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1}, 0x1005);
	emu_pt_flush(pt);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

static void test_long_tnt_and_psb(void **state)
{
	struct emu_pt_opts o = {.retcomp = false, .psb_period = 32};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet pkt;
	int i, tnt64 = 0, psb = 0, fup_in_psb = 0, in_psb = 0, bits = 0;
	uint64_t ip = 0x10000;

	emu_pt_start(pt);
	for (i = 0; i < 600; i++, ip += 2)
		emu_pt_insn(pt, ip,
			    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
			    ip + 2);
	emu_pt_flush(pt);
	pt_config_init(&cfg);
	cfg.begin = b->b;
	cfg.end = b->b + b->n;
	dec = pt_pkt_alloc_decoder(&cfg);
	pt_pkt_sync_set(dec, 0);
	while (pt_pkt_next(dec, &pkt, sizeof(pkt)) > 0) {
		if (pkt.type == ppt_psb) {
			psb++;
			in_psb = 1;
		} else if (pkt.type == ppt_psbend) {
			in_psb = 0;
		} else if (pkt.type == ppt_fup && in_psb) {
			fup_in_psb++;
		} else if (pkt.type == ppt_tnt_64) {
			tnt64++;
			bits += pkt.payload.tnt.bit_size;
			assert_int_equal(pkt.payload.tnt.payload, 0);
		} else if (pkt.type == ppt_tnt_8) {
			bits += pkt.payload.tnt.bit_size;
			assert_int_equal(pkt.payload.tnt.payload, 0);
		}
	}
	assert_int_equal(bits, 600);
	assert_true(tnt64 >= 10);
	assert_true(psb >= 3);
	assert_int_equal(fup_in_psb, psb - 1); /* all but the first */
	pt_pkt_free_decoder(dec);
	emu_pt_free(pt);
	free(b);
}

/*
 * The FUP of a PSB+ carries the whole IP, whatever the last IP was: perf
 * (6.1) looks ahead for it and applies it to the last IP before the PSB
 * resets it, so a compressed one named 0x7fff00401643 after a call into
 * the vDSO whose return was compressed (an emulated recording's trace
 * lost the rest of a thread to that).
 */
static void test_psb_fup_whole(void **state)
{
	static const struct want w[] = {
		PKT(ppt_psb), PKT(ppt_mode), PKT(ppt_psbend),
		PKT(ppt_mode), IPP(ppt_tip_pge, pt_ipc_update_32, 0x401000),
		IPP(ppt_tip, pt_ipc_sext_48, 0x7fff00001000),
		TNT(ppt_tnt_8, 1, 1),
		PKT(ppt_psb), PKT(ppt_mode),
		IPP(ppt_fup, pt_ipc_sext_48, 0x401643), PKT(ppt_psbend),
		TNT(ppt_tnt_8, 1, 1),
	};
	struct emu_pt_opts o = {.retcomp = true};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);

	emu_pt_start(pt);
	emu_pt_insn(pt, 0x401000,
		    &(struct emu_insn){.cls = EMU_INSN_CALL_IND, .x.len = 2},
		    0x7fff00001000);
	emu_pt_insn(pt, 0x7fff00001000,
		    &(struct emu_insn){.cls = EMU_INSN_RET, .x.len = 1},
		    0x401002);
	emu_pt_psb_next(pt);
	emu_pt_insn(pt, 0x401643,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401600);
	emu_pt_flush(pt);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

/* The emulated TSC: one scripted value per read. */
struct clock {
	const uint64_t *t;
	size_t n, i;
};

static uint64_t scripted(void *ctx)
{
	struct clock *c = ctx;

	assert_true(c->i < c->n);
	return c->t[c->i++];
}

/*
 * MTC period 3: an MTC per 8 CTC ticks = 320 TSC ticks, payload CTC[10:3]
 * = TSC / 320 mod 256, timed at its edge (CYC counts up to the edge).
 * Clock reads: start, then one per instruction or asynchronous exit.
 */
static void test_timing(void **state)
{
	static const uint64_t t[] = {
		1000007, /* start: CTC 25000 (0x61a8) + 7 ticks */
		1000100, /* enable: CTC 25002 + 20; MTC unit 3125 */
		1000745, /* JCC: unit 3127, edge 3127 * 320 = 1000640 */
		1000746, /* JCC */
		1096746, /* JMP_IND: unit 3427, 300 units later: MTC at 3382
			  * (edge 1082240) and 3427 (edge 1096640) */
		1096800, /* async: unit 3427, no MTC */
	};
	static const struct want w[] = {
		PKT(ppt_psb), VAL(ppt_tsc, 1000007), TMA(25000, 7),
		VAL(ppt_cbr, 10), PKT(ppt_mode), PKT(ppt_psbend),
		PKT(ppt_mode), VAL(ppt_cyc, 93), VAL(ppt_tsc, 1000100),
		TMA(25002, 20), IPP(ppt_tip_pge, pt_ipc_update_32, 0x401000),
		VAL(ppt_cyc, 540), VAL(ppt_mtc, 3127 & 0xff),
		VAL(ppt_cyc, 105),		/* before the taken JCC */
		TNT(ppt_tnt_8, 1, 0x1),
		VAL(ppt_cyc, 1),		/* before the not-taken JCC */
		TNT(ppt_tnt_8, 1, 0x0),
		VAL(ppt_cyc, 1082240 - 1000746), VAL(ppt_mtc, 3382 & 0xff),
		VAL(ppt_cyc, 1096640 - 1082240), VAL(ppt_mtc, 3427 & 0xff),
		VAL(ppt_cyc, 106), IPP(ppt_tip, pt_ipc_update_16, 0x402000),
		VAL(ppt_cyc, 54), IPP(ppt_fup, pt_ipc_update_16, 0x402000),
		IPP(ppt_tip_pgd, pt_ipc_suppressed, 0),
	};
	struct clock c = {t, sizeof(t) / sizeof(t[0]), 0};
	struct emu_pt_opts o = {
	    .retcomp = true, .psb_period = 4096, .clock = scripted,
	    .clock_ctx = &c, .tsc = true, .mtc = true, .cyc = true,
	    .mtc_period = 3,
	};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);

	assert_int_equal(emu_pt_start(pt), 0);
	emu_pt_insn(pt, 0x401000, &(struct emu_insn){.cls = 0, .x.len = 3},
		    0x401003);
	emu_pt_insn(pt, 0x401003,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401020);
	emu_pt_insn(pt, 0x401020,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401022);
	emu_pt_insn(pt, 0x401022,
		    &(struct emu_insn){.cls = EMU_INSN_JMP_IND, .x.len = 2},
		    0x402000);
	assert_int_equal(emu_pt_async(pt, 0x402000), 0);
	assert_int_equal(emu_pt_flush(pt), 0);
	assert_int_equal(c.i, c.n);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

/* cyc_thresh 3: a CYC only once 4 cycles have passed since the last. */
static void test_cyc_thresh(void **state)
{
	static const uint64_t t[] = {1000, 1002, 1003, 1004, 1005};
	static const struct want w[] = {
		PKT(ppt_psb), VAL(ppt_cbr, 10), PKT(ppt_mode),
		PKT(ppt_psbend), PKT(ppt_mode),
		IPP(ppt_tip_pge, pt_ipc_update_16, 0x1000),
		TNT(ppt_tnt_8, 1, 0x1), VAL(ppt_cyc, 4),
		TNT(ppt_tnt_8, 1, 0x0),
		IPP(ppt_tip, pt_ipc_update_16, 0x3000),
	};
	struct clock c = {t, sizeof(t) / sizeof(t[0]), 0};
	struct emu_pt_opts o = {
	    .retcomp = true, .clock = scripted, .clock_ctx = &c, .cyc = true,
	    .cyc_thresh = 3,
	};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);

	emu_pt_start(pt);
	emu_pt_insn(pt, 0x1000, &(struct emu_insn){.cls = 0, .x.len = 2}, 0x1002);
	emu_pt_insn(pt, 0x1002,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2}, 0x2000);
	emu_pt_insn(pt, 0x2000,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2}, 0x2002);
	emu_pt_insn(pt, 0x2002,
		    &(struct emu_insn){.cls = EMU_INSN_JMP_IND, .x.len = 2},
		    0x3000);
	emu_pt_flush(pt);
	assert_int_equal(c.i, c.n);
	check(b, w, sizeof(w) / sizeof(w[0]));
	emu_pt_free(pt);
	free(b);
}

/*
 * With CYC, an overflow is followed by a CBR: libipt forgets its
 * calibration at an OVF (it keeps the time), and the CYCs after it would
 * say "lost" until the next PSB+ brought one (test_emu_decode's timing
 * runs saw it after a gap).
 */
static void test_gap_cbr(void **state)
{
	static const uint64_t t[] = {1000, 2000, 3000, 4000, 5000, 6000};
	struct clock c = {t, sizeof(t) / sizeof(t[0]), 0};
	struct emu_pt_opts o = {
	    .retcomp = true, .clock = scripted, .clock_ctx = &c, .cyc = true,
	    .tsc = true,
	};
	struct buf *b = calloc(1, sizeof(*b));
	struct emu_pt *pt = emu_pt_new(&o, out, b);
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	struct pt_config cfg;
	int after_ovf = 0, cbr_first = 0;

	emu_pt_start(pt);
	emu_pt_insn(pt, 0x401000,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401010);
	assert_int_equal(emu_pt_gap(pt, 0x401010, 0x401100), 0);
	emu_pt_insn(pt, 0x401100,
		    &(struct emu_insn){.cls = EMU_INSN_JCC, .x.len = 2},
		    0x401102);
	emu_pt_flush(pt);
	pt_config_init(&cfg);
	cfg.begin = b->b;
	cfg.end = b->b + b->n;
	dec = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(dec);
	assert_int_equal(pt_pkt_sync_set(dec, 0), 0);
	while (pt_pkt_next(dec, &pkt, sizeof(pkt)) > 0) {
		if (pkt.type == ppt_ovf) {
			after_ovf = 1;
		} else if (after_ovf == 1 && pkt.type != ppt_pad) {
			/* the first packet after the OVF */
			cbr_first = pkt.type == ppt_cbr;
			after_ovf = 2;
		}
	}
	assert_int_equal(after_ovf, 2);
	assert_true(cbr_first);
	pt_pkt_free_decoder(dec);
	emu_pt_free(pt);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequence),
	    cmocka_unit_test(test_retcomp_rules),
	    cmocka_unit_test(test_gap),
	    cmocka_unit_test(test_gap_cbr),
	    cmocka_unit_test(test_long_tnt_and_psb),
	    cmocka_unit_test(test_psb_fup_whole),
	    cmocka_unit_test(test_timing),
	    cmocka_unit_test(test_cyc_thresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
