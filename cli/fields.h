/* SPDX-License-Identifier: MIT */
/*
 * Field lists as perf script -F reads them: "a,b,c" (those fields), or
 * "+a,-b" (added to or taken from a default); for qpt decode's and qpt
 * lbr's text.
 */
#ifndef QPT_CLI_FIELDS_H
#define QPT_CLI_FIELDS_H

#include <stddef.h>

struct field_name {
	const char *name;
	unsigned bit;
};

/*
 * Parse @spec with the @n @names; @dflt: the fields "+a" and "-b" start
 * from.  Sets *@mask.  Returns 0, or with the offending word (at most
 * @size bytes) in @bad: -1 (no such field, or no field at all), -2 (a
 * list that mixes both forms, as perf refuses).
 */
int fields_parse_list(const struct field_name *names, size_t n, unsigned dflt,
		      const char *spec, unsigned *mask, char *bad, size_t size);

#endif
