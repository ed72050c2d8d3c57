// SPDX-License-Identifier: MIT
/*
 * qpt decode's output: text like perf script, or JSON Lines.  Formatted by
 * hand into a large buffer: this runs once per executed instruction.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/decode_print.h"

void out_flush(struct out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, stdout) != o->len)
		o->err = -EIO;
	o->len = 0;
}

static inline void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		out_flush(o);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static const char hexdig[] = "0123456789abcdef";

static char hex2[256][2];

static void hex2_init(void)
{
	int i;

	for (i = 0; i < 256; i++) {
		hex2[i][0] = hexdig[i >> 4];
		hex2[i][1] = hexdig[i & 15];
	}
}

static void put_hex_fmt(struct out *o, uint64_t v, int width);

/* Lower-case hex without leading zeros, right-aligned in @width (<= 16);
 * the 16-wide form of addresses is remembered (loops repeat them). */
static void put_hex(struct out *o, uint64_t v, int width)
{
	unsigned h;

	if (width != 16) {
		put_hex_fmt(o, v, width);
		return;
	}
	h = (unsigned)((v ^ (v >> 14) ^ (v >> 28)) & 16383);
	if (o->len + 40 > sizeof(o->buf))
		out_flush(o);
	if (o->hex16[h].v != v || !o->hex16[h].s[15]) {
		size_t at = o->len;

		put_hex_fmt(o, v, 16);
		o->hex16[h].v = v;
		memcpy(o->hex16[h].s, o->buf + at, 16);
		return;
	}
	memcpy(o->buf + o->len, o->hex16[h].s, 16);
	o->len += 16;
}

static void put_hex_fmt(struct out *o, uint64_t v, int width)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1, i;
	char *p;

	if (o->len + 40 > sizeof(o->buf))
		out_flush(o);
	p = o->buf + o->len;
	if (width > n) {
		memset(p, ' ', (size_t)(width - n));
		p += width - n;
	}
	/* two digits at a time from the right */
	for (i = n; i >= 2; i -= 2, v >>= 8)
		memcpy(p + i - 2, hex2[v & 0xff], 2);
	if (i)
		p[0] = hexdig[v & 15];
	o->len = (size_t)(p + n - o->buf);
}

/* Decimal right-aligned in @width, or zero-padded to @width. */
static void put_dec(struct out *o, uint64_t v, int width, bool zero)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (o->len + 48 > sizeof(o->buf))
		out_flush(o);
	for (; n < width; width--)
		o->buf[o->len++] = zero ? '0' : ' ';
	while (n)
		o->buf[o->len++] = tmp[--n];
}

static void put_u64(struct out *o, uint64_t v)
{
	put_dec(o, v, 0, false);
}

static void put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		put(o, "-", 1);
		put_u64(o, (uint64_t)-v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

static void put_json_str(struct out *o, const char *s)
{
	put(o, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			put(o, e, 2);
		} else if (c < 0x20) {
			char e[7] = { '\\', 'u', '0', '0', hexdig[c >> 4],
				      hexdig[c & 15], 0 };

			put(o, e, 6);
		} else {
			put(o, (const char *)&c, 1);
		}
	}
	put(o, "\"", 1);
}

static void put_json_addr(struct out *o, const char *key, uint64_t v)
{
	put(o, ",\"", 2);
	puts_(o, key);
	put(o, "\":\"0x", 5);
	put_hex(o, v, 0);
	put(o, "\"", 1);
}

/* "NAME+0xOFF" for a symbol other than the item's own @sym. */
static void put_other_sym(struct out *o, const char *name, uint64_t off)
{
	puts_(o, name);
	put(o, "+0x", 3);
	put_hex(o, off, 0);
}

/* ,"to_sym":"NAME+0xOFF" where the decoder resolved a call's target. */
static void put_json_to_sym(struct out *o, const struct qpt_item *it)
{
	if (!it->to_sym)
		return;
	put(o, ",\"to_sym\":\"", 11);
	put_other_sym(o, it->to_sym, it->to_symoff);
	put(o, "\"", 1);
}

static void put_sym(struct out *o, const struct qpt_item *it)
{
	/* symbol names live as long as the decoder: remember the length */
	if (it->sym != o->sym_last) {
		o->sym_last = it->sym;
		o->sym_len = strlen(it->sym);
	}
	put(o, it->sym, o->sym_len);
	put(o, "+0x", 3);
	put_hex(o, it->symoff, 0);
}

static void json_common(struct out *o, const struct qpt_item *it)
{
	if (it->flags & QPT_ITEM_HAS_TID) {
		put(o, ",\"tid\":", 7);
		put_i64(o, it->tid);
	}
	if (it->flags & QPT_ITEM_HAS_CPU) {
		put(o, ",\"cpu\":", 7);
		put_i64(o, it->cpu);
	}
	if (it->flags & QPT_ITEM_HAS_TIME) {
		put(o, ",\"time\":", 8);
		put_u64(o, it->time);
	}
	if (it->sym) {
		put(o, ",\"sym\":\"", 8);
		put_sym(o, it);
		put(o, "\"", 1);
	}
}

static void text_prefix_fmt(struct out *o, const struct qpt_item *it);

/* Text prefix like perf script: tid, [cpu], time, when known; formatted
 * once for each change (it changes per block at most). */
static void text_prefix(struct out *o, const struct qpt_item *it)
{
	const unsigned mask = QPT_ITEM_HAS_TID | QPT_ITEM_HAS_CPU |
			      QPT_ITEM_HAS_TIME;
	size_t start;

	if (!(it->flags & mask))
		return;
	if (o->pfx_valid && o->pfx_flags == (it->flags & mask) &&
	    o->pfx_tid == it->tid && o->pfx_cpu == it->cpu &&
	    o->pfx_time == it->time) {
		put(o, o->pfx, o->pfx_len);
		return;
	}
	if (o->len + sizeof(o->pfx) > sizeof(o->buf))
		out_flush(o);
	start = o->len;
	text_prefix_fmt(o, it);
	o->pfx_len = o->len - start;
	if (o->pfx_len <= sizeof(o->pfx)) {
		memcpy(o->pfx, o->buf + start, o->pfx_len);
		o->pfx_valid = true;
		o->pfx_flags = it->flags & mask;
		o->pfx_tid = it->tid;
		o->pfx_cpu = it->cpu;
		o->pfx_time = it->time;
	} else {
		o->pfx_valid = false;
	}
}

static void text_prefix_fmt(struct out *o, const struct qpt_item *it)
{
	if (it->flags & QPT_ITEM_HAS_TID) {
		if (it->tid < 0)
			put(o, "     -1", 7);
		else
			put_dec(o, (uint64_t)it->tid, 7, false);
		put(o, " ", 1);
	}
	if ((it->flags & QPT_ITEM_HAS_CPU) && it->cpu >= 0) {
		put(o, "[", 1);
		put_dec(o, (uint64_t)it->cpu, 3, true);
		put(o, "] ", 2);
	}
	if (it->flags & QPT_ITEM_HAS_TIME) {
		put_dec(o, it->time / 1000000000, 0, false);
		put(o, ".", 1);
		put_dec(o, it->time % 1000000000, 9, true);
		put(o, ": ", 2);
	}
}

void print_insn(struct out *o, const struct qpt_item *it)
{
	unsigned i;

	if (o->json) {
		put(o, "{\"ip\":\"0x", 9);
		put_hex(o, it->ip, 0);
		put(o, "\"", 1);
		json_common(o, it);
		put(o, ",\"bytes\":\"", 10);
		for (i = 0; i < it->size; i++) {
			char b[2] = { hexdig[it->raw[i] >> 4],
				      hexdig[it->raw[i] & 15] };

			put(o, b, 2);
		}
		put(o, "\"}\n", 3);
		return;
	}
	text_prefix(o, it);
	put(o, " ", 1);
	put_hex(o, it->ip, 16);
	if (it->sym) {
		put(o, " ", 1);
		put_sym(o, it);
	}
	if (o->len + 64 > sizeof(o->buf))
		out_flush(o);
	{
		char *p = o->buf + o->len;

		memcpy(p, " insn:", 6);
		p += 6;
		for (i = 0; i < it->size; i++) {
			p[0] = ' ';
			memcpy(p + 1, hex2[it->raw[i]], 2);
			p += 3;
		}
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
	}
}

/* perf script's flag names. */
static const char *perf_flag(unsigned kind)
{
	switch (kind) {
	case QPT_BR_JCC: return "jcc";
	case QPT_BR_JMP: case QPT_BR_IND_JMP: return "jmp";
	case QPT_BR_CALL: case QPT_BR_IND_CALL: return "call";
	case QPT_BR_RET: return "return";
	case QPT_BR_SYSCALL: return "syscall";
	case QPT_BR_SYSRET: return "sysret";
	case QPT_BR_INT: return "int";
	case QPT_BR_IRET: return "iret";
	case QPT_BR_FAR: return "far";
	case QPT_BR_ASYNC: return "async";
	case QPT_BR_TX_ABORT: return "tx abrt";
	case QPT_BR_TRACE_BEGIN: return "tr strt";
	default: return "";
	}
}

static void print_branch(struct out *o, const struct qpt_item *it)
{
	char flag[32];

	if (o->json) {
		put(o, "{\"from\":\"0x", 11);
		put_hex(o, it->ip, 0);
		put(o, "\"", 1);
		put_json_addr(o, "to", it->to);
		put(o, ",\"kind\":\"", 9);
		puts_(o, qpt_branch_kind_name(it->kind));
		put(o, "\"", 1);
		if (it->kind == QPT_BR_TRACE_END && it->via != QPT_BR_NR) {
			put(o, ",\"via\":\"", 8);
			puts_(o, qpt_branch_kind_name(it->via));
			put(o, "\"", 1);
		}
		put_json_to_sym(o, it);
		json_common(o, it);
		put(o, "}\n", 2);
		return;
	}
	unsigned via = it->via < QPT_BR_NR ? it->via : QPT_BR_NR;

	(void)flag;
	text_prefix(o, it);
	put(o, o->flags[it->kind < QPT_BR_NR ? it->kind : 0][via], 25);
	put_hex(o, it->ip, 16);
	if (it->sym) {
		put(o, " ", 1);
		put_sym(o, it);
	}
	put(o, " => ", 4);
	put_hex(o, it->to, 16);
	put(o, "\n", 1);
}

/* perf script's flags column, "  %-23s", for every kind and reason. */
static void flags_init(struct out *o)
{
	unsigned k, v;

	for (k = 0; k < QPT_BR_NR; k++)
		for (v = 0; v <= QPT_BR_NR; v++) {
			char flag[32];

			if (k == QPT_BR_TRACE_END && v < QPT_BR_NR)
				snprintf(flag, sizeof(flag), "tr end  %s",
					 perf_flag(v));
			else if (k == QPT_BR_TRACE_END)
				snprintf(flag, sizeof(flag), "tr end");
			else
				snprintf(flag, sizeof(flag), "%s",
					 perf_flag(k));
			snprintf(o->flags[k][v], sizeof(o->flags[k][v]),
				 "  %-23.23s", flag);
		}
}

static void print_call(struct out *o, const struct qpt_item *it)
{
	bool entry = it->kind == QPT_BR_CALL || it->kind == QPT_BR_IND_CALL ||
		     it->kind == QPT_BR_SYSCALL || it->kind == QPT_BR_INT;
	bool exit = it->kind == QPT_BR_RET || it->kind == QPT_BR_SYSRET ||
		    it->kind == QPT_BR_IRET;
	int d;

	if (!entry && !exit)
		return;
	if (exit && o->depth > 0)
		o->depth--;
	d = o->depth;
	if (entry)
		o->depth++;
	if (o->json) {
		put(o, entry ? "{\"entry\":\"0x" : "{\"exit\":\"0x", entry ? 12 : 11);
		put_hex(o, entry ? it->to : it->ip, 0);
		put(o, "\"", 1);
		put_json_addr(o, entry ? "from" : "to", entry ? it->ip : it->to);
		if (entry)
			put_json_to_sym(o, it);
		put(o, ",\"depth\":", 9);
		put_i64(o, d);
		json_common(o, it);
		put(o, "}\n", 2);
		return;
	}
	text_prefix(o, it);
	for (; d > 0; d--)
		put(o, "    ", 4);
	if (entry) {
		put(o, "-> ", 3);
		put_hex(o, it->to, 0);
		if (it->to_sym) {
			put(o, " ", 1);
			put_other_sym(o, it->to_sym, it->to_symoff);
		}
		put(o, " (from ", 7);
		put_hex(o, it->ip, 0);
		if (it->sym) {
			put(o, " ", 1);
			put_sym(o, it);
		}
		put(o, ")\n", 2);
	} else {
		put(o, "<- ", 3);
		put_hex(o, it->ip, 0);
		if (it->sym) {
			put(o, " ", 1);
			put_sym(o, it);
		}
		put(o, " (to ", 5);
		put_hex(o, it->to, 0);
		put(o, ")\n", 2);
	}
}

static void print_event(struct out *o, const struct qpt_item *it)
{
	if (o->json) {
		put(o, "{\"event\":\"", 10);
		puts_(o, qpt_event_kind_name(it->kind));
		put(o, "\",\"offset\":", 11);
		put_u64(o, it->offset);
		if (it->flags & QPT_ITEM_IP_VALID)
			put_json_addr(o, "ip", it->ip);
		if (it->kind == QPT_EV_PAGING || it->kind == QPT_EV_VMCS ||
		    it->kind == QPT_EV_PTWRITE || it->kind == QPT_EV_EXEC_MODE)
			put_json_addr(o, "value", it->value);
		if (it->msg) {
			put(o, ",\"message\":", 11);
			put_json_str(o, it->msg);
		}
		json_common(o, it);
		put(o, "}\n", 2);
		return;
	}
	text_prefix(o, it);
	put(o, "  [", 3);
	puts_(o, qpt_event_kind_name(it->kind));
	put(o, " at offset 0x", 13);
	put_hex(o, it->offset, 0);
	if (it->flags & QPT_ITEM_IP_VALID) {
		put(o, ", ip 0x", 7);
		put_hex(o, it->ip, 0);
	}
	if (it->msg) {
		put(o, ": ", 2);
		puts_(o, it->msg);
	}
	put(o, "]\n", 2);
}

void print_item(struct out *o, const struct qpt_item *it)
{
	switch (it->type) {
	case QPT_ITEM_INSN:
		print_insn(o, it);
		break;
	case QPT_ITEM_BRANCH:
		if (o->mode == MODE_CALLS)
			print_call(o, it);
		else
			print_branch(o, it);
		break;
	case QPT_ITEM_EVENT:
		print_event(o, it);
		break;
	}
}

void decode_print_init(struct out *o)
{
	hex2_init();
	flags_init(o);
}
