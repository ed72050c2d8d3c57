// SPDX-License-Identifier: MIT
/*
 * qpt decode's output: text like perf script, or JSON Lines, through the
 * writer of out.h.  Text instructions take a specialised path (this runs
 * once per executed instruction): the prefix and the rest of each line
 * (by ip, symbol, bytes and mode) are remembered and copied; what is new
 * is formatted in the writer's buffer, with addresses, symbol lengths and
 * instruction texts remembered too.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/bigmem.h"
#include "cli/cli.h"
#include "cli/decode_fields.h"
#include "cli/decode_print.h"

void print_name(struct printer *o, const char *s)
{
	unsigned h = (unsigned)(((uintptr_t)s * 0x9e3779b97f4a7c15ull) >> 56);

	if (o->c->syms[h].s != s) {
		o->c->syms[h].s = s;
		o->c->syms[h].len = out_measure(s, &o->c->syms[h].plain);
	}
	if (o->c->syms[h].plain)
		out_raw(&o->w, s, o->c->syms[h].len);
	else
		out_esc(&o->w, s, o->c->syms[h].len);
}

/* "+0xOFF" into reserved room */
static char *fmt_off(char *p, uint64_t off)
{
	memcpy(p, "+0x", 3);
	return out_fmt_hex(p + 3, off);
}

/* NAME+0xOFF */
static void put_sym(struct printer *o, const char *name, uint64_t off)
{
	print_name(o, name);
	out_commit(&o->w, fmt_off(out_reserve(&o->w, 24), off));
}

/* An address 16 wide into reserved room; the formatted form is
 * remembered (loops repeat addresses). */
static char *fmt_hex16(struct printer *o, char *p, uint64_t v)
{
	unsigned h = (unsigned)((v ^ (v >> 14) ^ (v >> 28)) & 16383);

	if (o->c->hex16[h].v != v || !o->c->hex16[h].s[15]) {
		out_fmt_hex_pad(p, v, 16);
		o->c->hex16[h].v = v;
		memcpy(o->c->hex16[h].s, p, 16);
	} else {
		memcpy(p, o->c->hex16[h].s, 16);
	}
	return p + 16;
}

static void put_hex16(struct printer *o, uint64_t v)
{
	out_commit(&o->w, fmt_hex16(o, out_reserve(&o->w, 16), v));
}

/* "key":"NAME+0xOFF" */
static void put_json_sym(struct printer *o, const char *key,
			 const char *name, uint64_t off)
{
	out_key(&o->w, key);
	out_char(&o->w, '"');
	put_sym(o, name, off);
	out_char(&o->w, '"');
}

/* Text: perf script's "TID [CPU] SEC.NSEC: " as far as known. */
static char *fmt_text_prefix(char *p, const struct qpt_item *it)
{
	if (it->flags & QPT_ITEM_HAS_TID) {
		if (it->tid < 0) {
			memcpy(p, "     -1", 7);
			p += 7;
		} else {
			p = out_fmt_dec(p, (uint64_t)it->tid, 7, ' ');
		}
		*p++ = ' ';
	}
	if ((it->flags & QPT_ITEM_HAS_CPU) && it->cpu >= 0) {
		*p++ = '[';
		p = out_fmt_dec(p, (uint64_t)it->cpu, 3, '0');
		*p++ = ']';
		*p++ = ' ';
	}
	if (it->flags & QPT_ITEM_HAS_TIME) {
		p = out_fmt_dec(p, it->time / 1000000000, 0, ' ');
		*p++ = '.';
		p = out_fmt_dec(p, it->time % 1000000000, 9, '0');
		*p++ = ':';
		*p++ = ' ';
	}
	return p;
}

/* JSON: the members ,"tid":N,"cpu":N,"time":N as far as known (after the
 * object's first member). */
static char *fmt_json_prefix(char *p, const struct qpt_item *it)
{
	if (it->flags & QPT_ITEM_HAS_TID) {
		memcpy(p, ",\"tid\":", 7);
		p += 7;
		if (it->tid < 0)
			*p++ = '-';
		p = out_fmt_dec(p, it->tid < 0 ? -(uint64_t)it->tid :
				(uint64_t)it->tid, 0, ' ');
	}
	if (it->flags & QPT_ITEM_HAS_CPU) {
		memcpy(p, ",\"cpu\":", 7);
		p += 7;
		if (it->cpu < 0)
			*p++ = '-';
		p = out_fmt_dec(p, it->cpu < 0 ? -(uint64_t)it->cpu :
				(uint64_t)it->cpu, 0, ' ');
	}
	if (it->flags & QPT_ITEM_HAS_TIME) {
		memcpy(p, ",\"time\":", 8);
		p = out_fmt_dec(p + 8, it->time, 0, ' ');
	}
	return p;
}

#define PFX_MASK (QPT_ITEM_HAS_TID | QPT_ITEM_HAS_CPU | QPT_ITEM_HAS_TIME)

/* The length of @it's prefix when o->pfx is it, else -1. */
static inline int pfx_known(const struct printer *o, const struct qpt_item *it)
{
	if (!(it->flags & PFX_MASK))
		return 0;
	if (o->pfx_valid && o->pfx_flags == (it->flags & PFX_MASK) &&
	    o->pfx_tid == it->tid && o->pfx_cpu == it->cpu &&
	    o->pfx_time == it->time)
		return (int)o->pfx_len;
	return -1;
}

/* The @n bytes at @s to @p in 16-byte pieces (a few moves each; @s and
 * @p have room for @n rounded up to 16); the end of the copy. */
static inline char *copy16(char *p, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 16)
		memcpy(p + i, s + i, 16);
	return p + n;
}

/* o->pfx, of @len (<= 32) bytes (pfx_known's), to @p (room for 32): the
 * end of the copy.  Most prefixes fit: two moves. */
static inline char *put_known_prefix(const struct printer *o, char *p,
				     int len)
{
	memcpy(p, o->pfx, 32);
	return p + len;
}

/* Remember @it's prefix, the @n bytes at @s, as o->pfx (when it fits):
 * whether it did. */
static bool pfx_remember(struct printer *o, const struct qpt_item *it,
			 const char *s, size_t n)
{
	o->pfx_valid = n <= sizeof(o->pfx);
	if (!o->pfx_valid)
		return false;
	memcpy(o->pfx, s, n);
	o->pfx_len = n;
	o->pfx_flags = it->flags & PFX_MASK;
	o->pfx_tid = it->tid;
	o->pfx_cpu = it->cpu;
	o->pfx_time = it->time;
	return true;
}

/* Where and when an item is, in the writer's form; formatted once for
 * each change (it changes per block at most). */
static void put_prefix(struct printer *o, const struct qpt_item *it)
{
	int known = pfx_known(o, it);
	char *p;

	if (known >= 0) {
		out_raw(&o->w, o->pfx, (size_t)known);
		return;
	}
	p = out_reserve(&o->w, 96);
	out_commit(&o->w, o->json ? fmt_json_prefix(p, it) :
				    fmt_text_prefix(p, it));
	pfx_remember(o, it, p, (size_t)(o->w.buf + o->w.len - p));
}

/* o->pfx made @it's prefix (not printed): its length, or -1 when it does
 * not fit. */
static int pfx_for(struct printer *o, const struct qpt_item *it)
{
	int known = pfx_known(o, it);
	char tmp[128];
	size_t n;

	if (known >= 0)
		return known;
	n = (size_t)((o->json ? fmt_json_prefix(tmp, it) :
				fmt_text_prefix(tmp, it)) - tmp);
	return pfx_remember(o, it, tmp, n) ? (int)n : -1;
}

/* The members every JSON item ends with (after its first one). */
static void json_common(struct printer *o, const struct qpt_item *it)
{
	put_prefix(o, it);
	if (it->sym)
		put_json_sym(o, "sym", it->sym, it->symoff);
}

/* The instruction's bytes in hex into reserved room, " xx" each when
 * @spaced (at most 3 * 15 bytes). */
static char *fmt_bytes(char *p, const struct qpt_item *it, bool spaced)
{
	unsigned i;

	for (i = 0; i < it->size && i < sizeof(it->raw); i++) {
		if (spaced)
			*p++ = ' ';
		memcpy(p, out_hex2[it->raw[i]], 2);
		p += 2;
	}
	return p;
}

/* An instruction's bytes (15 at most), size and mode as two words. */
static void asm_key(const struct qpt_item *it, uint64_t key[2])
{
	uint8_t b[16] = { 0 };

	memcpy(b, it->raw, it->size);
	b[15] = it->size;
	memcpy(key, b, 16);
	key[1] ^= (uint64_t)it->mode << 48;
}

/* The text of the instruction @it (Intel syntax, as ptxed prints it) in
 * @buf, or remembered: *@len its length (0 when it has none). */
static const char *asm_text(struct printer *o, const struct qpt_item *it,
			    char *buf, size_t size, size_t *len)
{
	uint64_t ip = it->ip, key[2];
	struct asm_ent *e = &o->c->asm_cache[ASM_WAYS *
					     ((ip ^ (ip >> 12) ^ (ip >> 24)) &
					      (ASM_SETS - 1))];
	unsigned i;
	int n;

	*len = 0;
	if (it->size > sizeof(it->raw))
		return buf;
	asm_key(it, key);
	for (i = 0; i < ASM_WAYS; i++, e++)
		if (e->ip == ip && e->key[0] == key[0] && e->key[1] == key[1]) {
			*len = e->len;
			return e->s;
		}
	n = qpt_item_asm(it, buf, size);
	if (n <= 0)
		return buf;
	*len = (size_t)n;
	if (*len > sizeof(e->s))
		return buf;
	e -= ASM_WAYS - o->asm_clock++ % ASM_WAYS;
	e->ip = ip;
	e->key[0] = key[0];
	e->key[1] = key[1];
	e->len = (uint8_t)n;
	memcpy(e->s, buf, *len);
	return e->s;
}

/* The instruction's text after its bytes, which began at @col: in a
 * column (bytes of up to ASM_COL_BYTES line up), into reserved room of
 * ASM_ROOM bytes. */
#define ASM_COL_BYTES 10
#define ASM_ROOM (3 * ASM_COL_BYTES + 2 + 128)

static char *fmt_asm(struct printer *o, char *p, const char *col,
		     const struct qpt_item *it)
{
	char buf[128];
	size_t len, w = (size_t)(p - col);
	const char *s = asm_text(o, it, buf, sizeof(buf), &len);

	if (!len)
		return p;
	if (w < 3 * ASM_COL_BYTES) {
		memset(p, ' ', 3 * ASM_COL_BYTES - w);
		p += 3 * ASM_COL_BYTES - w;
	}
	memcpy(p, "  ", 2);
	memcpy(p + 2, s, len);
	return p + 2 + len;
}

/* An entry is two cache lines, and its text is copied in 16-byte pieces
 * up to LINE_TEXT. */
_Static_assert(sizeof(struct line_ent) == 128 && LINE_TEXT % 16 == 0 &&
		   LINE_TEXT <= sizeof(((struct line_ent *)0)->s),
	       "line_ent");

/* The line cache's entry for @ip. */
static struct line_ent *line_at(struct printer *o, uint64_t ip)
{
	return &o->c->lines[ip & (LINE_SETS - 1)];
}

/* --srcline: perf script's "  FILE:LINE" line (the file as the line table
 * names it, where perf shows its base name), or the JSON "srcline"
 * member (out_val_srcline's form); nothing where the line is unknown.
 * The file's escaping is remembered as a symbol's is (print_name). */
static void put_srcline(struct printer *o, const struct qpt_item *it)
{
	if (!it->srcfile)
		return;
	if (o->json) {
		out_key(&o->w, "srcline");
		out_char(&o->w, '"');
	} else {
		out_lit(&o->w, "  ");
	}
	print_name(o, it->srcfile);
	out_char(&o->w, ':');
	out_dec(&o->w, it->srcline);
	out_char(&o->w, o->json ? '"' : '\n');
}

/* Not inlined: print_insn's text path stays lean. */
static __attribute__((noinline)) void
json_insn(struct printer *o, const struct qpt_item *it)
{
	char *p;

	out_begin(&o->w);
	out_kv_hex(&o->w, "ip", it->ip);
	json_common(o, it);
	out_key(&o->w, "bytes");
	p = out_reserve(&o->w, 2 + 2 * sizeof(it->raw));
	*p = '"';
	p = fmt_bytes(p + 1, it, false);
	*p++ = '"';
	out_commit(&o->w, p);
	if (!o->no_asm) {
		char buf[128];
		size_t len;
		const char *s = asm_text(o, it, buf, sizeof(buf), &len);

		if (len)
			out_kv_str(&o->w, "asm", s, len);
	}
	if (o->srcline)
		put_srcline(o, it);
	out_end(&o->w);
}

/* The line of @it after its prefix as it was printed last, or NULL. */
static const struct line_ent *line_find(struct printer *o,
					const struct qpt_item *it)
{
	const struct line_ent *e = line_at(o, it->ip);

	if (o->mode == MODE_BRANCHES) /* its runs are where the lines are */
		return NULL;
	if (e->len && e->ip == it->ip && e->sym == it->sym &&
	    e->symoff == it->symoff && e->size == it->size &&
	    e->mode == it->mode && !memcmp(e->raw, it->raw, sizeof(e->raw)))
		return e;
	return NULL;
}

/* Keep the line of @it after its prefix: the @n bytes at @s. */
static void line_keep(struct printer *o, const struct qpt_item *it,
		      const char *s, size_t n)
{
	struct line_ent *e = line_at(o, it->ip);

	if (n > LINE_TEXT || o->mode == MODE_BRANCHES)
		return;
	e->ip = it->ip;
	e->sym = it->sym;
	e->symoff = it->symoff;
	e->size = it->size;
	e->mode = it->mode;
	memcpy(e->raw, it->raw, sizeof(e->raw));
	e->len = (uint8_t)n;
	memcpy(e->s, s, n);
}

/* A text line whose prefix or rest is new. */
static __attribute__((noinline)) void text_insn(struct printer *o,
						const struct qpt_item *it)
{
	const struct line_ent *e;
	unsigned long flushes;
	size_t start;
	char *p, *col;

	put_prefix(o, it);
	e = line_find(o, it);
	if (e) {
		out_raw(&o->w, e->s, e->len);
		return;
	}
	start = o->w.len;
	flushes = o->w.flushes;
	p = out_reserve(&o->w, 18); /* ' ', 16 digits, ' ' before a name */
	*p = ' ';
	p = fmt_hex16(o, p + 1, it->ip);
	if (it->sym) {
		*p++ = ' ';
		out_commit(&o->w, p);
		print_name(o, it->sym);
		p = fmt_off(out_reserve(&o->w, 24 + 64 + ASM_ROOM),
			    it->symoff);
	} else {
		out_commit(&o->w, p);
		p = out_reserve(&o->w, 64 + ASM_ROOM);
	}
	memcpy(p, " insn:", 6);
	col = p + 6;
	p = fmt_bytes(col, it, true);
	if (!o->no_asm)
		p = fmt_asm(o, p, col, it);
	*p++ = '\n';
	out_commit(&o->w, p);
	if (o->w.flushes == flushes) /* the whole line is in the buffer */
		line_keep(o, it, o->w.buf + start, o->w.len - start);
}

void print_insn(struct printer *o, const struct qpt_item *it)
{
	const struct line_ent *e;
	int pfx;
	char *p;

	if (o->json) {
		json_insn(o, it);
		return;
	}
	pfx = pfx_known(o, it);
	e = line_find(o, it);
	if (pfx < 0 || !e || o->srcline) {
		text_insn(o, it);
		if (o->srcline)
			put_srcline(o, it);
		return;
	}
	/* the whole of o->pfx and of e->s: copies of fixed size are a few
	 * moves */
	p = out_reserve(&o->w, sizeof(o->pfx) + LINE_TEXT);
	memcpy(p, o->pfx, sizeof(o->pfx));
	p += pfx;
	memcpy(p, e->s, LINE_TEXT);
	out_commit(&o->w, p + e->len);
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

static void json_branch(struct printer *o, const struct qpt_item *it)
{
	out_begin(&o->w);
	out_kv_hex(&o->w, "from", it->ip);
	out_kv_hex(&o->w, "to", it->to);
	out_kv_cstr(&o->w, "kind", qpt_branch_kind_name(it->kind));
	if (it->kind == QPT_BR_TRACE_END && it->via != QPT_BR_NR)
		out_kv_cstr(&o->w, "via", qpt_branch_kind_name(it->via));
	if (it->to_sym)
		put_json_sym(o, "to_sym", it->to_sym, it->to_symoff);
	json_common(o, it);
	if (o->srcline)
		put_srcline(o, it);
	out_end(&o->w);
}

_Static_assert(sizeof(struct br_ent) == 256 && BR_TEXT % 16 == 0 &&
		   BR_TEXT <= sizeof(((struct br_ent *)0)->s) &&
		   32 + BR_TEXT <= OUT_RESERVE_MAX,
	       "br_ent");

/* The branch line cache's entry for @it. */
static struct br_ent *br_at(struct printer *o, const struct qpt_item *it)
{
	uint64_t h = (it->ip ^ (it->to << 5)) * 0x9e3779b97f4a7c15ull;

	return &o->c->br_lines[h >> (64 - BR_SETS_ORDER)];
}

static bool br_same(const struct br_ent *e, const struct qpt_item *it)
{
	return e->len && e->ip == it->ip && e->to == it->to &&
	       e->kind == it->kind && e->via == it->via && e->sym == it->sym &&
	       e->to_sym == it->to_sym && e->symoff == it->symoff &&
	       e->to_symoff == it->to_symoff;
}

/* Keep the line of @it after its prefix: the @n bytes at @s. */
static void br_keep(struct br_ent *e, const struct qpt_item *it,
		    const char *s, size_t n)
{
	if (n > BR_TEXT || it->kind > 255 || it->via > 255)
		return;
	e->ip = it->ip;
	e->to = it->to;
	e->sym = it->sym;
	e->to_sym = it->to_sym;
	e->symoff = it->symoff;
	e->to_symoff = it->to_symoff;
	e->kind = (uint8_t)it->kind;
	e->via = (uint8_t)it->via;
	e->len = (uint8_t)n;
	memcpy(e->s, s, n);
}

/* A text branch line after its prefix, made anew. */
static void text_branch(struct printer *o, const struct qpt_item *it)
{
	unsigned via = it->via < QPT_BR_NR ? it->via : QPT_BR_NR;

	out_raw(&o->w, o->flags[it->kind < QPT_BR_NR ? it->kind : 0][via], 25);
	put_hex16(o, it->ip);
	if (it->sym) {
		out_char(&o->w, ' ');
		put_sym(o, it->sym, it->symoff);
	}
	out_lit(&o->w, " => ");
	put_hex16(o, it->to);
	if (it->to_sym) {
		out_char(&o->w, ' ');
		put_sym(o, it->to_sym, it->to_symoff);
	}
	out_char(&o->w, '\n');
}

/* The line of a run's branch after its prefix, the @n bytes at @s: kept
 * in the run's entry, which is whole after its last line. */
static void run_keep(struct printer *o, const char *s, size_t n)
{
	struct run_ent *e = o->run_rec;

	if (n > BR_TEXT || e->len + n > RUN_TEXT) {
		o->run_left = 0;
		return;
	}
	memcpy(e->s + e->len, s, n);
	e->line[e->n++] = (uint8_t)n;
	e->len = (uint16_t)(e->len + n);
	if (--o->run_left == 0)
		e->run = o->run_id;
}

int print_run(struct printer *o, const struct qpt_item *it)
{
	struct run_ent *e;
	const char *s;
	unsigned k;
	int pfx;
	char *p;

	o->run_left = 0;
	if (o->json || o->srcline || o->mode != MODE_BRANCHES ||
	    !QPT_SIZED_HAS(struct qpt_item, it, run_len) || !it->run)
		return 0;
	pfx = pfx_for(o, it);
	if (pfx < 0 || pfx > 32)
		return 0;
	e = &o->c->runs[it->run & (RUN_SETS - 1)];
	if (e->run == it->run) {
		for (k = 0, s = e->s; k < e->n; s += e->line[k++]) {
			p = out_reserve(&o->w, 32 + BR_TEXT);
			p = put_known_prefix(o, p, pfx);
			out_commit(&o->w, copy16(p, s, e->line[k]));
		}
		return 1;
	}
	if (it->run_len > RUN_LINES)
		return 0;
	e->run = 0;
	e->len = 0;
	e->n = 0;
	o->run_rec = e;
	o->run_id = it->run;
	o->run_left = it->run_len;
	return 0;
}

static void print_branch(struct printer *o, const struct qpt_item *it)
{
	unsigned long flushes;
	struct br_ent *e;
	size_t start;
	int pfx;
	char *p;

	if (o->json) {
		json_branch(o, it);
		return;
	}
	e = br_at(o, it);
	if (!o->srcline && br_same(e, it)) { /* its text kept */
		pfx = pfx_known(o, it);
		if (pfx >= 0 && pfx <= 32) { /* one reservation for both */
			p = out_reserve(&o->w, 32 + BR_TEXT);
			p = put_known_prefix(o, p, pfx);
		} else {
			put_prefix(o, it);
			p = out_reserve(&o->w, BR_TEXT);
		}
		out_commit(&o->w, copy16(p, e->s, e->len));
		if (o->run_left)
			run_keep(o, e->s, e->len);
		return;
	}
	put_prefix(o, it);
	if (o->srcline) {
		text_branch(o, it);
		put_srcline(o, it);
		return;
	}
	start = o->w.len;
	flushes = o->w.flushes;
	text_branch(o, it);
	if (o->w.flushes != flushes) { /* not the whole line in the buffer */
		o->run_left = 0;
		return;
	}
	br_keep(e, it, o->w.buf + start, o->w.len - start);
	if (o->run_left)
		run_keep(o, o->w.buf + start, o->w.len - start);
}

/* perf script's flags column, "  %-23s", for every kind and reason. */
static void flags_init(struct printer *o)
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

static void json_call(struct printer *o, const struct qpt_item *it,
		      bool entry, int depth)
{
	out_begin(&o->w);
	if (entry) {
		out_kv_hex(&o->w, "entry", it->to);
		out_kv_hex(&o->w, "from", it->ip);
		if (it->to_sym)
			put_json_sym(o, "to_sym", it->to_sym, it->to_symoff);
	} else {
		out_kv_hex(&o->w, "exit", it->ip);
		out_kv_hex(&o->w, "to", it->to);
	}
	out_kv_i64(&o->w, "depth", depth);
	json_common(o, it);
	out_end(&o->w);
}

/* " 0xADDR NAME+0xOFF" (the symbol when known) */
static void text_addr_sym(struct printer *o, uint64_t addr, const char *sym,
			  uint64_t off)
{
	out_hex(&o->w, addr);
	if (sym) {
		out_char(&o->w, ' ');
		put_sym(o, sym, off);
	}
}

static void text_call(struct printer *o, const struct qpt_item *it,
		      bool entry, int depth)
{
	put_prefix(o, it);
	for (; depth > 0; depth--)
		out_lit(&o->w, "    ");
	if (entry) {
		out_lit(&o->w, "-> ");
		text_addr_sym(o, it->to, it->to_sym, it->to_symoff);
		out_lit(&o->w, " (from ");
		text_addr_sym(o, it->ip, it->sym, it->symoff);
	} else {
		out_lit(&o->w, "<- ");
		text_addr_sym(o, it->ip, it->sym, it->symoff);
		out_lit(&o->w, " (to ");
		out_hex(&o->w, it->to);
	}
	out_lit(&o->w, ")\n");
}

/* 1 for a call (entry), -1 for a return (exit), 0 for another item */
static int call_dir(const struct qpt_item *it)
{
	if (it->type != QPT_ITEM_BRANCH)
		return 0;
	switch (it->kind) {
	case QPT_BR_CALL:
	case QPT_BR_IND_CALL:
	case QPT_BR_SYSCALL:
	case QPT_BR_INT:
		return 1;
	case QPT_BR_RET:
	case QPT_BR_SYSRET:
	case QPT_BR_IRET:
		return -1;
	default:
		return 0;
	}
}

bool decode_is_call(const struct qpt_item *it)
{
	return call_dir(it) != 0;
}

/* The depth of thread @tid, found by bisection or added at 0. */
static struct thread_depth *thread_depth(struct printer *o, int32_t tid)
{
	size_t lo = 0, hi = o->nr_depths, mid;
	struct thread_depth *t;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (o->depths[mid].tid == tid)
			return &o->depths[mid];
		if (o->depths[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (cli_grow(&o->depths, &o->cap_depths, o->nr_depths, sizeof(*t)))
		return NULL;
	t = &o->depths[lo];
	memmove(t + 1, t, (o->nr_depths - lo) * sizeof(*t));
	o->nr_depths++;
	*t = (struct thread_depth){tid, 0};
	return t;
}

int decode_call_depth(struct printer *o, const struct qpt_item *it)
{
	int dir = call_dir(it);
	struct thread_depth *t;

	if (!dir)
		return 0;
	t = thread_depth(o, it->tid);
	if (!t)
		return -ENOMEM;
	if (dir < 0 && t->depth > 0)
		t->depth--;
	o->call_depth = t->depth;
	if (dir > 0)
		t->depth++;
	return 0;
}

static void print_call(struct printer *o, const struct qpt_item *it)
{
	int dir = call_dir(it);

	if (!dir)
		return;
	if (o->json)
		json_call(o, it, dir > 0, o->call_depth);
	else
		text_call(o, it, dir > 0, o->call_depth);
}

static void json_event(struct printer *o, const struct qpt_item *it)
{
	out_begin(&o->w);
	out_kv_cstr(&o->w, "event", qpt_event_kind_name(it->kind));
	out_kv_u64(&o->w, "offset", it->offset);
	if (it->flags & QPT_ITEM_IP_VALID)
		out_kv_hex(&o->w, "ip", it->ip);
	if (it->kind == QPT_EV_PAGING || it->kind == QPT_EV_VMCS ||
	    it->kind == QPT_EV_PTWRITE || it->kind == QPT_EV_EXEC_MODE)
		out_kv_hex(&o->w, "value", it->value);
	if (it->msg)
		out_kv_cstr(&o->w, "message", it->msg);
	json_common(o, it);
	out_end(&o->w);
}

static void print_event(struct printer *o, const struct qpt_item *it)
{
	if (o->json) {
		json_event(o, it);
		return;
	}
	put_prefix(o, it);
	out_lit(&o->w, "  [");
	out_cstr(&o->w, qpt_event_kind_name(it->kind));
	out_lit(&o->w, " at offset 0x");
	out_hex(&o->w, it->offset);
	if (it->flags & QPT_ITEM_IP_VALID) {
		out_lit(&o->w, ", ip 0x");
		out_hex(&o->w, it->ip);
		if (it->sym) {
			out_char(&o->w, ' ');
			put_sym(o, it->sym, it->symoff);
		}
	}
	if (it->msg) {
		out_lit(&o->w, ": ");
		out_esc(&o->w, it->msg, strlen(it->msg));
	}
	out_lit(&o->w, "]\n");
}

void print_item(struct printer *o, const struct qpt_item *it)
{
	if (o->fields && it->type != QPT_ITEM_EVENT && o->mode != MODE_CALLS) {
		print_fields(o, it);
		return;
	}
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

struct printer *printer_new(void)
{
	struct printer *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->c = bigmem_zalloc(sizeof(*o->c));
	if (!o->c) {
		free(o);
		return NULL;
	}
	return o;
}

void printer_free(struct printer *o)
{
	if (!o)
		return;
	bigmem_free(o->c, sizeof(*o->c));
	free(o);
}

void decode_print_init(struct printer *o)
{
	out_init(&o->w, STDOUT_FILENO, o->json, o->buf, sizeof(o->buf));
	flags_init(o);
}
