// SPDX-License-Identifier: MIT
/*
 * Straight-line runs of instructions by address, for the fast block
 * decoder: from an address up to and including the first branch, decoded
 * once (with the x86 layer) from the bytes libipt's image holds there (a
 * found file's executable segments, or a raw image).  An open-addressing
 * table of runs and an arena of their instruction lengths; when either is
 * full, both start again empty (the memory stays bounded).  A run's
 * slot is anywhere in the table: on huge pages (bigmem.h) the table has
 * its RUNS_CAP slots (2 MiB) from the start, one fault; on 4 KiB pages it
 * starts small and doubles as it fills, since there the whole table
 * cost a small trace a fault for nearly each run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "decode/fast.h"

#define RUNS_ORDER 15
#define RUNS_CAP (1u << RUNS_ORDER)
#define RUNS_ORDER0 10 /* the table's first size */
#define LENS_CAP (1u << 20)

struct qd_runs {
	struct qd_run_ent *ent; /* 1 << order slots; ninsn 0 or another
				 * generation: empty */
	unsigned order;
	uint8_t *lens;
	size_t nr_ent, nr_lens;
	uint32_t gen;
	struct qx86 *x;
};

static size_t ent_bytes(unsigned order)
{
	return ((size_t)1 << order) * sizeof(struct qd_run_ent);
}

struct qd_runs *qd_runs_new(void)
{
	struct qd_runs *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->order = bigmem_huge() ? RUNS_ORDER : RUNS_ORDER0;
	r->ent = bigmem_zalloc(ent_bytes(r->order));
	r->lens = malloc(LENS_CAP);
	r->x = qx86_new();
	if (!r->ent || !r->lens || !r->x) {
		qd_runs_free(r);
		return NULL;
	}
	r->gen = 1;
	return r;
}

void qd_runs_free(struct qd_runs *r)
{
	if (!r)
		return;
	qx86_free(r->x);
	free(r->lens);
	bigmem_free(r->ent, ent_bytes(r->order));
	free(r);
}

static void runs_clear(struct qd_runs *r)
{
	memset(r->ent, 0, ((size_t)1 << r->order) * sizeof(*r->ent));
	r->nr_ent = 0;
	r->nr_lens = 0;
}

void qd_runs_forget(struct qd_runs *r)
{
	r->nr_ent = 0;
	r->nr_lens = 0; /* the lengths of other generations' runs */
	if (++r->gen == 0) {
		runs_clear(r);
		r->gen = 1;
	}
}

static size_t slot_of(const struct qd_runs *r, const void *space,
		      uint64_t ip)
{
	uint64_t h = (ip ^ (uint64_t)(uintptr_t)space) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> (64 - r->order));
}

/* Twice the slots, the runs of this generation moved over; -ENOMEM
 * leaves the table as it was. */
static int grow(struct qd_runs *r)
{
	size_t n = (size_t)1 << r->order, mask = 2 * n - 1, i, j;
	struct qd_run_ent *old = r->ent;
	struct qd_run_ent *ent = bigmem_zalloc(ent_bytes(r->order + 1));

	if (!ent)
		return -ENOMEM;
	r->ent = ent;
	r->order++;
	for (i = 0; i < n; i++) {
		if (!old[i].ninsn || old[i].gen != r->gen)
			continue;
		for (j = slot_of(r, old[i].space, old[i].ip); ent[j].ninsn;
		     j = (j + 1) & mask)
			;
		ent[j] = old[i];
	}
	bigmem_free(old, ent_bytes(r->order - 1));
	return 0;
}

/*
 * The executable bytes of @space at @ip as libipt's image holds them:
 * *@code and how many there are up to the end of their range (0: none).
 */
static uint64_t exec_bytes(struct qd_space *space, uint64_t ip,
			   const uint8_t **code)
{
	const struct qd_map *m = qd_space_find(space, ip);
	const struct qd_file *f;
	uint64_t off, hi, fend;
	size_t i;

	if (!m || !m->file->found || !m->file->data)
		return 0;
	f = m->file;
	off = ip - m->start + m->pgoff;
	fend = m->pgoff + (m->end - m->start);
	if (!f->is_elf) {
		hi = fend < f->size ? fend : f->size;
	} else {
		for (i = 0; i < f->nr_segs; i++)
			if (off >= f->segs[i].offset &&
			    off < f->segs[i].offset + f->segs[i].filesz)
				break;
		if (i == f->nr_segs)
			return 0;
		hi = f->segs[i].offset + f->segs[i].filesz;
		if (hi > fend)
			hi = fend;
		if (hi > f->size)
			hi = f->size;
	}
	if (off >= hi)
		return 0;
	*code = f->data + off;
	return hi - off;
}

/* Decode the run at @ip into @e (its lengths into the arena). */
static int build(struct qd_runs *r, struct qd_space *space, uint64_t ip,
		 struct qd_run_ent *e)
{
	uint8_t *lens = r->lens + r->nr_lens;
	size_t room = LENS_CAP - r->nr_lens;
	struct qx86_insn insn;
	uint64_t at = ip;
	uint32_t n = 0;

	if (room > QD_RUN_MAX)
		room = QD_RUN_MAX;
	for (;;) {
		const uint8_t *code;
		uint64_t avail = exec_bytes(space, at, &code);
		int len;

		if (!avail)
			return n ? 0 : -1; /* a run up to here, then bail */
		len = qx86_decode(r->x, code, avail < 15 ? avail : 15, 64, at,
				  &insn);
		if (len < 0)
			return n ? 0 : -1;
		lens[n++] = (uint8_t)len;
		e->end_ip = at;
		e->cls = insn.cls;
		e->last_len = (uint8_t)len;
		e->target = insn.target;
		if (insn.cls != QX86_NONE || n == room)
			break;
		at += (uint64_t)len;
	}
	e->ip = ip;
	e->space = space;
	e->ninsn = n;
	e->gen = r->gen;
	e->lens = lens;
	e->aux = NULL;
	r->nr_lens += n;
	return 0;
}

/* qd_runs_get's way when @ip's run is not in the table: make it at slot
 * @e, the empty one the search ended at (after growing or emptying the
 * table, searching again). */
static __attribute__((noinline)) const struct qd_run_ent *
runs_miss(struct qd_runs *r, struct qd_space *space, uint64_t ip,
	  struct qd_run_ent *e)
{
	size_t half = ((size_t)1 << r->order) / 2;

	if (r->nr_ent >= half && r->order < RUNS_ORDER && !grow(r))
		return qd_runs_get(r, space, ip);
	if (r->nr_ent >= half || r->nr_lens + QD_RUN_MAX > LENS_CAP) {
		runs_clear(r);
		return qd_runs_get(r, space, ip);
	}
	if (build(r, space, ip, e) < 0)
		return NULL;
	r->nr_ent++;
	return e;
}

const struct qd_run_ent *qd_runs_get(struct qd_runs *r, struct qd_space *space,
				     uint64_t ip)
{
	size_t i = slot_of(r, space, ip), mask = ((size_t)1 << r->order) - 1;
	struct qd_run_ent *e;

	for (;; i = (i + 1) & mask) {
		e = &r->ent[i];
		if (!e->ninsn || e->gen != r->gen)
			return runs_miss(r, space, ip, e);
		if (e->ip == ip && e->space == space)
			return e;
	}
}
