// SPDX-License-Identifier: MIT
/*
 * The path cache (as libxdc caches decoded paths for fuzzing): what the
 * flow counted along a path of blocks that only conditional branches
 * (and direct jumps, calls, the returns of those calls and one to the
 * caller) steer, up to an indirect jump or call, by where it starts, the
 * TNT bits that steer it and the return address on top of the stack
 * where it starts.  A path is decoded once (flow_path.c records it as
 * the flow counts it); each time the trace takes it again, its counts
 * are added at once.  Paths live in an arena with a table of their
 * keys; when either is full both start again empty, so memory stays
 * bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "decode/paths.h"

#define SLOTS_ORDER 15
#define SLOTS (1u << SLOTS_ORDER)
#define SLOTS_BYTES (SLOTS * sizeof(uint32_t))
#define MAPPED (8u << 20) /* the slots, then the arena */
#define ARENA (MAPPED - SLOTS_BYTES)

struct qd_paths {
	uint32_t *slot; /* offset in the arena + 1; 0 empty */
	size_t nr;
	uint8_t *arena;
	size_t used;
};

struct qd_paths *qd_paths_new(void)
{
	struct qd_paths *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	/* the slots first, in the arena's first huge page: a table apart
	 * cost a fault for each 4 KiB of it a small trace touched */
	p->slot = bigmem_zalloc(MAPPED);
	if (!p->slot) {
		free(p);
		return NULL;
	}
	p->arena = (uint8_t *)p->slot + SLOTS_BYTES;
	return p;
}

void qd_paths_free(struct qd_paths *p)
{
	if (!p)
		return;
	bigmem_free(p->slot, MAPPED);
	free(p);
}

void qd_paths_reset(struct qd_paths *p)
{
	if (!p || !p->nr)
		return;
	memset(p->slot, 0, SLOTS * sizeof(*p->slot));
	p->nr = 0;
	p->used = 0;
}

static size_t slot_of(const struct qd_path_key *k)
{
	uint64_t h = (k->ip ^ ((uint64_t)(uintptr_t)k->space << 7) ^
		      (k->ret << 17)) *
		     0x9e3779b97f4a7c15ull;

	h ^= (k->bits + k->nbits) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h >> (64 - SLOTS_ORDER));
}

static bool same_key(const struct qd_path_key *a, const struct qd_path_key *b)
{
	return a->ip == b->ip && a->bits == b->bits && a->space == b->space &&
	       a->nbits == b->nbits && a->ret == b->ret && a->nret == b->nret;
}

const struct qd_path *qd_paths_find(const struct qd_paths *p,
				    const struct qd_path_key *k)
{
	size_t i = slot_of(k);

	for (;; i = (i + 1) & (SLOTS - 1)) {
		uint32_t o = p->slot[i];
		const struct qd_path *e;

		if (!o)
			return NULL;
		e = (const struct qd_path *)(p->arena + o - 1);
		if (same_key(&e->key, k))
			return e;
	}
}

/* The bytes of a path with @h's counts of entries. */
static size_t path_size(const struct qd_path *h)
{
	size_t n = sizeof(*h) + h->nr_fn * sizeof(struct qd_path_fn) +
		   h->nr_push * sizeof(uint64_t) +
		   (h->nr_blk + h->nr_edge) * sizeof(uint32_t);

	n = (n + 7) & ~(size_t)7; /* the branches' alignment */
	return n + h->nr_br * sizeof(struct qd_path_br);
}

/* @n bytes of @src at @at (a NULL @src when none); past them. */
static uint8_t *put(uint8_t *at, const void *src, size_t n)
{
	if (n)
		memcpy(at, src, n);
	return at + n;
}

/* The run ids of paths kept, in the process (workers keep paths of their
 * own, and a printer may see several workers' items). */
static uint64_t last_run;

int qd_paths_add(struct qd_paths *p, const struct qd_path *h,
		 const struct qd_path_arrays *a)
{
	static const struct qd_path_arrays none;
	size_t size = path_size(h), i;
	struct qd_path *e;
	uint8_t *at;

	if (size > ARENA / 4)
		return -1;
	if (p->nr >= SLOTS / 2 || p->used + size > ARENA) {
		memset(p->slot, 0, SLOTS * sizeof(*p->slot));
		p->nr = 0;
		p->used = 0;
	}
	for (i = slot_of(&h->key); p->slot[i]; i = (i + 1) & (SLOTS - 1))
		;
	at = p->arena + p->used;
	e = (struct qd_path *)at;
	*e = *h;
	e->run = __atomic_add_fetch(&last_run, 1, __ATOMIC_RELAXED);
	at += sizeof(*e);
	if (!a)
		a = &none;
	at = put(at, a->fn, h->nr_fn * sizeof(*a->fn));
	at = put(at, a->push, h->nr_push * sizeof(*a->push));
	at = put(at, a->blk, h->nr_blk * sizeof(*a->blk));
	put(at, a->edge, h->nr_edge * sizeof(*a->edge));
	put((uint8_t *)qd_path_brs(e), a->br, h->nr_br * sizeof(*a->br));
	p->slot[i] = (uint32_t)p->used + 1;
	p->used += size;
	p->nr++;
	return 0;
}

const struct qd_path_fn *qd_path_fns(const struct qd_path *e)
{
	return (const struct qd_path_fn *)(e + 1);
}

const uint64_t *qd_path_pushes(const struct qd_path *e)
{
	return (const uint64_t *)(qd_path_fns(e) + e->nr_fn);
}

const uint32_t *qd_path_blks(const struct qd_path *e)
{
	return (const uint32_t *)(qd_path_pushes(e) + e->nr_push);
}

const uint32_t *qd_path_edges(const struct qd_path *e)
{
	return qd_path_blks(e) + e->nr_blk;
}

const struct qd_path_br *qd_path_brs(const struct qd_path *e)
{
	uintptr_t end = (uintptr_t)(qd_path_edges(e) + e->nr_edge);

	return (const struct qd_path_br *)((end + 7) & ~(uintptr_t)7);
}
