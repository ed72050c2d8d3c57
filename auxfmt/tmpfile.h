/* SPDX-License-Identifier: MIT */
/*
 * Unlinked temporary files for bytes that a pass cannot keep where it
 * found them (a pipe's), in $TMPDIR or /tmp: the page cache holds them,
 * not the process.  Shared by the reader (a file-mode perf.data on a
 * pipe) and the decode (AUX bytes of a pipe-mode stream).
 */
#ifndef QPT_AUXFMT_TMPFILE_H
#define QPT_AUXFMT_TMPFILE_H

#include <stdint.h>

/* Where they are made: $TMPDIR, or /tmp. */
const char *qpt_tmpdir(void);
/* A new unlinked file there, open for reading and writing (close-on-exec):
 * its descriptor, or -errno. */
int qpt_tmpfile(void);
/* @n bytes of @buf to @fd at @off, whole: 0 or -errno. */
int qpt_tmpfile_put(int fd, const void *buf, uint64_t n, uint64_t off);

#endif
