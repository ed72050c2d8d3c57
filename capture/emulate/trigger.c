// SPDX-License-Identifier: MIT
/*
 * The address of SYMBOL+OFF in a mapped ELF file: the symbol's value
 * (.symtab, else .dynsym), moved by the load bias (start - pgoff) in a
 * shared object or PIE, as is in an ET_EXEC; it counts where it falls in
 * the mapping.
 */
#include "capture/emulate/trigger.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The value of the symbol @name in @elf (a function or an object), or 0. */
static uint64_t sym_value(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	uint64_t dyn = 0;
	Elf_Data *d;
	size_t i, n;
	const char *s;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!s || strcmp(s, name))
				continue;
			if (sh.sh_type == SHT_SYMTAB)
				return sym.st_value;
			dyn = sym.st_value;
		}
	}
	return dyn;
}

void emu_trigger_map(struct emu_trigger *t, const char *path, uint64_t start,
		     uint64_t end, uint64_t pgoff)
{
	uint64_t v, addr;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	if (t->nr == EMU_TRIGGER_MAX || path[0] != '/')
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &eh)) {
		v = sym_value(elf, t->name);
		addr = eh.e_type == ET_DYN ? v + start - pgoff : v;
		addr += t->off;
		if (v && addr >= start && addr < end && !emu_trigger_hit(t, addr))
			t->addr[t->nr++] = addr;
	}
	elf_end(elf);
	close(fd);
}

void emu_trigger_reset(struct emu_trigger *t)
{
	t->nr = 0;
}
