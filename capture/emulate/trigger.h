/* SPDX-License-Identifier: MIT */
/*
 * --snapshot-on=SYMBOL[+OFF]: the addresses where a traced process
 * reaches a function (found in the ELF symbols of its mapped files), for
 * the stepper to take a snapshot there.
 */
#ifndef QPT_CAPTURE_EMU_TRIGGER_H
#define QPT_CAPTURE_EMU_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_TRIGGER_MAX 16

struct emu_trigger {
	char name[256];
	uint64_t off;
	uint64_t addr[EMU_TRIGGER_MAX];
	unsigned nr;
};

/* Parse "SYMBOL" or "SYMBOL+OFF".  Returns 0 or -QPT_E_INVAL. */
int emu_trigger_parse(struct emu_trigger *t, const char *spec);
/* An executable mapping [@start, @end) of @path at file offset @pgoff:
 * where the symbol lies in it, the address joins the list. */
void emu_trigger_map(struct emu_trigger *t, const char *path, uint64_t start,
		     uint64_t end, uint64_t pgoff);
/* A new image (exec): the addresses go. */
void emu_trigger_reset(struct emu_trigger *t);

static inline bool emu_trigger_hit(const struct emu_trigger *t, uint64_t ip)
{
	unsigned i;

	for (i = 0; i < t->nr; i++)
		if (t->addr[i] == ip)
			return true;
	return false;
}

#endif
