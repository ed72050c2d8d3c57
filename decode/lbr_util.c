// SPDX-License-Identifier: MIT
/* Shared by the LBR parts: growing arrays, thread ids to positions. */
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "decode/lbr_priv.h"

int qd_grow(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp, *n;
	size_t nc = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (nc > SIZE_MAX / size)
		return -ENOMEM;
	n = realloc(*p, nc * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = nc;
	return 0;
}

static size_t slot_of(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static int grow(struct qd_tidmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	int32_t *keys = calloc(cap, sizeof(*keys));
	size_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		size_t k;

		if (!m->vals[i])
			continue;
		for (k = slot_of(m->keys[i], cap); vals[k]; k = (k + 1) & (cap - 1))
			;
		keys[k] = m->keys[i];
		vals[k] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int qd_tidmap_put(struct qd_tidmap *m, int32_t tid, size_t pos)
{
	size_t k;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	for (k = slot_of(tid, m->cap); m->vals[k]; k = (k + 1) & (m->cap - 1))
		if (m->keys[k] == tid)
			break;
	if (!m->vals[k])
		m->n++;
	m->keys[k] = tid;
	m->vals[k] = pos + 1;
	return 0;
}

bool qd_tidmap_get(const struct qd_tidmap *m, int32_t tid, size_t *pos)
{
	size_t k;

	if (!m->cap)
		return false;
	for (k = slot_of(tid, m->cap); m->vals[k]; k = (k + 1) & (m->cap - 1))
		if (m->keys[k] == tid) {
			*pos = m->vals[k] - 1;
			return true;
		}
	return false;
}

void qd_tidmap_free(struct qd_tidmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

long qd_tid_slot(struct qd_tidmap *m, void *pp, size_t *n, size_t *cap,
		 size_t size, int32_t tid, bool *made)
{
	size_t idx;

	*made = false;
	if (qd_tidmap_get(m, tid, &idx))
		return (long)idx;
	if (qd_grow(pp, cap, *n + 1, size) || qd_tidmap_put(m, tid, *n))
		return -ENOMEM;
	memset((uint8_t *)*(void **)pp + *n * size, 0, size);
	*made = true;
	return (long)(*n)++;
}
