/* SPDX-License-Identifier: MIT */
/*
 * qpt crash's symbols and source lines for any address of the crashed
 * process, over the files its MMAP2 records name: the library's
 * symbolizer (the decoder's names and lines) where the decoder's flow has
 * no instruction at the address (the faulting one never retired) and for
 * file:line; elfutils libdwfl for the unwind and relocations.
 */
#ifndef QPT_CLI_CRASH_SYMS_H
#define QPT_CLI_CRASH_SYMS_H

#include <stdbool.h>
#include <stdint.h>

struct qpt_record;
struct crash_syms;

/* Recorded paths are read inside @sysroot as the decoder reads them
 * (qpt_sysroot_open; NULL: as recorded; borrowed);
 * names demangled when @demangle (qpt_demangle, as the decoder's).
 * Returns NULL on allocation failure (then there are no lookups). */
struct crash_syms *crash_syms_new(const char *sysroot, bool demangle);
/* An MMAP/MMAP2 record of the file: the executable mappings of @pid go
 * in (files that cannot be read are left out). */
void crash_syms_add(struct crash_syms *s, const struct qpt_record *rec,
		    int32_t pid);
/* The symbol of @ip and *@off, or NULL.  Valid until crash_syms_free. */
const char *crash_syms_name(struct crash_syms *s, uint64_t ip, uint64_t *off);
/* The symbol of any kind (a data object too: libdwfl's) at @addr of a
 * file the process maps, and *@off, or NULL. */
const char *crash_syms_object(struct crash_syms *s, uint64_t addr,
			      uint64_t *off);
/* The source file and *@line of @ip, or NULL. */
const char *crash_syms_line(struct crash_syms *s, uint64_t ip,
			    unsigned *line);
/* The symbol a dynamic relocation binds to the pointer at @addr (a GOT
 * slot), or NULL. */
const char *crash_syms_reloc(struct crash_syms *s, uint64_t addr);
/* The libdwfl session, its modules reported (NULL without one): for the
 * unwind of the stack copy. */
struct Dwfl;
struct Dwfl *crash_syms_dwfl(struct crash_syms *s);
void crash_syms_free(struct crash_syms *s);

#endif
