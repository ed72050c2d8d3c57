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
	struct qpt_profile_func pub;
};

struct qd_prof {
	struct qd_prof_fn *fn; /* open addressing, cap_fn a power of 2 */
	size_t nr_fn, cap_fn;
	struct qpt_profile_thread *th;
	size_t nr_th, cap_th;
	struct qpt_profile_func *flat;	/* for qpt_decoder_profile_funcs */
	struct qpt_profile_thread *cur; /* the thread counted last */
	int err;
};

struct qd_prof *qd_prof_new(void)
{
	return calloc(1, sizeof(struct qd_prof));
}

void qd_prof_free(struct qd_prof *p)
{
	if (!p)
		return;
	free(p->fn);
	free(p->th);
	free(p->flat);
	free(p);
}

void qd_prof_reset(struct qd_prof *p)
{
	free(p->fn);
	free(p->th);
	free(p->flat);
	memset(p, 0, sizeof(*p));
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
	size_t i;

	if (p->nr_fn * 2 >= p->cap_fn && grow(p)) {
		p->err = -ENOMEM;
		return NULL;
	}
	for (i = slot(key, p->cap_fn); p->fn[i].key;
	     i = (i + 1) & (p->cap_fn - 1))
		if (p->fn[i].key == key)
			return &p->fn[i].pub;
	p->fn[i].key = key;
	p->fn[i].pub.name = name;
	p->fn[i].pub.image = map ? map->file->path : NULL;
	p->nr_fn++;
	return &p->fn[i].pub;
}

struct qpt_profile_thread *qd_prof_thread(struct qd_prof *p, int32_t pid,
					  int32_t tid)
{
	size_t i;

	if (p->cur && p->cur->tid == tid && p->cur->pid == pid)
		return p->cur;
	for (i = 0; i < p->nr_th; i++)
		if (p->th[i].tid == tid && p->th[i].pid == pid)
			return p->cur = &p->th[i];
	if (p->nr_th == p->cap_th) {
		size_t cap = p->cap_th ? p->cap_th * 2 : 8;
		struct qpt_profile_thread *th;

		th = realloc(p->th, cap * sizeof(*th));
		if (!th) {
			p->err = -ENOMEM;
			return NULL;
		}
		p->th = th;
		p->cap_th = cap;
	}
	p->cur = &p->th[p->nr_th++];
	memset(p->cur, 0, sizeof(*p->cur));
	p->cur->pid = pid;
	p->cur->tid = tid;
	return p->cur;
}

int qd_prof_err(const struct qd_prof *p)
{
	return p->err;
}

size_t qpt_decoder_profile_threads(const struct qpt_decoder *dec,
				   const struct qpt_profile_thread **list)
{
	*list = NULL;
	if (!dec || !dec->prof || !dec->prof->nr_th)
		return 0;
	*list = dec->prof->th;
	return dec->prof->nr_th;
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
			p->flat[n++] = p->fn[i].pub;
	*list = p->flat;
	return n;
}
