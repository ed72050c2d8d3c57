// SPDX-License-Identifier: MIT
/*
 * The address of SYMBOL+OFF in a mapped ELF file: the file offset of the
 * symbol's bytes (capture/elfsym.c, the one symbol reader) where the
 * mapping holds it.
 */
#include "capture/emulate/trigger.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/elfsym.h"
#include "qpt/qpt.h"

int emu_trigger_parse(struct emu_trigger *t, const char *spec)
{
	const char *plus = strchr(spec, '+');
	size_t n = plus ? (size_t)(plus - spec) : strlen(spec);
	char *end;

	memset(t, 0, sizeof(*t));
	if (!n || n >= sizeof(t->name))
		return -QPT_E_INVAL;
	memcpy(t->name, spec, n);
	if (plus) {
		errno = 0;
		t->off = strtoull(plus + 1, &end, 0);
		if (errno || !plus[1] || *end)
			return -QPT_E_INVAL;
	}
	return 0;
}

void emu_trigger_map(struct emu_trigger *t, const char *path, uint64_t start,
		     uint64_t end, uint64_t pgoff)
{
	struct qpt_elf_sym s;
	uint64_t addr;

	if (t->nr == EMU_TRIGGER_MAX || path[0] != '/' ||
	    qpt_elf_sym_find(path, t->name, t->off, &s) < 0 ||
	    s.offset < pgoff || s.offset - pgoff >= end - start)
		return;
	/* where the symbol's bytes are mapped */
	addr = start + (s.offset - pgoff);
	if (!emu_trigger_hit(t, addr))
		t->addr[t->nr++] = addr;
}

void emu_trigger_reset(struct emu_trigger *t)
{
	t->nr = 0;
}
