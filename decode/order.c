// SPDX-License-Identifier: MIT
/*
 * The queues' items in time order, as perf script gives them: the queue
 * whose latest items are the oldest goes on, a step at a time, until its
 * time passes that of the next queue (ties go on), as perf's Intel PT
 * decoder runs its queues from a heap ordered by their timestamps.  A
 * queue's place at the start is the time of its first items, which are
 * held until it goes (as perf holds its first sample); no other item is
 * kept: each queue's decode is resumed where it stopped.  Items without a
 * time order as if at time 0 (a trace without timestamps is decoded
 * queue by queue).
 */
#include <errno.h>
#include <stdlib.h>

#include "decode/session.h"

struct slot {
	uint64_t key; /* the time of the queue's latest items */
	size_t i;     /* the queue */
};

static bool slot_before(const struct slot *a, const struct slot *b)
{
	return a->key < b->key || (a->key == b->key && a->i < b->i);
}

static void sift_down(struct slot *h, size_t n, size_t k)
{
	for (;;) {
		size_t m = k, l = 2 * k + 1, r = l + 1;
		struct slot t;

		if (l < n && slot_before(&h[l], &h[m]))
			m = l;
		if (r < n && slot_before(&h[r], &h[m]))
			m = r;
		if (m == k)
			return;
		t = h[k];
		h[k] = h[m];
		h[m] = t;
		k = m;
	}
}

/* The smallest key of the heap but its top (the limit of the top's run). */
static uint64_t next_key(const struct slot *h, size_t n)
{
	uint64_t k = UINT64_MAX;

	if (n > 1)
		k = h[1].key;
	if (n > 2 && h[2].key < k)
		k = h[2].key;
	return k;
}

/* Queue @i's first items with a time, held: their time in *@key. */
static int prime(qd_step_fn step, qd_hold_fn hold, void *arg, size_t i,
		 uint64_t *key)
{
	uint64_t t;
	unsigned n = 0;
	int ret;

	hold(arg, i, true);
	do {
		t = UINT64_MAX;
		ret = step(arg, i, &t, NULL);
	} while (ret > 0 && t == UINT64_MAX && ++n < QD_PRIME_STEPS);
	hold(arg, i, false);
	*key = t == UINT64_MAX ? 0 : t;
	return ret;
}

int qd_order_run(size_t n, qd_step_fn step, qd_hold_fn hold, void *arg,
		 bool by_time)
{
	struct slot *h;
	size_t i;
	int ret = 0;

	if (!by_time) {
		for (i = 0; i < n; i++)
			while ((ret = step(arg, i, &(uint64_t){0},
					   &(uint64_t){UINT64_MAX})) > 0)
				;
		return ret;
	}
	h = calloc(n + 1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < n && ret >= 0; i++) {
		h[i].i = i;
		ret = prime(step, hold, arg, i, &h[i].key);
	}
	for (i = n / 2; ret >= 0 && i-- > 0;)
		sift_down(h, n, i);
	while (ret >= 0 && n) {
		uint64_t limit = next_key(h, n);

		do
			ret = step(arg, h[0].i, &h[0].key, &limit);
		while (ret > 0 && h[0].key <= limit);
		if (ret < 0)
			break;
		if (!ret)
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	free(h);
	return ret < 0 ? ret : 0;
}
