// SPDX-License-Identifier: MIT
/*
 * A symbol's value in an ELF file (.symtab, else .dynsym) and the file
 * offset of an address in it (the PT_LOAD segment that holds it).
 */
#include "capture/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "qpt/qpt.h"

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

/* The file offset of @addr in @elf's PT_LOAD segments.  0 or -ENOENT. */
static int file_offset(Elf *elf, uint64_t addr, uint64_t *off)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -QPT_E_FORMAT;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int qpt_elf_sym_find(const char *path, const char *name, uint64_t off,
		     struct qpt_elf_sym *out)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, err = -QPT_E_FORMAT;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &eh)) {
		out->type = eh.e_type;
		out->value = sym_value(elf, name);
		err = out->value
			  ? file_offset(elf, out->value + off, &out->offset)
			  : -ENOENT;
	}
	elf_end(elf);
	close(fd);
	return err;
}
