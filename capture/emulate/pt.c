// SPDX-License-Identifier: MIT
/*
 * Packet generation for one emulated thread.
 *
 * Return compression has to decode identically in libipt and in perf, whose
 * return stacks differ: libipt pops only on a compressed RET and keeps 64
 * entries; perf pops on every RET and clears its stack at PSB.  We keep a
 * model of each stack holding only entries known to be there (pushed since
 * the last PSB or TIP.PGD; the oldest fall off into "unknown"), and compress
 * a RET only when it returns to the top of both models.  Any other RET gets
 * a TIP, which both decoders accept.
 */
#include "capture/emulate/pt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "qpt/qpt.h"

#define EMU_PT_SLACK 64 /* room for the largest packet group */
#define EMU_PT_TNT_MAX 47
#define EMU_PT_JCCS_MAX 8 /* jumps in a loop's trip (emu_pt_jccs) */
#define LIBIPT_STACK 64
#define PERF_STACK 1024

struct emu_stack {
	uint64_t *v;
	uint32_t cap, top, n;
};

struct emu_pt {
	struct emu_pt_opts opts;
	emu_pt_out_fn out;
	void *out_ctx;
	struct pt_encoder *enc;
	uint8_t *stage;
	struct emu_pt_live *live; /* tnt, tnt_n, staged, enabled */
	struct emu_pt_live own_live;
	bool own_stage;
	uint64_t last_ip;
	uint64_t since_psb;
	uint64_t total;
	bool exec_mode_sent;
	bool full_ip;	   /* the next IP packet uncompressed */
	uint64_t mtc_unit; /* CTC >> mtc_period as the decoder knows it */
	uint64_t cyc_last; /* the clock at the last CYC (or start) */
	struct emu_stack lib, perf;
	uint64_t lib_v[LIBIPT_STACK];
	uint64_t perf_v[PERF_STACK];
	const char *why; /* libipt's message of the last encoder failure */
};

static void stack_clear(struct emu_stack *s)
{
	s->n = 0;
	s->top = 0;
}

/* (The capacities are powers of two.) */
static void stack_push(struct emu_stack *s, uint64_t v)
{
	s->top = (s->top + 1) & (s->cap - 1);
	s->v[s->top] = v;
	if (s->n < s->cap)
		s->n++;
}

static void stack_pop(struct emu_stack *s)
{
	if (!s->n)
		return;
	s->n--;
	s->top = (s->top + s->cap - 1) & (s->cap - 1);
}

static bool stack_top_is(const struct emu_stack *s, uint64_t v)
{
	return s->n && s->v[s->top] == v;
}

struct emu_pt *emu_pt_new(const struct emu_pt_opts *opts, emu_pt_out_fn out,
			  void *out_ctx)
{
	struct pt_config config;
	struct emu_pt *pt;

	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return NULL;
	pt->opts = *opts;
	if (!pt->opts.psb_period)
		pt->opts.psb_period = 4096;
	if (!pt->opts.chunk || pt->opts.chunk > EMU_PT_STAGE - EMU_PT_SLACK)
		pt->opts.chunk = EMU_PT_STAGE - EMU_PT_SLACK;
	pt->out = out;
	pt->out_ctx = out_ctx;
	pt->lib.v = pt->lib_v;
	pt->lib.cap = LIBIPT_STACK;
	pt->perf.v = pt->perf_v;
	pt->perf.cap = PERF_STACK;
	pt->live = opts->live ? opts->live : &pt->own_live;
	memset(pt->live, 0, sizeof(*pt->live));
	pt->stage = opts->live ? opts->stage : malloc(EMU_PT_STAGE);
	pt->own_stage = !opts->live;
	if (!pt->stage)
		goto err_free;
	pt_config_init(&config);
	config.begin = pt->stage;
	config.end = pt->stage + EMU_PT_STAGE;
	pt->enc = pt_alloc_encoder(&config);
	if (!pt->enc)
		goto err_free;
	return pt;

err_free:
	emu_pt_free(pt);
	return NULL;
}

void emu_pt_free(struct emu_pt *pt)
{
	if (!pt)
		return;
	pt_free_encoder(pt->enc);
	if (pt->own_stage)
		free(pt->stage);
	free(pt);
}

bool emu_pt_enabled(const struct emu_pt *pt)
{
	return pt->live->enabled;
}

uint64_t emu_pt_bytes(const struct emu_pt *pt)
{
	return pt->total;
}

const char *emu_pt_errstr(const struct emu_pt *pt)
{
	return pt->why;
}

/* A libipt encoder status < 0 as the project's error (its message kept
 * for emu_pt_errstr): bad arguments -QPT_E_INVAL, a packet it cannot
 * encode -QPT_E_FORMAT, no room -ENOBUFS, no memory -ENOMEM, anything else
 * -QPT_E_UNSUPPORTED. */
static int enc_fail(struct emu_pt *pt, int status)
{
	enum pt_error_code code = pt_errcode(status);

	pt->why = pt_errstr(code);
	switch (code) {
	case pte_invalid:
		return -QPT_E_INVAL;
	case pte_bad_packet:
	case pte_bad_opc:
		return -QPT_E_FORMAT;
	case pte_eos:
		return -ENOBUFS;
	case pte_nomem:
		return -ENOMEM;
	default:
		return -QPT_E_UNSUPPORTED;
	}
}

static int stage_out(struct emu_pt *pt)
{
	uint64_t off = 0;
	int err;

	err = pt_enc_get_offset(pt->enc, &off);
	if (err < 0)
		return enc_fail(pt, err);
	if (!off)
		return 0;
	err = pt->out(pt->out_ctx, pt->stage, (size_t)off);
	if (err < 0)
		return err;
	err = pt_enc_sync_set(pt->enc, 0);
	pt->live->staged = 0;
	return err < 0 ? enc_fail(pt, err) : 0;
}

/* Encode one packet, making room first. */
static int put(struct emu_pt *pt, const struct pt_packet *pkt)
{
	uint64_t off = 0;
	int n, err;

	pt_enc_get_offset(pt->enc, &off);
	if (off >= pt->opts.chunk) {
		err = stage_out(pt);
		if (err < 0)
			return err;
		off = 0;
	}
	n = pt_enc_next(pt->enc, pkt);
	if (n < 0)
		return enc_fail(pt, n);
	pt->live->staged = (uint32_t)off + (uint32_t)n;
	pt->since_psb += (uint64_t)n;
	pt->total += (uint64_t)n;
	return 0;
}

static int put_simple(struct emu_pt *pt, enum pt_packet_type type)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	return put(pt, &pkt);
}

static void tnt_packet(struct pt_packet *pkt, uint64_t tnt, uint32_t n)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = n <= 6 ? ppt_tnt_8 : ppt_tnt_64;
	pkt->payload.tnt.bit_size = (uint8_t)n;
	pkt->payload.tnt.payload = tnt;
}

static int flush_tnt(struct emu_pt *pt)
{
	struct emu_pt_live *l = pt->live;
	struct pt_packet pkt;
	int err;

	if (!l->tnt_n)
		return 0;
	tnt_packet(&pkt, l->tnt, l->tnt_n);
	err = put(pt, &pkt);
	l->tnt = 0;
	l->tnt_n = 0;
	return err;
}

static int add_tnt(struct emu_pt *pt, bool taken)
{
	struct emu_pt_live *l = pt->live;

	l->tnt = (l->tnt << 1) | (taken ? 1 : 0);
	l->tnt_n++;
	if (l->tnt_n == EMU_PT_TNT_MAX)
		return flush_tnt(pt);
	return 0;
}

static enum pt_ip_compression ip_compression(uint64_t last, uint64_t ip)
{
	uint64_t sext;

	if ((last >> 16) == (ip >> 16))
		return pt_ipc_update_16;
	if ((last >> 32) == (ip >> 32))
		return pt_ipc_update_32;
	sext = (uint64_t)((int64_t)(ip << 16) >> 16);
	if (sext == ip)
		return pt_ipc_sext_48;
	return pt_ipc_full;
}

static int put_ip(struct emu_pt *pt, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = type;
	pkt.payload.ip.ipc = ip_compression(pt->full_ip ? 0 : pt->last_ip, ip);
	if (pt->full_ip && pkt.payload.ip.ipc != pt_ipc_full)
		pkt.payload.ip.ipc = pt_ipc_sext_48;
	pkt.payload.ip.ip = ip;
	pt->last_ip = ip;
	pt->full_ip = false;
	return put(pt, &pkt);
}

static int put_pgd(struct emu_pt *pt)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tip_pgd;
	pkt.payload.ip.ipc = pt_ipc_suppressed;
	pt->live->enabled = false;
	stack_clear(&pt->lib);
	stack_clear(&pt->perf);
	return put(pt, &pkt);
}

static int put_mode_exec(struct emu_pt *pt)
{
	struct pt_packet pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_mode;
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	return put(pt, &pkt);
}

static uint64_t clock_now(struct emu_pt *pt)
{
	return pt->opts.clock ? pt->opts.clock(pt->opts.clock_ctx) : 0;
}

static uint64_t tsc_to_ctc(uint64_t tsc)
{
	return tsc * EMU_PT_TSC_CTC_D / EMU_PT_TSC_CTC_N;
}

static uint64_t ctc_to_tsc(uint64_t ctc)
{
	return ctc * EMU_PT_TSC_CTC_N / EMU_PT_TSC_CTC_D;
}

/* The cycles from the last CYC to @t, when there are enough to report
 * (@any: however few, as before a TSC or MTC, where decoders restart
 * their cycle count from the new time). */
static uint64_t cyc_due(const struct emu_pt *pt, uint64_t t, bool any)
{
	uint64_t n = t > pt->cyc_last ? t - pt->cyc_last : 0;

	if (!pt->opts.cyc || !n)
		return 0;
	if (!any && pt->opts.cyc_thresh &&
	    n < 1ULL << (pt->opts.cyc_thresh - 1))
		return 0;
	return n;
}

static int put_cyc(struct emu_pt *pt, uint64_t t, bool any)
{
	struct pt_packet pkt;
	uint64_t n = cyc_due(pt, t, any);

	if (!n)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_cyc;
	pkt.payload.cyc.value = n;
	pt->cyc_last = t;
	return put(pt, &pkt);
}

/* Before a CYC-eligible packet at time @t: the CYC, after the TNT bits of
 * earlier branches (so it times the packet that follows it). */
static int cyc_before(struct emu_pt *pt, uint64_t t, bool any)
{
	int err;

	if (!cyc_due(pt, t, any))
		return 0;
	err = flush_tnt(pt);
	return err < 0 ? err : put_cyc(pt, t, any);
}

/* MTC for the CTC edges up to @t that the decoder has not seen, each at
 * its edge's time (CYC counted to the edge): the newest edge, with
 * intermediate ones where more than 255 periods passed so that no
 * decoder sees the 8-bit payload wrap. */
static int put_mtcs(struct emu_pt *pt, uint64_t t)
{
	uint64_t unit = tsc_to_ctc(t) >> pt->opts.mtc_period, step, edge;
	struct pt_packet pkt;
	int err;

	if (!pt->opts.mtc)
		return 0;
	while (pt->mtc_unit < unit) {
		step = unit - pt->mtc_unit;
		pt->mtc_unit += step > 255 ? 255 : step;
		edge = ctc_to_tsc(pt->mtc_unit << pt->opts.mtc_period);
		err = flush_tnt(pt);
		if (!err)
			err = put_cyc(pt, edge, true);
		if (err < 0)
			return err;
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_mtc;
		pkt.payload.mtc.ctc = (uint8_t)pt->mtc_unit;
		err = put(pt, &pkt);
		if (err < 0)
			return err;
	}
	return 0;
}

/* TSC at @t, then TMA (CTC[15:0] and the TSC ticks since that CTC edge)
 * with mtc: the decoder's MTC reference restarts here. */
static int put_tsc(struct emu_pt *pt, uint64_t t)
{
	struct pt_packet pkt;
	uint64_t ctc = tsc_to_ctc(t);
	int err;

	if (pt->opts.mtc)
		pt->mtc_unit = ctc >> pt->opts.mtc_period;
	if (!pt->opts.tsc)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tsc;
	pkt.payload.tsc.tsc = t;
	err = put(pt, &pkt);
	if (err < 0 || !pt->opts.mtc)
		return err;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_tma;
	pkt.payload.tma.ctc = (uint16_t)ctc;
	pkt.payload.tma.fc = (uint16_t)(t - ctc_to_tsc(ctc));
	return put(pt, &pkt);
}

static int put_cbr(struct emu_pt *pt)
{
	struct pt_packet pkt;

	if (!pt->opts.cyc)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_cbr;
	pkt.payload.cbr.ratio = EMU_PT_CBR;
	return put(pt, &pkt);
}

/* PSB+ at time @t: [CYC], PSB, [TSC [TMA]], [CBR], MODE.Exec, [FUP ip while
 * enabled], PSBEND. */
static int put_psb(struct emu_pt *pt, uint64_t ip, uint64_t t)
{
	int err;

	err = cyc_before(pt, t, pt->opts.tsc);
	if (!err)
		err = flush_tnt(pt);
	if (!err)
		err = put_simple(pt, ppt_psb);
	pt->last_ip = 0;
	pt->since_psb = 0;
	stack_clear(&pt->lib);
	stack_clear(&pt->perf);
	if (!err)
		err = put_tsc(pt, t);
	if (!err)
		err = put_cbr(pt);
	if (!err)
		err = put_mode_exec(pt);
	/* the whole IP: perf applies this FUP to the last IP from before
	 * the PSB (it looks ahead for it before resetting its state) */
	if (!err && pt->live->enabled) {
		pt->full_ip = true;
		err = put_ip(pt, ppt_fup, ip);
	}
	if (!err)
		err = put_simple(pt, ppt_psbend);
	return err;
}

void emu_pt_psb_next(struct emu_pt *pt)
{
	pt->since_psb = pt->opts.psb_period;
}

int emu_pt_start(struct emu_pt *pt)
{
	uint64_t t = clock_now(pt);

	pt->live->enabled = false;
	pt->cyc_last = t;
	return put_psb(pt, 0, t);
}

/* Re-enable at @ip (back in user space) at time @t: [CYC], [TSC [TMA]],
 * TIP.PGE. */
static int enable(struct emu_pt *pt, uint64_t ip, uint64_t t)
{
	int err;

	if (!pt->exec_mode_sent) {
		err = put_mode_exec(pt);
		if (err < 0)
			return err;
		pt->exec_mode_sent = true;
	}
	err = cyc_before(pt, t, pt->opts.tsc);
	if (!err)
		err = put_tsc(pt, t);
	if (err < 0)
		return err;
	pt->live->enabled = true;
	return put_ip(pt, ppt_tip_pge, ip);
}

static int ret(struct emu_pt *pt, uint64_t next, uint64_t t)
{
	int err;

	err = cyc_before(pt, t, false);
	if (err < 0)
		return err;
	if (pt->opts.retcomp && stack_top_is(&pt->lib, next) &&
	    stack_top_is(&pt->perf, next)) {
		stack_pop(&pt->lib);
		stack_pop(&pt->perf);
		return add_tnt(pt, true);
	}
	stack_pop(&pt->perf);
	err = flush_tnt(pt);
	return err < 0 ? err : put_ip(pt, ppt_tip, next);
}

/* Whether a branch now makes no timing packet: no CYC asked, and no
 * MTC due (TSC goes at PSB+ and TIP.PGE only). */
static inline bool untimed(struct emu_pt *pt)
{
	if (!pt->opts.clock)
		return true;
	if (pt->opts.cyc)
		return false;
	return !pt->opts.mtc ||
	       tsc_to_ctc(clock_now(pt)) >> pt->opts.mtc_period == pt->mtc_unit;
}

/* What most branches need, with no timing packet due and between PSBs:
 * 1 when done, 0 when the full path must run, or an error. */
static inline int fast_insn(struct emu_pt *pt, uint64_t ip,
			    const struct emu_insn *insn, uint64_t next)
{
	int err;

	if (!pt->live->enabled || pt->since_psb >= pt->opts.psb_period ||
	    !untimed(pt))
		return 0;
	switch (insn->cls) {
	case EMU_INSN_OTHER:
	case EMU_INSN_JMP:
		return 1;
	case EMU_INSN_JCC:
		err = add_tnt(pt, next != ip + insn->x.len);
		return err < 0 ? err : 1;
	case EMU_INSN_CALL:
		stack_push(&pt->lib, ip + insn->x.len);
		stack_push(&pt->perf, ip + insn->x.len);
		return 1;
	default:
		return 0;
	}
}

/* Everything else: timing packets, PSB+, TIPs, leaving user space. */
static __attribute__((noinline)) int slow_insn(struct emu_pt *pt, uint64_t ip,
					       const struct emu_insn *insn,
					       uint64_t next)
{
	uint64_t t = clock_now(pt);
	int err;

	if (!pt->live->enabled) {
		err = enable(pt, ip, t);
		if (err < 0)
			return err;
	}
	err = put_mtcs(pt, t);
	if (err < 0 || insn->cls == EMU_INSN_OTHER)
		return err;
	if (pt->since_psb >= pt->opts.psb_period) {
		err = put_psb(pt, ip, t);
		if (err < 0)
			return err;
	}
	switch (insn->cls) {
	case EMU_INSN_JCC:
		err = cyc_before(pt, t, false);
		return err < 0 ? err : add_tnt(pt, next != ip + insn->x.len);
	case EMU_INSN_CALL:
		stack_push(&pt->lib, ip + insn->x.len);
		stack_push(&pt->perf, ip + insn->x.len);
		return 0;
	case EMU_INSN_CALL_IND:
		stack_push(&pt->lib, ip + insn->x.len);
		stack_push(&pt->perf, ip + insn->x.len);
		/* fall through */
	case EMU_INSN_JMP_IND:
		err = flush_tnt(pt);
		if (!err)
			err = put_cyc(pt, t, false);
		return err < 0 ? err : put_ip(pt, ppt_tip, next);
	case EMU_INSN_RET:
		return ret(pt, next, t);
	case EMU_INSN_FAR:
		err = flush_tnt(pt);
		if (!err)
			err = put_cyc(pt, t, false);
		return err < 0 ? err : put_pgd(pt);
	default:
		return 0;
	}
}

int emu_pt_jccs(struct emu_pt *pt, const uint64_t *ip, const bool *taken,
		unsigned int m, uint64_t trips)
{
	uint64_t t = clock_now(pt), left, seq[EMU_PT_JCCS_MAX];
	unsigned int i, j, c;
	int err;

	if (!trips || !m || m > EMU_PT_JCCS_MAX ||
	    trips > UINT64_MAX / EMU_PT_JCCS_MAX)
		return trips && m ? -QPT_E_INVAL : 0;
	if (!pt->live->enabled) {
		err = enable(pt, ip[0], t);
		if (err < 0)
			return err;
	}
	/* what emu_pt_insn does once per jump, once: at one time, the
	 * MTCs and the CYC are due before the first jump only */
	err = put_mtcs(pt, t);
	if (!err)
		err = cyc_before(pt, t, false);
	/* seq[i]: the next EMU_PT_TNT_MAX bits from jump i on, the first
	 * one highest, as add_tnt shifts them in */
	for (i = 0; i < m; i++)
		for (seq[i] = 0, j = 0; j < EMU_PT_TNT_MAX; j++)
			seq[i] = seq[i] << 1 | taken[(i + j) % m];
	/* a PSB+ can only fall due after a packet went out: before the
	 * next jump then, as emu_pt_insn checks before each */
	for (i = 0, left = trips * m; !err && left; left -= c) {
		if (pt->since_psb >= pt->opts.psb_period) {
			err = put_psb(pt, ip[i], t);
			if (err)
				break;
		}
		c = EMU_PT_TNT_MAX - pt->live->tnt_n;
		if (c > left)
			c = (unsigned int)left;
		pt->live->tnt =
		    pt->live->tnt << c | seq[i] >> (EMU_PT_TNT_MAX - c);
		pt->live->tnt_n += c;
		i = (i + c) % m;
		if (pt->live->tnt_n == EMU_PT_TNT_MAX)
			err = flush_tnt(pt);
	}
	return err;
}

int emu_pt_insn(struct emu_pt *pt, uint64_t ip, const struct emu_insn *insn,
		uint64_t next)
{
	int r = fast_insn(pt, ip, insn, next);

	if (r)
		return r < 0 ? r : 0;
	return slow_insn(pt, ip, insn, next);
}

int emu_pt_async(struct emu_pt *pt, uint64_t ip)
{
	uint64_t t;
	int err;

	if (!pt->live->enabled)
		return 0;
	t = clock_now(pt);
	err = put_mtcs(pt, t);
	if (!err)
		err = flush_tnt(pt);
	if (!err)
		err = put_cyc(pt, t, false);
	if (!err)
		err = put_ip(pt, ppt_fup, ip);
	if (!err)
		err = put_pgd(pt);
	return err;
}

int emu_pt_gap(struct emu_pt *pt, uint64_t from, uint64_t to)
{
	uint64_t t;
	int err;

	err = emu_pt_async(pt, from);
	if (err < 0)
		return err;
	err = put_simple(pt, ppt_ovf);
	/* with CYC, the core's ratio again: libipt forgets its calibration
	 * at an overflow, and CYCs before the next PSB+ would be lost */
	if (!err)
		err = put_cbr(pt);
	if (err < 0)
		return err;
	/* decoders forget their last IP at an overflow: the next is whole */
	pt->full_ip = true;
	t = clock_now(pt);
	err = put_mtcs(pt, t);
	return err < 0 ? err : enable(pt, to, t);
}

int emu_pt_drain(struct emu_pt *pt)
{
	return stage_out(pt);
}

int emu_pt_flush(struct emu_pt *pt)
{
	int err;

	err = flush_tnt(pt);
	return err < 0 ? err : stage_out(pt);
}

int emu_pt_finish(const struct emu_pt_live *live, uint64_t ip, uint8_t *buf,
		  size_t size)
{
	struct pt_encoder *enc;
	struct pt_config config;
	struct pt_packet pkt;
	uint64_t off = 0;
	int n = 0;

	if (live->tnt_n > EMU_PT_TNT_MAX || size < 32)
		return -QPT_E_INVAL;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -ENOMEM;
	if (live->tnt_n) {
		tnt_packet(&pkt, live->tnt, live->tnt_n);
		n = pt_enc_next(enc, &pkt);
	}
	if (n >= 0 && live->enabled) {
		memset(&pkt, 0, sizeof(pkt));
		pkt.type = ppt_fup;
		pkt.payload.ip.ipc = pt_ipc_sext_48;
		pkt.payload.ip.ip = ip;
		n = pt_enc_next(enc, &pkt);
		pkt.type = ppt_tip_pgd;
		pkt.payload.ip.ipc = pt_ipc_suppressed;
		if (n >= 0)
			n = pt_enc_next(enc, &pkt);
	}
	if (n >= 0)
		n = pt_enc_get_offset(enc, &off);
	pt_free_encoder(enc);
	return n < 0 ? -QPT_E_INVAL : (int)off;
}
