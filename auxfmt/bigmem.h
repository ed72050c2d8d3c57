/* SPDX-License-Identifier: MIT */
/*
 * Zeroed memory for large tables that are touched all over (caches
 * indexed by a hash or by an address's low bits): mapped apart, on 2 MiB
 * huge pages where the kernel gives them (transparent huge pages, asked
 * for with madvise), so that such a table costs a page fault for each
 * 2 MiB instead of for each 4 KiB it touches.  A fault costs ~0.3 us on
 * bare metal and ~10 us in some VMs, where a small trace's decode spent a
 * third of its time in them.  Shared by the library's caches and the
 * command's printers (cli/ compiles this file in too).
 */
#ifndef QPT_AUXFMT_BIGMEM_H
#define QPT_AUXFMT_BIGMEM_H

#include <stdbool.h>
#include <stddef.h>

/* @size zeroed bytes (malloc's alignment at least), or NULL; free with
 * bigmem_free and the same @size. */
void *bigmem_zalloc(size_t size);
void bigmem_free(void *p, size_t size);

/* Whether bigmem_zalloc's tables get huge pages here: the kernel's
 * transparent huge pages are "always" or "madvise" (read once).  A table
 * that grows by doubling to stay small on 4 KiB pages can start at its
 * largest when this is true: the first touch of it costs one fault. */
bool bigmem_huge(void);
/* For tests: bigmem_huge answers @huge from now on, whatever the kernel
 * gives (the tables' small-page ways run on any host). */
void bigmem_set_huge(bool huge);

#endif
