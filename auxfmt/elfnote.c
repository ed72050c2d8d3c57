// SPDX-License-Identifier: MIT
/* ELF notes, bounded by the bytes given (see elfnote.h). */
#include <string.h>

#include "auxfmt/elfnote.h"
#include "qpt/qpt.h"

/* Elf32_Nhdr and Elf64_Nhdr alike: three u32 words. */
#define NHDR_SIZE 12u

static uint32_t word(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t pad(uint64_t n, size_t align)
{
	return (n + align - 1) & ~(uint64_t)(align - 1);
}

int qpt_elf_note_find(const void *buf, size_t len, size_t align,
		      uint32_t type, const char *name, const uint8_t **desc)
{
	const uint8_t *p = buf;
	size_t want = strlen(name) + 1;
	uint64_t off = 0, name_off, desc_off, next;
	uint32_t namesz, descsz;

	if (align != 4 && align != 8)
		return -QPT_E_INVAL;
	while (off < len) {
		if (len - off < NHDR_SIZE)
			return -QPT_E_TRUNCATED;
		namesz = word(p + off);
		descsz = word(p + off + 4);
		name_off = off + NHDR_SIZE;
		desc_off = pad(name_off + namesz, align);
		next = pad(desc_off + descsz, align);
		/* the last note's padding may be cut off */
		if (desc_off + descsz > len || name_off + namesz > len)
			return -QPT_E_TRUNCATED;
		if (word(p + off + 8) == type && namesz == want &&
		    !memcmp(p + name_off, name, want)) {
			*desc = p + desc_off;
			return descsz > (uint32_t)INT32_MAX ? -QPT_E_TRUNCATED
							    : (int)descsz;
		}
		off = next;
	}
	return 0;
}

int qpt_elf_note_build_id(const void *buf, size_t len, size_t align,
			  const uint8_t **id)
{
	return qpt_elf_note_find(buf, len, align, QPT_NT_GNU_BUILD_ID, "GNU",
				 id);
}
