// SPDX-License-Identifier: MIT
/*
 * qpt decode -F: instructions and branches with the fields asked for, as
 * perf script lays them out: "PID/TID [CPU] SEC.NSEC:  FLAGS  IP SYM+OFF
 * => ADDR SYM+OFF ilen: N insn: BYTES".  Not the fast path: each line is
 * formatted as it comes.
 */
#include <stdio.h>
#include <string.h>

#include "cli/decode_fields.h"
#include "cli/fields.h"

static const struct field_name names[] = {
	{ "pid", FIELD_PID },	    { "tid", FIELD_TID },
	{ "cpu", FIELD_CPU },	    { "time", FIELD_TIME },
	{ "flags", FIELD_FLAGS },   { "ip", FIELD_IP },
	{ "sym", FIELD_SYM },	    { "symoff", FIELD_SYMOFF },
	{ "addr", FIELD_ADDR },	    { "srcline", FIELD_SRCLINE },
	{ "insnlen", FIELD_INSNLEN },
	{ "insn", FIELD_INSN },	    { "disasm", FIELD_DISASM },
};

#define NR_NAMES (sizeof(names) / sizeof(names[0]))

const char *fields_names(void)
{
	return "pid, tid, cpu, time, flags, ip, sym, symoff, addr, srcline, "
	       "insnlen, insn, disasm";
}

/* What qpt decode prints without -F, as fields. */
static unsigned fields_default(enum mode mode)
{
	unsigned where = FIELD_TID | FIELD_CPU | FIELD_TIME;

	if (mode == MODE_INSN)
		return where | FIELD_IP | FIELD_SYM | FIELD_SYMOFF |
		       FIELD_INSN | FIELD_DISASM;
	return where | FIELD_FLAGS | FIELD_IP | FIELD_SYM | FIELD_SYMOFF |
	       FIELD_ADDR;
}

/* "TYPE:" before the list: the event perf would show these items as. */
static int skip_type(const char **spec, enum mode mode, char *bad,
		     size_t size)
{
	const char *colon = strchr(*spec, ':');
	size_t n;

	if (!colon)
		return 0;
	n = (size_t)(colon - *spec);
	if ((mode == MODE_INSN && ((n == 4 && !memcmp(*spec, "insn", 4)) ||
				   (n == 12 && !memcmp(*spec, "instructions", 12)))) ||
	    (mode == MODE_BRANCHES && n == 8 && !memcmp(*spec, "branches", 8))) {
		*spec = colon + 1;
		return 0;
	}
	snprintf(bad, size, "%.*s:", (int)(n < 64 ? n : 64), *spec);
	return -1;
}

int fields_parse(const char *spec, enum mode mode, unsigned *mask, char *bad,
		 size_t size)
{
	if (skip_type(&spec, mode, bad, size))
		return -1;
	return fields_parse_list(names, NR_NAMES, fields_default(mode), spec,
				 mask, bad, size);
}

/* " SYM[+0xOFF]" as perf script prints a symbol field; [unknown] when
 * no symbol holds the address. */
static void put_sym_field(struct printer *o, const char *sym, uint64_t off)
{
	unsigned f = o->fields;

	if (!(f & FIELD_SYM))
		return;
	out_char(&o->w, ' ');
	if (!sym) {
		out_lit(&o->w, "[unknown]");
		return;
	}
	print_name(o, sym);
	if (f & FIELD_SYMOFF) {
		out_lit(&o->w, "+0x");
		out_hex(&o->w, off);
	}
}

/* "PID/TID [CPU] SEC.NSEC: " as far as asked for and known. */
static void put_where(struct printer *o, const struct qpt_item *it)
{
	unsigned f = o->fields;
	bool who = it->flags & QPT_ITEM_HAS_TID;
	char *p = out_reserve(&o->w, 96), *q;

	if (who && (f & FIELD_PID) && (f & FIELD_TID)) {
		p += sprintf(p, "%5d/%-5d ", it->pid, it->tid);
	} else if (who && (f & (FIELD_PID | FIELD_TID))) {
		p += sprintf(p, "%5d ", f & FIELD_PID ? it->pid : it->tid);
	}
	if (f & FIELD_CPU) /* perf: -1 when not recorded */
		p += sprintf(p, "[%03d] ", it->flags & QPT_ITEM_HAS_CPU ?
					   it->cpu : -1);
	if ((f & FIELD_TIME) && (it->flags & QPT_ITEM_HAS_TIME)) {
		q = out_fmt_dec(p, it->time / 1000000000, 5, ' ');
		*q++ = '.';
		q = out_fmt_dec(q, it->time % 1000000000, 9, '0');
		memcpy(q, ": ", 2);
		p = q + 2;
	}
	out_commit(&o->w, p);
}

/* perf's srcline field: "\n  FILE:LINE" with the file's base name
 * (perf's form; --srcline prints the whole path), nothing when unknown
 * (as perf, for which addr2line's "??:0" is no line). */
static void put_srcline_field(struct printer *o, const struct qpt_item *it)
{
	const char *base;

	if (!it->srcfile || !it->srcline)
		return;
	out_lit(&o->w, "\n  ");
	base = strrchr(it->srcfile, '/');
	print_name(o, base ? base + 1 : it->srcfile);
	out_char(&o->w, ':');
	out_dec(&o->w, it->srcline);
}

/* " ilen: N insn: XX XX  TEXT" as asked for. */
static void put_insn(struct printer *o, const struct qpt_item *it)
{
	unsigned f = o->fields, i;
	char text[128];
	int n;

	if (f & FIELD_INSNLEN) {
		out_lit(&o->w, " ilen: ");
		out_dec(&o->w, it->size);
	}
	if ((f & FIELD_INSN) && it->size) {
		out_lit(&o->w, " insn:");
		for (i = 0; i < it->size && i < sizeof(it->raw); i++) {
			out_char(&o->w, ' ');
			out_raw(&o->w, out_hex2[it->raw[i]], 2);
		}
	}
	if ((f & FIELD_DISASM) && it->type == QPT_ITEM_INSN &&
	    (n = qpt_item_asm(it, text, sizeof(text))) > 0) {
		out_lit(&o->w, "  ");
		out_raw(&o->w, text, (size_t)n);
	}
}

void print_fields(struct printer *o, const struct qpt_item *it)
{
	unsigned f = o->fields;
	bool branch = it->type == QPT_ITEM_BRANCH;

	put_where(o, it);
	if (f & FIELD_FLAGS) {
		unsigned k = branch && it->kind < QPT_BR_NR ? it->kind : 0;
		unsigned via = it->via < QPT_BR_NR ? it->via : QPT_BR_NR;

		/* perf's "  %-21s ": the flag column without the space
		 * qpt's own layout puts before the address */
		if (branch)
			out_raw(&o->w, o->flags[k][via], 24);
		else
			out_lit(&o->w, "                        ");
	}
	if (!branch && (f & FIELD_ADDR))
		out_hex_pad(&o->w, 0, 16); /* perf: an instruction's addr */
	if (f & FIELD_IP) { /* perf: a symbol goes with its address */
		out_char(&o->w, ' ');
		out_hex_pad(&o->w, it->ip, 16);
		put_sym_field(o, it->sym, it->symoff);
	}
	if (branch && (f & FIELD_ADDR)) {
		out_lit(&o->w, " => ");
		out_hex_pad(&o->w, it->to, 16);
		put_sym_field(o, it->to_sym, it->to_symoff);
	}
	if (f & FIELD_SRCLINE)
		put_srcline_field(o, it);
	put_insn(o, it);
	out_char(&o->w, '\n');
}
