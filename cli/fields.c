// SPDX-License-Identifier: MIT
/*
 * perf script's -F field lists: a list of names, or one of names each
 * with + or - that change a default; both forms in one list are refused,
 * as perf refuses them.
 */
#include <stdio.h>
#include <string.h>

#include "cli/fields.h"

static unsigned field_bit(const struct field_name *names, size_t nr,
			  const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (strlen(names[i].name) == n && !memcmp(names[i].name, s, n))
			return names[i].bit;
	return 0;
}

int fields_parse_list(const struct field_name *names, size_t nr,
		      unsigned dflt, const char *spec, unsigned *mask,
		      char *bad, size_t size)
{
	char sign = *spec == '+' || *spec == '-' ? *spec : 0;
	unsigned set = sign ? dflt : 0;

	do {
		size_t n;
		unsigned bit;
		char op = 0;

		if (*spec == '+' || *spec == '-')
			op = *spec++;
		n = strcspn(spec, ",");
		bit = field_bit(names, nr, spec, n);
		if (!bit || !sign != !op) { /* perf: no mix of both forms */
			snprintf(bad, size, "%s%.*s", op == '+' ? "+" :
				 op == '-' ? "-" : "", (int)(n < 64 ? n : 64),
				 spec);
			return bit ? -2 : -1;
		}
		if (op == '-')
			set &= ~bit;
		else
			set |= bit;
		spec += n;
	} while (*spec++ == ',' && spec[0]);
	if (spec[-1] == ',') {
		snprintf(bad, size, "%s", ",");
		return -1;
	}
	if (!set) {
		snprintf(bad, size, "%s", "(no field left)");
		return -1;
	}
	*mask = set;
	return 0;
}
