// SPDX-License-Identifier: MIT
/*
 * libdwfl over the crashed process's mapped files: each file is reported
 * once, at the load bias of its first executable mapping (start - pgoff:
 * segments map at their file offset's distance from the bias).
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/crash_syms.h"
#include "qpt/reader.h"

struct crash_syms {
	Dwfl *dwfl;
	bool reporting;
	const char *sysroot;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct crash_syms *crash_syms_new(const char *sysroot)
{
	struct crash_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sysroot = sysroot;
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl) {
		free(s);
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	s->reporting = true;
	return s;
}

void crash_syms_add(struct crash_syms *s, const struct qpt_record *rec,
		    int32_t pid)
{
	struct qpt_mmap_event m;
	char path[4096], file[4096 + 256];

	if (!s || !s->reporting || qpt_mmap_parse(rec, &m) || m.pid != pid ||
	    !m.exec || m.filename_len >= sizeof(path) || m.filename[0] != '/')
		return;
	memcpy(path, m.filename, m.filename_len);
	path[m.filename_len] = '\0';
	if ((size_t)snprintf(file, sizeof(file), "%s%s",
			     s->sysroot ? s->sysroot : "", path) >= sizeof(file))
		return;
	/* one module per file: a file already reported is kept */
	if (dwfl_report_elf(s->dwfl, path, file, -1, m.start - m.pgoff, false))
		return;
	dwfl_errno(); /* a file that cannot be read: no symbols there */
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
	Dwfl_Module *mod = module(s, ip);
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;

	if (!mod)
		return NULL;
	name = dwfl_module_addrinfo(mod, ip, &o, &sym, NULL, NULL, NULL);
	*off = o;
	return name;
}

const char *crash_syms_line(struct crash_syms *s, uint64_t ip, int *line)
{
	Dwfl_Module *mod = module(s, ip);
	Dwfl_Line *l;

	if (!mod)
		return NULL;
	l = dwfl_module_getsrc(mod, ip);
	return l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
}

void crash_syms_free(struct crash_syms *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	free(s);
}
