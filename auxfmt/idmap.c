// SPDX-License-Identifier: MIT
/*
 * The index from sample id to attr.  When several attrs list one id, the
 * attr added last has it, as in perf (its id hash puts the newest entry
 * first).
 *
 * The index is a stack of sorted runs, oldest at the bottom, each run more
 * than twice the size of the one above it: an attr's ids become a new run
 * on top, merged into the runs below while that rule is broken (the newer
 * entry wins an id both hold).  Adding n ids then costs O(n log N) over
 * all, however attrs arrive (pipe mode interleaves them with records), and
 * a lookup searches at most log2(N) + 1 runs, newest first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"

static int entry_cmp(const void *a, const void *b)
{
	const struct qpt_id_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Merge run @b (newer) into run @a (older): @a's array is replaced. */
static int merge(struct qpt_idrun *a, struct qpt_idrun *b)
{
	struct qpt_id_map *v = malloc((a->n + b->n) * sizeof(*v));
	size_t i = 0, j = 0, n = 0;

	if (!v)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && a->v[i].id < b->v[j].id)) {
			v[n++] = a->v[i++];
		} else {
			if (i < a->n && a->v[i].id == b->v[j].id)
				i++; /* the newer attr has it */
			v[n++] = b->v[j++];
		}
	}
	free(a->v);
	free(b->v);
	a->v = v;
	a->n = n;
	b->v = NULL;
	b->n = 0;
	return 0;
}

/* Merge the top run down while it is at least half the one below. */
static int settle(struct qpt_idmap *m, bool all)
{
	int err;

	while (m->nr >= 2 &&
	       (all || m->run[m->nr - 2].n <= 2 * m->run[m->nr - 1].n)) {
		err = merge(&m->run[m->nr - 2], &m->run[m->nr - 1]);
		if (err)
			return err;
		m->nr--;
	}
	return 0;
}

int qpt_idmap_add(struct qpt_idmap *m, const uint64_t *ids, size_t n,
		  struct qpt_attr *attr)
{
	struct qpt_id_map *v;
	bool sorted = true;
	size_t i, k;

	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[i].id = ids[i];
		v[i].attr = attr;
		if (i && ids[i] < ids[i - 1])
			sorted = false;
	}
	if (!sorted)
		qsort(v, n, sizeof(*v), entry_cmp);
	for (i = k = 1; i < n; i++) /* one entry per id */
		if (v[i].id != v[k - 1].id)
			v[k++] = v[i];
	/* sizes halve upwards, so 64 runs hold any count */
	m->run[m->nr].v = v;
	m->run[m->nr++].n = k;
	return settle(m, false);
}

int qpt_idmap_flatten(struct qpt_idmap *m)
{
	return settle(m, true);
}

struct qpt_attr *qpt_idmap_find(const struct qpt_idmap *m, uint64_t id)
{
	unsigned r;

	for (r = m->nr; r-- > 0;) {
		const struct qpt_idrun *run = &m->run[r];
		size_t lo = 0, hi = run->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (run->v[mid].id == id)
				return run->v[mid].attr;
			if (run->v[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

void qpt_idmap_free(struct qpt_idmap *m)
{
	while (m->nr)
		free(m->run[--m->nr].v);
}
