// SPDX-License-Identifier: MIT
/*
 * qpt decode --coverage: the basic blocks of the run in drcov's format
 * (DynamoRIO's drcov log, version 2, as Lighthouse and bncov load it),
 * or its edges with their counts as text or JSON Lines.
 *
 * drcov: a header of text lines, "DRCOV VERSION: 2", "DRCOV FLAVOR:",
 * the module table ("Module Table: version 2, count N", its "Columns:"
 * line, one "id, base, end, entry, path" line a module), "BB Table: N
 * bbs", then N binary entries of 8 bytes, little-endian: the block's
 * offset from its module's base (32 bits), its size in bytes (16) and
 * its module's id (16).  A module is an image at a base (where its file
 * offset 0 is mapped); blocks of no image, or more than 4 GiB past their
 * image's base, cannot be told and are left out (a warning counts them);
 * a block longer than 65535 bytes is told in pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/decode_cov.h"

struct module {
	const char *path;
	uint64_t base, end;
};

static int mod_cmp(const void *pa, const void *pb)
{
	const struct module *a = pa, *b = pb;
	int c;

	if (a->base != b->base)
		return a->base < b->base ? -1 : 1;
	c = strcmp(a->path, b->path);
	return c;
}

/* The modules of @b's @n blocks, sorted by base, each once. */
static struct module *modules(const struct qpt_cov_block *b, size_t n,
			      size_t *nr)
{
	struct module *m = malloc((n ? n : 1) * sizeof(*m));
	size_t i, k = 0;

	if (!m)
		return NULL;
	for (i = 0; i < n; i++)
		if (b[i].image)
			m[k++] = (struct module){b[i].image, b[i].image_base,
						 b[i].image_end};
	qsort(m, k, sizeof(*m), mod_cmp);
	*nr = 0;
	for (i = 0; i < k; i++) {
		if (*nr && !mod_cmp(&m[*nr - 1], &m[i])) {
			if (m[i].end > m[*nr - 1].end)
				m[*nr - 1].end = m[i].end;
			continue;
		}
		m[(*nr)++] = m[i];
	}
	return m;
}

static size_t mod_id(const struct module *m, size_t n,
		     const struct qpt_cov_block *b)
{
	struct module key = {b->image, b->image_base, 0};
	const struct module *f = bsearch(&key, m, n, sizeof(*m), mod_cmp);

	return (size_t)(f - m);
}

/* The entries of block @b: 0 when it cannot be told. */
static uint64_t pieces(const struct qpt_cov_block *b, size_t id)
{
	if (!b->image || b->ip < b->image_base || id > UINT16_MAX ||
	    b->ip - b->image_base + b->size > UINT32_MAX || !b->size)
		return 0;
	return (b->size + UINT16_MAX - 1) / UINT16_MAX;
}

static void put_entry(struct out *w, uint32_t off, uint16_t size, uint16_t id)
{
	uint8_t e[8] = {
	    (uint8_t)off,	  (uint8_t)(off >> 8), (uint8_t)(off >> 16),
	    (uint8_t)(off >> 24), (uint8_t)size,       (uint8_t)(size >> 8),
	    (uint8_t)id,	  (uint8_t)(id >> 8),
	};

	out_raw(w, (const char *)e, sizeof(e));
}

static void drcov_modules(struct out *w, const struct module *m, size_t n)
{
	size_t i;

	out_lit(w, "DRCOV VERSION: 2\nDRCOV FLAVOR: qpt\n");
	out_lit(w, "Module Table: version 2, count ");
	out_dec(w, n);
	out_lit(w, "\nColumns: id, base, end, entry, path\n");
	for (i = 0; i < n; i++) {
		out_dec_pad(w, i, 2, ' ');
		out_lit(w, ", 0x");
		out_hex(w, m[i].base);
		out_lit(w, ", 0x");
		out_hex(w, m[i].end);
		out_lit(w, ", 0x0000000000000000, ");
		out_esc(w, m[i].path, strlen(m[i].path));
		out_char(w, '\n');
	}
}

/* The drcov log of @dec's blocks; *@left the blocks left out. */
static int drcov(struct qpt_decoder *dec, struct out *w, uint64_t *left)
{
	const struct qpt_cov_block *b;
	size_t n = qpt_decoder_coverage_blocks(dec, &b), nm = 0, i;
	struct module *m = modules(b, n, &nm);
	uint64_t total = 0, k;

	if (!m)
		return -ENOMEM;
	*left = 0;
	for (i = 0; i < n; i++) {
		k = pieces(&b[i], b[i].image ? mod_id(m, nm, &b[i]) : 0);
		total += k;
		*left += !k;
	}
	drcov_modules(w, m, nm);
	out_lit(w, "BB Table: ");
	out_dec(w, total);
	out_lit(w, " bbs\n");
	for (i = 0; i < n; i++) {
		size_t id = b[i].image ? mod_id(m, nm, &b[i]) : 0;
		uint64_t off = b[i].ip - b[i].image_base, size = b[i].size;

		if (!pieces(&b[i], id))
			continue;
		for (; size > UINT16_MAX; size -= UINT16_MAX, off += UINT16_MAX)
			put_entry(w, (uint32_t)off, UINT16_MAX, (uint16_t)id);
		put_entry(w, (uint32_t)off, (uint16_t)size, (uint16_t)id);
	}
	free(m);
	return 0;
}

static void edges(struct qpt_decoder *dec, struct out *w)
{
	const struct qpt_cov_edge *e;
	size_t n = qpt_decoder_coverage_edges(dec, &e), i;

	for (i = 0; i < n; i++) {
		if (w->json) {
			out_begin(w);
			out_kv_hex(w, "from", e[i].from);
			out_kv_hex(w, "to", e[i].to);
			out_kv_u64(w, "count", e[i].count);
			out_end(w);
			continue;
		}
		out_lit(w, "0x");
		out_hex(w, e[i].from);
		out_lit(w, " 0x");
		out_hex(w, e[i].to);
		out_char(w, ' ');
		out_dec(w, e[i].count);
		out_char(w, '\n');
	}
}

int cov_print(struct qpt_decoder *dec, enum cov_form form, const char *path,
	      struct out *std)
{
	struct out file, *w = std;
	char *buf = NULL;
	uint64_t left = 0;
	int fd = -1, err = 0;

	if (path) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		buf = malloc(1 << 16);
		if (fd < 0 || !buf) {
			cli_error(path, "%s",
				  strerror(fd < 0 ? errno : ENOMEM));
			free(buf);
			if (fd >= 0)
				close(fd);
			return QPT_EXIT_ERROR;
		}
		out_init(&file, fd, std->json, buf, 1 << 16);
		w = &file;
	}
	if (form == COV_DRCOV)
		err = drcov(dec, w, &left);
	else
		edges(dec, w);
	if (!path && !err && out_flush(w))
		return cli_write_error(w->err);
	if (path) {
		out_flush(w);
		if (!err && (w->err || close(fd)))
			err = w->err ? w->err : -errno;
		else
			close(fd);
		free(buf);
		fd = -1;
	}
	if (err) {
		cli_error(path ? path : NULL, "%s",
			  err == -ENOMEM ? "out of memory" : strerror(-err));
		return QPT_EXIT_ERROR;
	}
	if (left)
		cli_warn(
		    "%" PRIu64 " basic block%s of no image, or more than "
		    "4 GiB past its image's base, left out of the drcov log",
		    left, left == 1 ? "" : "s");
	return QPT_EXIT_OK;
}
