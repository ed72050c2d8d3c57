/* SPDX-License-Identifier: MIT */
/*
 * Output kept in memory in a list of chunks (chunks.c): what a -j
 * worker's printer writes for a part until the main thread writes it out
 * (decode_jobs.c).  A list's first chunk is small (CHUNKS_FIRST bytes,
 * malloc's: a part of a few lines takes little memory while it waits);
 * the next ones are CHUNKS_BIG bytes, on huge pages where they can be
 * (bigmem.h), and go back to the list's pool once written, for any list
 * of the pool to take again: the lines are never copied to grow or to be
 * dropped, and a run does not fault fresh zeroed pages in for each part.
 * A pool is shared between threads; a list is one thread's at a time.
 */
#ifndef QPT_CLI_CHUNKS_H
#define QPT_CLI_CHUNKS_H

#include <pthread.h>
#include <stdint.h>

#include "cli/out.h"

#define CHUNKS_FIRST (64u << 10)
#define CHUNKS_BIG (2u << 20)
/* The least room a window has (a printer's buffer: out.h). */
#define CHUNKS_WINDOW_MIN (2 * OUT_RESERVE_MAX)

struct chunk;

struct chunk_pool {
	pthread_mutex_t mu;
	struct chunk *free; /* CHUNKS_BIG ones, written */
	size_t nr_big;	    /* CHUNKS_BIG ones made (atomic adds), for tests */
};

struct chunk_list {
	struct chunk_pool *pool;
	struct chunk *head, *tail; /* the bytes kept; the last chunk */
};

void chunk_pool_init(struct chunk_pool *pool);
/* Unmap the pool's chunks (every list of it freed first). */
void chunk_pool_fini(struct chunk_pool *pool);

/* An empty list of @pool (no chunk yet). */
void chunks_init(struct chunk_list *l, struct chunk_pool *pool);
/* The list's chunks back to the pool (or freed). */
void chunks_free(struct chunk_list *l);

/* Point @w's buffer at the room after the bytes of @l (at least
 * CHUNKS_WINDOW_MIN: a new chunk where the last has less): @w writes
 * there, and its spill calls chunks_spill.  0 or -ENOMEM. */
int chunks_window(struct chunk_list *l, struct out *w);
/* @n bytes at @p are the list's next: written in place through the
 * window (then only counted) or copied.  0 or -ENOMEM. */
int chunks_spill(struct chunk_list *l, const char *p, size_t n);
/* The bytes the list holds and has held (a window's not yet spilled
 * are not counted). */
uint64_t chunks_end(const struct chunk_list *l);
/* Bytes [@from, @to) of the list (@from at or past those released, @to
 * at most chunks_end) to @dst: 0, -EINVAL (a range not held) or @dst's
 * error. */
int chunks_write(const struct chunk_list *l, uint64_t from, uint64_t to,
		 struct out *dst);
/* The chunks whose bytes are all before @upto back to the pool (not the
 * last: a window may be in it). */
void chunks_release(struct chunk_list *l, uint64_t upto);

#endif
