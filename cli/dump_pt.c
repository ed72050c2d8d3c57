// SPDX-License-Identifier: MIT
/*
 * qpt dump --pt: the Intel PT packets of each AUXTRACE payload, read by
 * libipt's packet decoder (pt_pkt_*), each with its offset in the
 * payload, in perf report -D's layout (".  OFFSET:  BYTES  DESCRIPTION",
 * perf's packet names and payloads) or as one JSON object a packet.
 * Like perf, each payload is read from its first byte on; a byte that
 * begins no packet (or a packet cut by the payload's end) is told alone
 * and the next byte read.  libipt gives each PAD byte as a packet of its
 * own, where perf folds up to seven PADs into the packet before them.
 */
#include <errno.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <string.h>

#include "cli/dump_pt.h"

/* perf's names of the packet types. */
static const char *const names[] = {
    [ppt_pad] = "PAD",	       [ppt_psb] = "PSB",   [ppt_psbend] = "PSBEND",
    [ppt_fup] = "FUP",	       [ppt_tip] = "TIP",   [ppt_tip_pge] = "TIP.PGE",
    [ppt_tip_pgd] = "TIP.PGD", [ppt_tnt_8] = "TNT", [ppt_tnt_64] = "TNT",
    [ppt_mode] = "MODE.Exec",  [ppt_pip] = "PIP",   [ppt_vmcs] = "VMCS",
    [ppt_cbr] = "CBR",	       [ppt_tsc] = "TSC",   [ppt_tma] = "TMA",
    [ppt_mtc] = "MTC",	       [ppt_cyc] = "CYC",   [ppt_stop] = "TRACESTOP",
    [ppt_ovf] = "OVF",	       [ppt_mnt] = "MNT",   [ppt_exstop] = "EXSTOP",
    [ppt_mwait] = "MWAIT",     [ppt_pwre] = "PWRE", [ppt_pwrx] = "PWRX",
    [ppt_ptw] = "PTWRITE",
};

static const char *pkt_name(const struct pt_packet *p)
{
	if (p->type == ppt_mode && p->payload.mode.leaf == pt_mol_tsx)
		return "MODE.TSX";
	if ((size_t)p->type < sizeof(names) / sizeof(names[0]) &&
	    names[p->type])
		return names[p->type];
	return "UNKNOWN";
}

/* The taken (T) and not-taken (N) bits of a TNT, oldest first. */
static size_t tnt_bits(const struct pt_packet_tnt *t, char *s, size_t cap)
{
	size_t n = t->bit_size < cap ? t->bit_size : cap - 1, i;

	for (i = 0; i < n; i++)
		s[i] = (t->payload >> (t->bit_size - 1 - i)) & 1 ? 'T' : 'N';
	s[n] = '\0';
	return n;
}

/* MODE.Exec's bits as perf prints them: IF (bit 2 of the payload byte,
 * which libipt 2.0 does not decode) and the operand size. */
static int mode_desc(const struct pt_packet *p, const uint8_t *raw, char *s,
		     size_t cap)
{
	static const int bits[] = {[ptem_unknown] = 0,
				   [ptem_16bit] = 16,
				   [ptem_32bit] = 32,
				   [ptem_64bit] = 64};
	const struct pt_packet_mode *m = &p->payload.mode;

	if (m->leaf == pt_mol_tsx)
		return snprintf(s, cap, "MODE.TSX TXAbort:%u InTX:%u",
				(unsigned)m->bits.tsx.abrt,
				(unsigned)m->bits.tsx.intx);
	return snprintf(s, cap, "MODE.Exec IF:%u %d",
			p->size > 1 ? (raw[1] >> 2) & 1u : 0u,
			bits[pt_get_exec_mode(&m->bits.exec)]);
}

/* The power packets, with the payload perf prints. */
static int power_desc(const struct pt_packet *p, char *s, size_t cap)
{
	const struct pt_packet_pwre *e = &p->payload.pwre;
	const struct pt_packet_pwrx *x = &p->payload.pwrx;
	uint64_t v;

	switch (p->type) {
	case ppt_exstop:
		return snprintf(s, cap, "EXSTOP IP:%u",
				(unsigned)p->payload.exstop.ip);
	case ppt_mwait:
		v = p->payload.mwait.hints |
		    ((uint64_t)p->payload.mwait.ext << 32);
		return snprintf(
		    s, cap, "MWAIT 0x%" PRIx64 " Hints 0x%x Extensions 0x%x", v,
		    (unsigned)(v & 0xff), (unsigned)((v >> 32) & 3));
	case ppt_pwre:
		v = ((uint64_t)e->hw << 7) | ((uint64_t)e->sub_state << 8) |
		    ((uint64_t)e->state << 12);
		return snprintf(
		    s, cap, "PWRE 0x%" PRIx64 " HW:%u CState:%u Sub-CState:%u",
		    v, (unsigned)e->hw, (unsigned)e->state,
		    (unsigned)e->sub_state);
	default:
		v = x->deepest | ((uint64_t)x->last << 4) |
		    ((uint64_t)(x->interrupt | x->store << 1 |
				x->autonomous << 2)
		     << 8);
		return snprintf(s, cap,
				"PWRX 0x%" PRIx64 " Last CState:%u Deepest "
				"CState:%u Wake Reason 0x%x",
				v, (unsigned)x->last, (unsigned)x->deepest,
				(unsigned)((v >> 8) & 0xf));
	}
}

/* @p (whose bytes are @raw) as perf report -D describes it, into @s. */
static void pkt_desc(const struct pt_packet *p, const uint8_t *raw, char *s,
		     size_t cap)
{
	const char *name = pkt_name(p);
	char tnt[65];

	switch (p->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		tnt_bits(&p->payload.tnt, tnt, sizeof(tnt));
		snprintf(s, cap, "TNT %s (%u)", tnt,
			 (unsigned)p->payload.tnt.bit_size);
		return;
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		if (p->payload.ip.ipc == pt_ipc_suppressed)
			snprintf(s, cap, "%s no ip", name);
		else
			snprintf(s, cap, "%s 0x%" PRIx64, name,
				 p->payload.ip.ip);
		return;
	case ppt_mode:
		mode_desc(p, raw, s, cap);
		return;
	case ppt_pip:
		/* perf prints the payload: CR3 bits 5 and up */
		snprintf(s, cap, "PIP 0x%" PRIx64 " (NR=%u)",
			 p->payload.pip.cr3 >> 5, (unsigned)p->payload.pip.nr);
		return;
	case ppt_vmcs:
		/* the payload: the base address's bits 12 and up */
		snprintf(s, cap, "VMCS 0x%" PRIx64, p->payload.vmcs.base >> 12);
		return;
	case ppt_cbr:
		snprintf(s, cap, "CBR 0x%x", (unsigned)p->payload.cbr.ratio);
		return;
	case ppt_tsc:
		snprintf(s, cap, "TSC 0x%" PRIx64, p->payload.tsc.tsc);
		return;
	case ppt_tma:
		snprintf(s, cap, "TMA CTC 0x%x FC 0x%x",
			 (unsigned)p->payload.tma.ctc,
			 (unsigned)p->payload.tma.fc);
		return;
	case ppt_mtc:
		snprintf(s, cap, "MTC 0x%x", (unsigned)p->payload.mtc.ctc);
		return;
	case ppt_cyc:
		snprintf(s, cap, "CYC 0x%" PRIx64, p->payload.cyc.value);
		return;
	case ppt_mnt:
		snprintf(s, cap, "MNT 0x%" PRIx64, p->payload.mnt.payload);
		return;
	case ppt_ptw:
		snprintf(s, cap, "PTWRITE 0x%" PRIx64 " IP:%u",
			 p->payload.ptw.payload, (unsigned)p->payload.ptw.ip);
		return;
	case ppt_exstop:
	case ppt_mwait:
	case ppt_pwre:
	case ppt_pwrx:
		power_desc(p, s, cap);
		return;
	default: /* PAD, PSB, PSBEND, OVF, TRACESTOP */
		snprintf(s, cap, "%s", name);
		return;
	}
}

/* One packet (or a bad byte: @p NULL, @why libipt's reason) of the
 * AUXTRACE record @r at @off: "." and perf's line, or a JSON object. */
static void put_packet(struct out *w, const struct qpt_record *r, uint64_t off,
		       const uint8_t *raw, size_t n, const struct pt_packet *p,
		       const char *why)
{
	char desc[160], line[64 + 16 * 3];
	size_t i, len;

	if (p)
		pkt_desc(p, raw, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "Bad packet! (%s)", why);
	if (w->json) {
		out_begin(w);
		out_kv_u64(w, "record", r->pos);
		out_kv_u64(w, "offset", off);
		out_kv_u64(w, "size", n);
		out_kv_cstr(w, "packet", p ? pkt_name(p) : "BAD");
		out_kv_hexbytes(w, "bytes", raw, n);
		out_kv_cstr(w, "desc", desc);
		out_end(w);
		return;
	}
	len = (size_t)snprintf(line, sizeof(line), ".  %08" PRIx64 ": ", off);
	for (i = 0; i < 16; i++) {
		if (i < n)
			snprintf(line + len, 4, " %02x", raw[i]);
		else
			memcpy(line + len, "   ", 3);
		len += 3;
	}
	line[len++] = ' ';
	out_raw(w, line, len);
	out_cstr(w, desc);
	out_char(w, '\n');
}

int dump_pt_packets(struct out *w, const struct qpt_record *r)
{
	const uint8_t *buf = r->aux;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	struct pt_config cfg;
	uint64_t off = 0;
	int err;

	if (!r->aux_size)
		return 0;
	if (!w->json) {
		out_lit(w, ". ... Intel Processor Trace data: size ");
		out_dec(w, r->aux_size);
		out_lit(w, " bytes\n");
	}
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + r->aux_size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -ENOMEM;
	while (off < r->aux_size && !w->err) {
		err = pt_pkt_sync_set(dec, off);
		if (err >= 0)
			err = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (err < 0 || !pkt.size) {
			put_packet(w, r, off, buf + off, 1, NULL,
				   pt_errstr(pt_errcode(
				       err < 0 ? err : -pte_internal)));
			off++;
			continue;
		}
		put_packet(w, r, off, buf + off, pkt.size, &pkt, NULL);
		off += pkt.size;
	}
	pt_pkt_free_decoder(dec);
	return 0;
}
