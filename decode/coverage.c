// SPDX-License-Identifier: MIT
/*
 * Coverage (QPT_WANT_COVERAGE): the basic blocks a run executed and the
 * edges it took, each with its count, in tables the flow adds to (a
 * block at its end, an edge when its successor is known).  An entry is
 * made once, where its index stays (the flow's path cache keeps the
 * indices); a block's image and where it is loaded are looked up then.
 * The lists the public calls give are sorted and merged: a block of the
 * same image at the same address in two processes is one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decoder.h"

struct qd_cov {
	struct qpt_cov_block *blk; /* by index */
	const void **blk_space;	   /* each block's address space */
	size_t nr_blk, cap_blk;
	uint32_t *blk_tab; /* open addressing: index + 1, 0 empty */
	size_t blk_slots;
	struct qpt_cov_edge *edge;
	size_t nr_edge, cap_edge;
	uint32_t *edge_tab;
	size_t edge_slots;
	struct qpt_cov_block *flat_blk; /* the public lists */
	struct qpt_cov_edge *flat_edge;
	int err;
};

struct qd_cov *qd_cov_new(void)
{
	return calloc(1, sizeof(struct qd_cov));
}

void qd_cov_reset(struct qd_cov *c)
{
	free(c->blk);
	free(c->blk_space);
	free(c->blk_tab);
	free(c->edge);
	free(c->edge_tab);
	free(c->flat_blk);
	free(c->flat_edge);
	memset(c, 0, sizeof(*c));
}

void qd_cov_free(struct qd_cov *c)
{
	if (!c)
		return;
	qd_cov_reset(c);
	free(c);
}

int qd_cov_err(const struct qd_cov *c)
{
	return c->err;
}

static size_t hash3(uint64_t a, uint64_t b, uint64_t c, size_t slots)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull);

	h = (h ^ c) * 0xff51afd7ed558ccdull;
	return (size_t)(h >> 29) & (slots - 1);
}

static uint32_t *tab_grow(uint32_t *tab, size_t *slots, size_t n)
{
	size_t ns = *slots ? *slots * 2 : 1024;

	if (n * 2 < *slots)
		return tab;
	free(tab);
	*slots = ns;
	return calloc(ns, sizeof(*tab)); /* refilled by the caller */
}

static size_t blk_slot(const struct qd_cov *c, const void *sp, uint64_t ip,
		       uint32_t size)
{
	size_t i = hash3(ip, (uint64_t)(uintptr_t)sp, size, c->blk_slots);

	for (;; i = (i + 1) & (c->blk_slots - 1)) {
		uint32_t k = c->blk_tab[i];

		if (!k ||
		    (c->blk[k - 1].ip == ip && c->blk[k - 1].size == size &&
		     c->blk_space[k - 1] == sp))
			return i;
	}
}

static size_t edge_slot(const struct qd_cov *c, uint64_t from, uint64_t to)
{
	size_t i = hash3(from, to, 0, c->edge_slots);

	for (;; i = (i + 1) & (c->edge_slots - 1)) {
		uint32_t k = c->edge_tab[i];

		if (!k ||
		    (c->edge[k - 1].from == from && c->edge[k - 1].to == to))
			return i;
	}
}

/* Room for one more block (the table rehashed when it grows). */
static int blk_room(struct qd_cov *c)
{
	size_t i, slots = c->blk_slots;

	if (c->nr_blk == c->cap_blk) {
		size_t nc = c->cap_blk ? 2 * c->cap_blk : 1024;
		struct qpt_cov_block *b = realloc(c->blk, nc * sizeof(*b));
		const void **s;

		if (!b)
			return -ENOMEM;
		c->blk = b;
		s = realloc(c->blk_space, nc * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->blk_space = s;
		c->cap_blk = nc;
	}
	if (c->nr_blk * 2 < slots)
		return 0;
	c->blk_tab = tab_grow(c->blk_tab, &c->blk_slots, c->nr_blk);
	if (!c->blk_tab)
		return -ENOMEM;
	for (i = 0; i < c->nr_blk; i++)
		c->blk_tab[blk_slot(c, c->blk_space[i], c->blk[i].ip,
				    c->blk[i].size)] = (uint32_t)i + 1;
	return 0;
}

static int edge_room(struct qd_cov *c)
{
	size_t i;

	if (c->nr_edge == c->cap_edge) {
		size_t nc = c->cap_edge ? 2 * c->cap_edge : 1024;
		struct qpt_cov_edge *e = realloc(c->edge, nc * sizeof(*e));

		if (!e)
			return -ENOMEM;
		c->edge = e;
		c->cap_edge = nc;
	}
	if (c->nr_edge * 2 < c->edge_slots)
		return 0;
	c->edge_tab = tab_grow(c->edge_tab, &c->edge_slots, c->nr_edge);
	if (!c->edge_tab)
		return -ENOMEM;
	for (i = 0; i < c->nr_edge; i++)
		c->edge_tab[edge_slot(c, c->edge[i].from, c->edge[i].to)] =
		    (uint32_t)i + 1;
	return 0;
}

uint32_t qd_cov_block(struct qd_cov *c, struct qd_space *sp, uint64_t ip,
		      uint32_t size)
{
	const struct qd_map *m;
	struct qpt_cov_block *b;
	size_t i;

	if (c->blk_slots) {
		i = blk_slot(c, sp, ip, size);
		if (c->blk_tab[i])
			return c->blk_tab[i] - 1;
	}
	if (c->nr_blk >= QD_COV_MAX || blk_room(c)) {
		c->err = -ENOMEM;
		return QD_COV_NONE;
	}
	i = blk_slot(c, sp, ip, size);
	b = &c->blk[c->nr_blk];
	memset(b, 0, sizeof(*b));
	b->ip = ip;
	b->size = size;
	m = sp ? qd_space_find(sp, ip) : NULL;
	if (m) {
		b->image = m->file->path;
		b->image_base = m->start - m->pgoff;
		b->image_end = m->end;
	}
	c->blk_space[c->nr_blk] = sp;
	c->blk_tab[i] = (uint32_t)++c->nr_blk;
	return (uint32_t)(c->nr_blk - 1);
}

uint32_t qd_cov_edge(struct qd_cov *c, uint64_t from, uint64_t to)
{
	size_t i;

	if (c->edge_slots) {
		i = edge_slot(c, from, to);
		if (c->edge_tab[i])
			return c->edge_tab[i] - 1;
	}
	if (c->nr_edge >= QD_COV_MAX || edge_room(c)) {
		c->err = -ENOMEM;
		return QD_COV_NONE;
	}
	i = edge_slot(c, from, to);
	c->edge[c->nr_edge] = (struct qpt_cov_edge){from, to, 0};
	c->edge_tab[i] = (uint32_t)++c->nr_edge;
	return (uint32_t)(c->nr_edge - 1);
}

void qd_cov_count_block(struct qd_cov *c, uint32_t i, uint64_t n)
{
	if (i != QD_COV_NONE)
		c->blk[i].count += n;
}

void qd_cov_count_edge(struct qd_cov *c, uint32_t i, uint64_t n)
{
	if (i != QD_COV_NONE)
		c->edge[i].count += n;
}

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int blk_cmp(const void *pa, const void *pb)
{
	const struct qpt_cov_block *a = pa, *b = pb;
	int c;

	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	c = str_cmp(a->image, b->image);
	if (c)
		return c;
	return a->image_base < b->image_base   ? -1
	       : a->image_base > b->image_base ? 1
					       : 0;
}

static int edge_cmp(const void *pa, const void *pb)
{
	const struct qpt_cov_edge *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

size_t qpt_decoder_coverage_blocks(const struct qpt_decoder *dec,
				   const struct qpt_cov_block **list)
{
	struct qd_cov *c = dec ? dec->cov : NULL;
	size_t i, n = 0;

	*list = NULL;
	if (!c || !c->nr_blk)
		return 0;
	free(c->flat_blk);
	c->flat_blk = malloc(c->nr_blk * sizeof(*c->flat_blk));
	if (!c->flat_blk)
		return 0;
	memcpy(c->flat_blk, c->blk, c->nr_blk * sizeof(*c->flat_blk));
	qsort(c->flat_blk, c->nr_blk, sizeof(*c->flat_blk), blk_cmp);
	for (i = 0; i < c->nr_blk; i++) {
		struct qpt_cov_block *b = &c->flat_blk[i];

		if (!b->count)
			continue; /* made by a path, never counted */
		if (n && !blk_cmp(&c->flat_blk[n - 1], b)) {
			c->flat_blk[n - 1].count += b->count;
			if (b->image_end > c->flat_blk[n - 1].image_end)
				c->flat_blk[n - 1].image_end = b->image_end;
			continue;
		}
		c->flat_blk[n++] = *b;
	}
	*list = c->flat_blk;
	return n;
}

size_t qpt_decoder_coverage_edges(const struct qpt_decoder *dec,
				  const struct qpt_cov_edge **list)
{
	struct qd_cov *c = dec ? dec->cov : NULL;
	size_t i, n = 0;

	*list = NULL;
	if (!c || !c->nr_edge)
		return 0;
	free(c->flat_edge);
	c->flat_edge = malloc(c->nr_edge * sizeof(*c->flat_edge));
	if (!c->flat_edge)
		return 0;
	memcpy(c->flat_edge, c->edge, c->nr_edge * sizeof(*c->flat_edge));
	qsort(c->flat_edge, c->nr_edge, sizeof(*c->flat_edge), edge_cmp);
	for (i = 0; i < c->nr_edge; i++)
		if (c->flat_edge[i].count)
			c->flat_edge[n++] = c->flat_edge[i];
	*list = c->flat_edge;
	return n;
}
