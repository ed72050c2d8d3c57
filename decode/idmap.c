// SPDX-License-Identifier: MIT
/*
 * Lookups in the decoder's tables: a map from 32-bit identifiers (pid,
 * tid, AUXTRACE queue index) to array positions (open addressing with
 * linear probing, doubled at half load, so that files with many processes
 * or queues are read in linear time), and bisection of sorted arrays.
 */
#include <errno.h>
#include <stdlib.h>

#include "decode/internal.h"

static size_t slot(uint32_t key, size_t cap)
{
	/* Fibonacci hashing spreads sequential ids over the table */
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32) &
	       (cap - 1);
}

static void put(struct qd_idmap *m, uint32_t key, uint32_t val)
{
	size_t i = slot(key, m->cap);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
}

static int grow(struct qd_idmap *m)
{
	struct qd_idmap n = {0};
	size_t i;

	n.cap = m->cap ? 2 * m->cap : 64;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++)
		if (m->vals[i])
			put(&n, m->keys[i], m->vals[i] - 1);
	qd_idmap_free(m);
	*m = n;
	return 0;
}

int qd_idmap_put(struct qd_idmap *m, uint32_t key, uint32_t val)
{
	if (val == UINT32_MAX)
		return -ENOMEM; /* more entries than positions */
	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	put(m, key, val);
	return 0;
}

bool qd_idmap_get(const struct qd_idmap *m, uint32_t key, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	for (i = slot(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			*val = m->vals[i] - 1;
			return true;
		}
	return false;
}

size_t qd_partition(const void *base, size_t n, size_t size,
		    bool (*before)(const void *elem, const void *key),
		    const void *key)
{
	const uint8_t *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(b + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void qd_idmap_free(struct qd_idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
