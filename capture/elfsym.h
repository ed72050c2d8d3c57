/* SPDX-License-Identifier: MIT */
/*
 * A symbol of an ELF file on disk: its value and the file offset of
 * SYMBOL+OFF, the one symbol reader of --snapshot-on (the emulated
 * source's breakpoint addresses, the PMU source's uprobe).
 */
#ifndef QPT_CAPTURE_ELFSYM_H
#define QPT_CAPTURE_ELFSYM_H

#include <stdint.h>

struct qpt_elf_sym {
	uint64_t value;	 /* the symbol's value (.symtab, else .dynsym) */
	uint64_t offset; /* the file offset of value + off */
	int type;	 /* e_type: ET_EXEC, ET_DYN */
};

/*
 * Find @name (a defined function or object) in @path and the file offset
 * of its value + @off, through the PT_LOAD segment holding it.  Returns 0
 * and *@out, -errno (open), -QPT_E_FORMAT (not ELF), -ENOENT (no such
 * symbol, or value + @off in no loaded segment).
 */
int qpt_elf_sym_find(const char *path, const char *name, uint64_t off,
		     struct qpt_elf_sym *out);

#endif
