// SPDX-License-Identifier: MIT
/*
 * Source lines of a file's code (elfutils libdw over the DWARF line
 * tables): every row of every compile unit in one table sorted by
 * address, made at the first lookup in the file, so that a lookup is a
 * binary search however many instructions ask.  The DWARF is the file's
 * own, else its separate debug file found by build-id as gdb and perf
 * find it (SYSROOT/usr/lib/debug/.build-id/xx/yyyy.debug, then the
 * build-id cache's .build-id/xx/yyyy/debug, then
 * SYSROOT/usr/lib/debug/PATH.debug).  A row's file name is libdw's (the
 * compile directory joined with the file table's name, as addr2line
 * prints it), kept while the file's Dwarf handle is open.
 */
#include <elfutils/libdw.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/internal.h"

struct qd_line {
	uint64_t addr;
	const char *file; /* NULL: the end of a sequence (no line here) */
	uint32_t line;
	uint32_t seq; /* the row's place in the line tables: ties */
};

struct qd_lines {
	Dwarf *dw;
	int fd;
	struct qd_line *rows; /* sorted by addr, then seq */
	size_t nr, cap;
	size_t last; /* the row of the last lookup: the next is often it
		      * or the one after it */
};

/* By address; at one address an end of sequence first (the next
 * sequence starts there), then the rows in line-table order: a lookup
 * takes the last (as addr2line does). */
static int line_cmp(const void *a, const void *b)
{
	const struct qd_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->file != !y->file)
		return x->file ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int push(struct qd_lines *t, uint64_t addr, const char *file,
		uint32_t line)
{
	if (t->nr == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct qd_line *nr = realloc(t->rows, nc * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->rows = nr;
		t->cap = nc;
	}
	t->rows[t->nr].addr = addr;
	t->rows[t->nr].file = file;
	t->rows[t->nr].line = line;
	t->rows[t->nr].seq = (uint32_t)t->nr;
	t->nr++;
	return 0;
}

/* The rows of one compile unit's line table.  Sequences that start at
 * address 0 are code the linker dropped (their functions' sections were
 * discarded): left out. */
static int add_unit(struct qd_lines *t, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n, i;
	bool skip = false, start = true;

	if (dwarf_getsrclines(cu, &lines, &n))
		return 0;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end = false;
		int line = 0;
		const char *f;
		int err;

		if (!l || dwarf_lineaddr(l, &a) ||
		    dwarf_lineendsequence(l, &end))
			continue;
		if (start)
			skip = a == 0;
		start = end;
		if (skip)
			continue;
		f = end ? NULL : dwarf_linesrc(l, NULL, NULL);
		if (!end && (!f || dwarf_lineno(l, &line) || line < 0))
			continue;
		err = push(t, a, f, (uint32_t)line);
		if (err)
			return err;
	}
	return 0;
}

static int build(struct qd_lines *t)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	int err;

	while (!dwarf_nextcu(t->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(t->dw, off + hsize, &cu)) {
			err = add_unit(t, &cu);
			if (err)
				return err;
		}
		off = next;
	}
	if (t->nr)
		qsort(t->rows, t->nr, sizeof(*t->rows), line_cmp);
	return 0;
}

/* The Dwarf of @path (opened inside @root: qpt_sysroot_open) when it has
 * line tables; NULL otherwise. */
static Dwarf *open_dwarf(const char *root, const char *path, int *fd)
{
	Dwarf *dw;

	*fd = qpt_sysroot_open(root, path, NULL);
	if (*fd < 0)
		return NULL;
	dw = dwarf_begin(*fd, DWARF_C_READ);
	if (dw) {
		Dwarf_Off next;
		size_t hsize;

		if (!dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL))
			return dw;
		dwarf_end(dw);
	}
	close(*fd);
	*fd = -1;
	return NULL;
}

/* Try the debug file named by @fmt, inside @root (NULL: the host's
 * root): 1 when it has line tables, 0 when not, -ENOMEM. */
__attribute__((format(printf, 3, 4))) static int
try_debug(struct qd_lines *t, const char *root, const char *fmt, ...)
{
	va_list ap;
	char *path;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&path, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	t->dw = open_dwarf(root, path, &t->fd);
	free(path);
	return t->dw != NULL;
}

/* The DWARF of @file: its own, else a separate debug file.  0 (t->dw
 * NULL: none) or -ENOMEM. */
static int find_dwarf(struct qd_lines *t, const struct qd_file *file)
{
	char hex[2 * sizeof(file->build_id) + 1];
	const char *root = file->sysroot, *home = getenv("HOME");
	size_t i;
	int ok = 0;

	t->dw = open_dwarf(NULL, file->found, &t->fd); /* a host path */
	if (t->dw)
		return 0;
	qd_bid_hex(file->build_id, file->build_id_size, hex);
	i = file->build_id_size;
	if (i)
		ok = try_debug(t, root, "/usr/lib/debug/.build-id/%.2s/%s.debug",
			       hex, hex + 2);
	if (!ok && i && file->buildid_dir)
		ok = try_debug(t, NULL, "%s/.build-id/%.2s/%s/debug",
			       file->buildid_dir, hex, hex + 2);
	else if (!ok && i && home)
		ok = try_debug(t, NULL, "%s/.debug/.build-id/%.2s/%s/debug",
			       home, hex, hex + 2);
	/* the recorded path, inside the sysroot as the file itself */
	if (!ok && file->path[0] == '/')
		ok = try_debug(t, root, "/usr/lib/debug%s.debug", file->path);
	return ok < 0 ? ok : 0;
}

/* The workers of a parallel run share the files: one loads a file's
 * tables while the others wait for them. */
static pthread_mutex_t lines_mu = PTHREAD_MUTEX_INITIALIZER;

static struct qd_lines *load_lines(struct qd_file *file, int *err)
{
	struct qd_lines *t;

	if (file->lines || file->lines_err) /* loaded while this one waited */
		return file->lines;
	if (!file->found || !file->is_elf)
		goto none;
	t = calloc(1, sizeof(*t));
	if (!t) {
		*err = -ENOMEM;
		goto none;
	}
	t->fd = -1;
	*err = find_dwarf(t, file);
	if (!*err && t->dw)
		*err = build(t);
	if (*err || !t->nr) {
		qd_lines_free(t);
		goto none;
	}
	__atomic_store_n(&file->lines, t, __ATOMIC_RELEASE);
	return t;
none:
	__atomic_store_n(&file->lines_err, true, __ATOMIC_RELEASE); /* tried */
	return NULL;
}

/* The rows of @file's line tables, made at the first call; NULL when it
 * has none (or on -ENOMEM: then *@err). */
static struct qd_lines *lines_of(struct qd_file *file, int *err)
{
	struct qd_lines *t = __atomic_load_n(&file->lines, __ATOMIC_ACQUIRE);

	*err = 0;
	if (t || __atomic_load_n(&file->lines_err, __ATOMIC_ACQUIRE))
		return t;
	pthread_mutex_lock(&lines_mu);
	t = load_lines(file, err);
	pthread_mutex_unlock(&lines_mu);
	return t;
}

int qd_file_srcline(struct qd_file *file, uint64_t addr, const char **src,
		    unsigned *line, uint64_t *lo, uint64_t *hi)
{
	struct qd_lines *t;
	size_t a = 0, b, last;
	int err;

	*src = NULL;
	*line = 0;
	t = lines_of(file, &err);
	if (!t)
		return err;
	/* the last row at or before @addr: a is the first after it */
	b = t->nr;
	/* the row found last, a hint the workers share (any value serves) */
	last = __atomic_load_n(&t->last, __ATOMIC_RELAXED);
	if (last + 2 < t->nr && t->rows[last].addr <= addr &&
	    addr < t->rows[last + 2].addr)
		a = b = addr < t->rows[last + 1].addr ? last + 1 : last + 2;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (t->rows[mid].addr <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	if (a)
		__atomic_store_n(&t->last, a - 1, __ATOMIC_RELAXED);
	if (!a || !t->rows[a - 1].file || a == t->nr)
		return 0;
	*src = t->rows[a - 1].file;
	*line = t->rows[a - 1].line;
	*lo = t->rows[a - 1].addr;
	*hi = t->rows[a].addr;
	return 1;
}

void qd_lines_free(struct qd_lines *t)
{
	if (!t)
		return;
	if (t->dw)
		dwarf_end(t->dw);
	if (t->fd >= 0)
		close(t->fd);
	free(t->rows);
	free(t);
}
