// SPDX-License-Identifier: MIT
/*
 * The exact flat profile (QPT_WANT_PROFILE): instructions and taken
 * branches per thread, instructions and calls per function, counted by
 * the flow a block at a time (no item per instruction).  A function is a
 * symbol of an image (its name, which lives as long as the decoder), or
 * "no symbol" per image.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decoder.h"

struct qd_prof_fn {
	const void *key; /* the symbol's name, or the image's file */
	struct qpt_profile_func *pub;
};

/* Entries stay where they are made (the flow keeps pointers to them):
 * in chunks of CHUNK. */
#define CHUNK 256

struct fn_chunk {
	struct fn_chunk *next;
	struct qpt_profile_func e[CHUNK];
};

struct th_chunk {
	struct th_chunk *next;
	struct qpt_profile_thread e[CHUNK];
};

struct qd_prof {
	struct qd_prof_fn *fn; /* open addressing, cap_fn a power of 2 */
	size_t nr_fn, cap_fn;
	struct fn_chunk *fns; /* newest first; nr_fn % CHUNK used in it */
	struct th_chunk *ths;
	size_t nr_th;
	struct qpt_profile_func *flat; /* for qpt_decoder_profile_funcs */
	struct qpt_profile_thread *flat_th;
	struct qpt_profile_thread *cur; /* the thread counted last */
	int err;
};

struct qd_prof *qd_prof_new(void)
{
	return calloc(1, sizeof(struct qd_prof));
}

void qd_prof_reset(struct qd_prof *p)
{
	while (p->fns) {
		struct fn_chunk *c = p->fns;

		p->fns = c->next;
		free(c);
	}
	while (p->ths) {
		struct th_chunk *c = p->ths;

		p->ths = c->next;
		free(c);
	}
	free(p->fn);
	free(p->flat);
	free(p->flat_th);
	memset(p, 0, sizeof(*p));
}

void qd_prof_free(struct qd_prof *p)
{
	if (!p)
		return;
	qd_prof_reset(p);
	free(p);
}

static size_t slot(const void *key, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static int grow(struct qd_prof *p)
{
	size_t cap = p->cap_fn ? p->cap_fn * 2 : 256, i;
	struct qd_prof_fn *fn = calloc(cap, sizeof(*fn));

	if (!fn)
		return -ENOMEM;
	for (i = 0; i < p->cap_fn; i++) {
		size_t j = slot(p->fn[i].key, cap);

		if (!p->fn[i].key)
			continue;
		while (fn[j].key)
			j = (j + 1) & (cap - 1);
		fn[j] = p->fn[i];
	}
	free(p->fn);
	p->fn = fn;
	p->cap_fn = cap;
	return 0;
}

struct qpt_profile_func *qd_prof_func(struct qd_prof *p, const char *name,
				      const struct qd_map *map)
{
	const void *key = name	? (const void *)name
			  : map ? (const void *)map->file
				: (const void *)p;
	struct qpt_profile_func *e;
	size_t i;

	if (p->nr_fn * 2 >= p->cap_fn && grow(p)) {
		p->err = -ENOMEM;
		return NULL;
	}
	for (i = slot(key, p->cap_fn); p->fn[i].key;
	     i = (i + 1) & (p->cap_fn - 1))
		if (p->fn[i].key == key)
			return p->fn[i].pub;
	if (p->nr_fn % CHUNK == 0) {
		struct fn_chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			p->err = -ENOMEM;
			return NULL;
		}
		c->next = p->fns;
		p->fns = c;
	}
	e = &p->fns->e[p->nr_fn % CHUNK];
	e->name = name;
	e->image = map ? map->file->path : NULL;
	p->fn[i].key = key;
	p->fn[i].pub = e;
	p->nr_fn++;
	return e;
}

/* The @i-th entry ever made of @p's threads. */
static struct qpt_profile_thread *th_at(const struct qd_prof *p, size_t i)
{
	const struct th_chunk *c = p->ths;
	size_t k = (p->nr_th - 1) / CHUNK; /* chunks after the first */

	for (; k > i / CHUNK; k--)
		c = c->next;
	return (struct qpt_profile_thread *)&c->e[i % CHUNK];
}

struct qpt_profile_thread *qd_prof_thread(struct qd_prof *p, int32_t pid,
					  int32_t tid)
{
	struct qpt_profile_thread *t;
	size_t i;

	if (p->cur && p->cur->tid == tid && p->cur->pid == pid)
		return p->cur;
	for (i = 0; i < p->nr_th; i++) {
		t = th_at(p, i);
		if (t->tid == tid && t->pid == pid)
			return p->cur = t;
	}
	if (p->nr_th % CHUNK == 0) {
		struct th_chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			p->err = -ENOMEM;
			return NULL;
		}
		c->next = p->ths;
		p->ths = c;
	}
	t = &p->ths->e[p->nr_th++ % CHUNK];
	t->pid = pid;
	t->tid = tid;
	return p->cur = t;
}

int qd_prof_err(const struct qd_prof *p)
{
	return p->err;
}

size_t qpt_decoder_profile_threads(const struct qpt_decoder *dec,
				   const struct qpt_profile_thread **list)
{
	struct qd_prof *p = dec ? dec->prof : NULL;
	size_t i;

	*list = NULL;
	if (!p || !p->nr_th)
		return 0;
	free(p->flat_th);
	p->flat_th = malloc(p->nr_th * sizeof(*p->flat_th));
	if (!p->flat_th)
		return 0;
	for (i = 0; i < p->nr_th; i++)
		p->flat_th[i] = *th_at(p, i);
	*list = p->flat_th;
	return p->nr_th;
}

size_t qpt_decoder_profile_funcs(const struct qpt_decoder *dec,
				 const struct qpt_profile_func **list)
{
	struct qd_prof *p = dec ? dec->prof : NULL;
	size_t i, n = 0;

	*list = NULL;
	if (!p || !p->nr_fn)
		return 0;
	free(p->flat);
	p->flat = malloc(p->nr_fn * sizeof(*p->flat));
	if (!p->flat)
		return 0;
	for (i = 0; i < p->cap_fn; i++)
		if (p->fn[i].key)
			p->flat[n++] = *p->fn[i].pub;
	*list = p->flat;
	return n;
}
