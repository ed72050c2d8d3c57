// SPDX-License-Identifier: MIT
/*
 * Output kept in a list of chunks (chunks.h): a first small one from
 * malloc, then big ones from a pool shared by the lists, taken and given
 * back under its lock (once for each 2 MiB).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "cli/chunks.h"

struct chunk {
	struct chunk *next;
	size_t cap, used;
	uint64_t pos; /* of data[0] in the list's bytes */
	char data[];
};

void chunk_pool_init(struct chunk_pool *pool)
{
	memset(pool, 0, sizeof(*pool));
	pthread_mutex_init(&pool->mu, NULL);
}

void chunk_pool_fini(struct chunk_pool *pool)
{
	struct chunk *c;

	while ((c = pool->free)) {
		pool->free = c->next;
		bigmem_free(c, CHUNKS_BIG);
	}
	pthread_mutex_destroy(&pool->mu);
}

void chunks_init(struct chunk_list *l, struct chunk_pool *pool)
{
	l->pool = pool;
	l->head = l->tail = NULL;
}

static void put(struct chunk_pool *pool, struct chunk *c)
{
	if (c->cap + sizeof(*c) != CHUNKS_BIG) {
		free(c);
		return;
	}
	pthread_mutex_lock(&pool->mu);
	c->next = pool->free;
	pool->free = c;
	pthread_mutex_unlock(&pool->mu);
}

void chunks_free(struct chunk_list *l)
{
	struct chunk *c, *next;

	for (c = l->head; c; c = next) {
		next = c->next;
		put(l->pool, c);
	}
	l->head = l->tail = NULL;
}

/* A chunk after the list's last (its first: CHUNKS_FIRST bytes). */
static int add(struct chunk_list *l)
{
	struct chunk_pool *pool = l->pool;
	size_t size = l->tail ? CHUNKS_BIG : CHUNKS_FIRST;
	struct chunk *c = NULL;

	if (size == CHUNKS_BIG) {
		pthread_mutex_lock(&pool->mu);
		c = pool->free;
		if (c)
			pool->free = c->next;
		pthread_mutex_unlock(&pool->mu);
		/* a new one mapped outside the lock (the other lists go on) */
		if (!c && (c = bigmem_zalloc(CHUNKS_BIG)))
			__atomic_add_fetch(&pool->nr_big, 1, __ATOMIC_RELAXED);
	} else {
		c = malloc(CHUNKS_FIRST);
	}
	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->cap = size - sizeof(*c);
	c->used = 0;
	c->pos = chunks_end(l);
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
	return 0;
}

uint64_t chunks_end(const struct chunk_list *l)
{
	return l->tail ? l->tail->pos + l->tail->used : 0;
}

int chunks_window(struct chunk_list *l, struct out *w)
{
	int err;

	if ((!l->tail || l->tail->cap - l->tail->used < CHUNKS_WINDOW_MIN) &&
	    (err = add(l)))
		return err;
	w->buf = l->tail->data + l->tail->used;
	w->cap = l->tail->cap - l->tail->used;
	return 0;
}

int chunks_spill(struct chunk_list *l, const char *p, size_t n)
{
	struct chunk *c = l->tail;
	int err;

	if (c && p == c->data + c->used) {
		c->used += n;
		return 0;
	}
	while (n) {
		size_t k;

		if (!c || c->used == c->cap) {
			if ((err = add(l)))
				return err;
			c = l->tail;
		}
		k = c->cap - c->used < n ? c->cap - c->used : n;
		memcpy(c->data + c->used, p, k);
		c->used += k;
		p += k;
		n -= k;
	}
	return 0;
}

int chunks_write(const struct chunk_list *l, uint64_t from, uint64_t to,
		 struct out *dst)
{
	const struct chunk *c;

	for (c = l->head; c && from < to; c = c->next) {
		uint64_t end = c->pos + c->used;

		if (from >= end)
			continue;
		if (from < c->pos)
			return -EINVAL;
		end = end < to ? end : to;
		out_raw(dst, c->data + (from - c->pos), (size_t)(end - from));
		from = end;
	}
	return from < to ? -EINVAL : dst->err;
}

void chunks_release(struct chunk_list *l, uint64_t upto)
{
	struct chunk *c;

	while ((c = l->head) != l->tail && c->pos + c->used <= upto) {
		l->head = c->next;
		put(l->pool, c);
	}
}
