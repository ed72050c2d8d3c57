/* SPDX-License-Identifier: MIT */
/*
 * qpt decode -F: the text fields of instructions and branches chosen by
 * name, in perf script's layout and order (perf script -F ip,sym,...).
 */
#ifndef QPT_CLI_DECODE_FIELDS_H
#define QPT_CLI_DECODE_FIELDS_H

#include <stddef.h>

#include "cli/decode_print.h"

/* The fields, in the order perf script prints them. */
enum field {
	FIELD_PID = 1u << 0,
	FIELD_TID = 1u << 1,
	FIELD_CPU = 1u << 2,
	FIELD_TIME = 1u << 3,
	FIELD_FLAGS = 1u << 4,
	FIELD_IP = 1u << 5,
	FIELD_SYM = 1u << 6,
	FIELD_SYMOFF = 1u << 7,
	FIELD_ADDR = 1u << 8,
	FIELD_SRCLINE = 1u << 9,
	FIELD_INSNLEN = 1u << 10,
	FIELD_INSN = 1u << 11,
	FIELD_DISASM = 1u << 12,
};

/*
 * Parse perf script's field list @spec for @mode: "f1,f2,..." (those
 * fields), or "+f,..." / "-f,..." (added to or taken from the default
 * fields of @mode); an optional "TYPE:" before it is accepted when TYPE
 * is an event perf would print these items as (insn/instructions,
 * branches). Sets *@mask. Returns 0, or with the offending word (at
 * most @size bytes) in @bad: -1 (no field, or an empty list), -2 (a list
 * that mixes both forms, as perf refuses).
 */
int fields_parse(const char *spec, enum mode mode, unsigned *mask, char *bad,
		 size_t size);

/* The names of every field, for messages: "pid, tid, ..." */
const char *fields_names(void);

/* Print @it (an instruction or a branch) with the fields o->fields. */
void print_fields(struct printer *o, const struct qpt_item *it);

#endif
