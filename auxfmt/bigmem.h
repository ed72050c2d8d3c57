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

#include <stddef.h>

/* @size zeroed bytes (malloc's alignment at least), or NULL; free with
 * bigmem_free and the same @size. */
void *bigmem_zalloc(size_t size);
void bigmem_free(void *p, size_t size);

#endif
