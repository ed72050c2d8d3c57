// SPDX-License-Identifier: MIT
/*
 * Names and source lines from the library's symbolizer (qpt/symbolizer.h:
 * the decoder's own lookups, so that an address outside the flow is named
 * as the flow names it); libdwfl over the same files for the unwind of the
 * stack copy and for relocations: each file is reported once, at the load
 * bias of its first executable mapping (start - pgoff: segments map at
 * their file offset's distance from the bias).
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/crash_syms.h"
#include "qpt/decode.h"
#include "qpt/reader.h"
#include "qpt/symbolizer.h"

/* A name demangled, kept while the lookups last (by the raw name's
 * address, which libdwfl and libelf keep as long). */
struct demangled {
	const char *raw;
	char *name;
	struct demangled *next;
};

/* A file reported, at its load bias. */
struct reported {
	char *path;
	uint64_t bias;
	struct reported *next;
};

struct crash_syms {
	struct qpt_symbolizer *sym;
	Dwfl *dwfl;
	bool reporting;
	const char *sysroot;
	bool demangle;
	struct demangled *names;
	struct reported *files;
};

/* @raw as the decoder names it: demangled unless asked not to. */
static const char *shown(struct crash_syms *s, const char *raw)
{
	struct demangled *d;
	char *name;

	if (!raw || !s->demangle)
		return raw;
	for (d = s->names; d; d = d->next)
		if (d->raw == raw)
			return d->name;
	name = qpt_demangle(raw);
	if (!name)
		return raw;
	d = malloc(sizeof(*d));
	if (!d) {
		free(name);
		return raw;
	}
	d->raw = raw;
	d->name = name;
	d->next = s->names;
	s->names = d;
	return name;
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct crash_syms *crash_syms_new(const char *sysroot, bool demangle)
{
	struct crash_syms *s = calloc(1, sizeof(*s));
	struct qpt_symbolizer_opts o;

	if (!s)
		return NULL;
	s->sysroot = sysroot;
	s->demangle = demangle;
	qpt_symbolizer_opts_init(&o);
	o.sysroot = sysroot;
	o.demangle = demangle;
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl || qpt_symbolizer_new(&o, &s->sym)) {
		if (s->dwfl)
			dwfl_end(s->dwfl);
		free(s);
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	s->reporting = true;
	return s;
}

/* Whether @path was reported at @bias; if not, it is from now on (false
 * too when out of memory: then it is not reported). */
static bool was_reported(struct crash_syms *s, const char *path,
			 uint64_t bias)
{
	struct reported *r;

	for (r = s->files; r; r = r->next)
		if (r->bias == bias && !strcmp(r->path, path))
			return true;
	r = malloc(sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return true;
	}
	r->bias = bias;
	r->next = s->files;
	s->files = r;
	return false;
}

/*
 * The file opened as the decoder opens it (qpt_sysroot_open: a recorded
 * name never leads out of the sysroot, a FIFO is not waited on), libdwfl
 * given the descriptor and the file's own path (where it looks for a
 * .gnu_debuglink file).  One module per file and bias: reported again,
 * libdwfl would see another descriptor as an overlap.
 */
void crash_syms_add(struct crash_syms *s, const struct qpt_record *rec,
		    int32_t pid)
{
	struct qpt_mmap_event m;
	char path[4096], *found;
	int fd;

	if (!s || !s->reporting || qpt_mmap_parse(rec, &m) || m.pid != pid ||
	    !m.exec || m.filename_len >= sizeof(path) || m.filename[0] != '/')
		return;
	memcpy(path, m.filename, m.filename_len);
	path[m.filename_len] = '\0';
	/* out of memory: that file's names are missing */
	(void)qpt_symbolizer_map(s->sym, m.start, m.len, m.pgoff, path,
				 m.build_id, m.build_id_size);
	if (was_reported(s, path, m.start - m.pgoff))
		return;
	fd = qpt_sysroot_open(s->sysroot, path, &found);
	if (fd < 0)
		return; /* a file that cannot be read: no symbols there */
	if (!dwfl_report_elf(s->dwfl, path, found, fd, m.start - m.pgoff,
			     false)) {
		dwfl_errno();
		close(fd); /* libdwfl takes it only on success */
	}
	free(found);
}

static Dwfl_Module *module(struct crash_syms *s, uint64_t ip)
{
	if (!s)
		return NULL;
	if (s->reporting) {
		dwfl_report_end(s->dwfl, NULL, NULL);
		s->reporting = false;
	}
	return dwfl_addrmodule(s->dwfl, ip);
}

const char *crash_syms_name(struct crash_syms *s, uint64_t ip, uint64_t *off)
{
	*off = 0;
	return s ? qpt_symbolizer_sym(s->sym, ip, off) : NULL;
}

const char *crash_syms_object(struct crash_syms *s, uint64_t addr,
			      uint64_t *off)
{
	Dwfl_Module *mod = module(s, addr);
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;

	*off = 0;
	if (!mod)
		return NULL;
	name = dwfl_module_addrinfo(mod, addr, &o, &sym, NULL, NULL, NULL);
	*off = o;
	return shown(s, name);
}

const char *crash_syms_line(struct crash_syms *s, uint64_t ip,
			    unsigned *line)
{
	*line = 0;
	return s ? qpt_symbolizer_srcline(s->sym, ip, line) : NULL;
}

/* The symbol of relocation section @scn's entry at file address @a. */
static const char *reloc_in(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, GElf_Addr a)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Rela r;
	GElf_Sym sym;
	Elf_Data *syms;
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ssh;
	size_t i, n;

	if (!d || !symscn || !gelf_getshdr(symscn, &ssh) || !sh->sh_entsize)
		return NULL;
	syms = elf_getdata(symscn, NULL);
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; syms && i < n; i++) {
		if (!gelf_getrela(d, (int)i, &r) || r.r_offset != a)
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
			return NULL;
		return elf_strptr(elf, ssh.sh_link, sym.st_name);
	}
	return NULL;
}

const char *crash_syms_reloc(struct crash_syms *s, uint64_t addr)
{
	Dwfl_Module *mod = module(s, addr);
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Addr bias;
	GElf_Shdr sh;
	Elf *elf;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		name = reloc_in(elf, scn, &sh, addr - bias);
		if (name)
			return shown(s, name);
	}
	return NULL;
}

Dwfl *crash_syms_dwfl(struct crash_syms *s)
{
	if (!s)
		return NULL;
	if (s->reporting) {
		dwfl_report_end(s->dwfl, NULL, NULL);
		s->reporting = false;
	}
	return s->dwfl;
}

void crash_syms_free(struct crash_syms *s)
{
	struct demangled *d, *n;

	if (!s)
		return;
	struct reported *r, *rn;

	for (d = s->names; d; d = n) {
		n = d->next;
		free(d->name);
		free(d);
	}
	for (r = s->files; r; r = rn) {
		rn = r->next;
		free(r->path);
		free(r);
	}
	dwfl_end(s->dwfl);
	qpt_symbolizer_free(s->sym);
	free(s);
}
