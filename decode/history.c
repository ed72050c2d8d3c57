// SPDX-License-Identifier: MIT
/*
 * The address spaces of each process over time.  A process's history is a
 * list of epochs, each an address space (maps and libipt image) in force
 * from a sideband position on: an exec starts an empty one, a fork starts
 * the child's as a copy of the parent's, and a mapping that puts other
 * code where code was mapped starts a copy with the new mapping.  Mappings
 * of new places join the current epoch.  A trace position is decoded
 * against the epoch in force at that position.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/internal.h"

/*
 * Bytes that the address spaces kept for earlier positions (the images
 * before an exec, the code mapped over) may take, about (an epoch and
 * each of its maps, ours and libipt's, as measured).  Beyond it a
 * process's address space changes in place (as if it had no history),
 * which bounds the memory hostile files can take; some 6,000 execs of
 * 100-map processes fit.  Forks are not counted: a child needs its space.
 */
#define QD_HIST_BUDGET (256u << 20)
#define QD_EPOCH_BYTES 1024
#define QD_MAP_BYTES 384

int qd_hist_init(struct qd_hist *h, struct pt_image_section_cache *isc,
		 const struct qd_space *manual)
{
	memset(h, 0, sizeof(*h));
	h->isc = isc;
	h->manual = manual;
	h->budget = QD_HIST_BUDGET;
	h->kernel = qd_space_new(-1);
	h->all = qd_space_new(-1);
	if (!h->kernel || !h->all || qd_space_copy(h->all, isc, manual)) {
		qd_hist_fini(h);
		return -ENOMEM;
	}
	return 0;
}

void qd_hist_fini(struct qd_hist *h)
{
	size_t i, k;

	for (i = 0; i < h->nr_procs; i++) {
		for (k = 0; k < h->procs[i].nr_ep; k++)
			qd_space_free(h->procs[i].ep[k].space);
		free(h->procs[i].ep);
	}
	free(h->procs);
	qd_idmap_free(&h->pids);
	qd_space_free(h->kernel);
	qd_space_free(h->all);
	memset(h, 0, sizeof(*h));
}

static bool when_before(const struct qd_when *a, const struct qd_when *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static bool epoch_before(const void *e, const void *at)
{
	return when_before(&((const struct qd_epoch *)e)->from, at);
}

static struct qd_proc *find_proc(struct qd_hist *h, int32_t pid)
{
	uint32_t i;

	return qd_idmap_get(&h->pids, (uint32_t)pid, &i) ? &h->procs[i] : NULL;
}

/* A new empty address space: the hand-given images and the kernel's. */
static struct qd_space *fresh_space(struct qd_hist *h, int32_t pid)
{
	struct qd_space *sp = qd_space_new(pid);

	if (sp && (qd_space_copy(sp, h->isc, h->manual) ||
		   qd_space_copy(sp, h->isc, h->kernel))) {
		qd_space_free(sp);
		return NULL;
	}
	return sp;
}

/* Append an epoch of @p holding @sp (taken), from @w on. */
static int add_epoch(struct qd_hist *h, struct qd_proc *p, struct qd_space *sp,
		     const struct qd_when *w, bool own)
{
	struct qd_epoch *e;

	if (!sp)
		return -ENOMEM;
	if (p->nr_ep == p->cap_ep) {
		size_t nc = p->cap_ep ? 2 * p->cap_ep : 2;

		e = realloc(p->ep, nc * sizeof(*e));
		if (!e) {
			qd_space_free(sp);
			return -ENOMEM;
		}
		p->ep = e;
		p->cap_ep = nc;
	}
	e = &p->ep[p->nr_ep++];
	e->space = sp;
	e->from = *w;
	e->own = own;
	return 0;
}

/* Whether @h may keep an epoch of @nr_maps maps more; takes it if so. */
static bool spend(struct qd_hist *h, size_t nr_maps)
{
	uint64_t cost = (uint64_t)nr_maps * QD_MAP_BYTES + QD_EPOCH_BYTES;

	if (h->budget < cost)
		return false;
	h->budget -= cost;
	return true;
}

/* The process @pid, made with one epoch (@sp, or a fresh space) from
 * the beginning when new; NULL on -ENOMEM. */
static struct qd_proc *get_proc(struct qd_hist *h, int32_t pid,
				struct qd_space *sp)
{
	static const struct qd_when start;
	struct qd_proc *p = find_proc(h, pid);

	if (p) {
		qd_space_free(sp);
		return p;
	}
	if (h->nr_procs == h->cap_procs) {
		size_t nc = h->cap_procs ? 2 * h->cap_procs : 16;

		p = realloc(h->procs, nc * sizeof(*p));
		if (!p)
			goto fail;
		h->procs = p;
		h->cap_procs = nc;
	}
	if (qd_idmap_put(&h->pids, (uint32_t)pid, (uint32_t)h->nr_procs))
		goto fail;
	p = &h->procs[h->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (add_epoch(h, p, sp ? sp : fresh_space(h, pid), &start, sp != NULL))
		return NULL; /* stays with no epoch: never looked up */
	return p;
fail:
	qd_space_free(sp);
	return NULL;
}

static struct qd_epoch *current(struct qd_proc *p)
{
	return &p->ep[p->nr_ep - 1];
}

/* The kernel and its modules (pid -1): in every address space. */
static int map_kernel(struct qd_hist *h, uint64_t start, uint64_t len,
		      uint64_t pgoff, struct qd_file *file)
{
	size_t i, k;
	int err;

	err = qd_space_map(h->kernel, h->isc, start, len, pgoff, file);
	for (i = 0; !err && i < h->nr_procs; i++)
		for (k = 0; !err && k < h->procs[i].nr_ep; k++)
			err = qd_space_map(h->procs[i].ep[k].space, h->isc,
					   start, len, pgoff, file);
	return err;
}

int qd_hist_map(struct qd_hist *h, int32_t pid, const struct qd_when *w,
		uint64_t start, uint64_t len, uint64_t pgoff,
		struct qd_file *file)
{
	struct qd_proc *p;
	struct qd_epoch *e;
	int err;

	err = qd_space_map(h->all, h->isc, start, len, pgoff, file);
	if (err || pid == -1)
		return err ? err : map_kernel(h, start, len, pgoff, file);
	p = get_proc(h, pid, NULL);
	if (!p || !p->nr_ep)
		return -ENOMEM;
	e = current(p);
	if (e->own && qd_space_conflicts(e->space, start, len, pgoff, file) &&
	    spend(h, e->space->nr_maps)) {
		/* other code where code was: earlier positions keep theirs */
		err = add_epoch(h, p, qd_space_clone(e->space, pid), w, true);
		if (err)
			return err;
		e = current(p);
	}
	e->own = true;
	return qd_space_map(e->space, h->isc, start, len, pgoff, file);
}

int qd_hist_exec(struct qd_hist *h, int32_t pid, const struct qd_when *w)
{
	struct qd_proc *p = get_proc(h, pid, NULL);
	struct qd_epoch *e;
	struct qd_space *sp;

	if (!p || !p->nr_ep)
		return -ENOMEM;
	e = current(p);
	if (!e->own)
		return 0; /* nothing of the process mapped yet */
	if (spend(h, e->space->nr_maps))
		return add_epoch(h, p, fresh_space(h, pid), w, false);
	/* out of budget: forget the old image in place */
	sp = fresh_space(h, pid);
	if (!sp)
		return -ENOMEM;
	qd_space_free(e->space);
	e->space = sp;
	e->own = false;
	return 0;
}

int qd_hist_fork(struct qd_hist *h, int32_t pid, int32_t ppid,
		 const struct qd_when *w)
{
	struct qd_proc *parent = find_proc(h, ppid), *p;
	struct qd_space *sp;

	if (!parent || !parent->nr_ep || pid == ppid)
		return 0;
	sp = qd_space_clone(current(parent)->space, pid);
	if (!sp)
		return -ENOMEM;
	p = find_proc(h, pid);
	if (!p) /* its first epoch: from the beginning */
		return get_proc(h, pid, sp) ? 0 : -ENOMEM;
	if (!p->nr_ep)
		return 0;
	/* the pid again, for a new process */
	return add_epoch(h, p, sp, w, true);
}

struct qd_space *qd_hist_space(struct qd_hist *h, int32_t pid,
			       const struct qd_when *at)
{
	struct qd_proc *p = find_proc(h, pid);
	size_t i;

	if (!p || !p->nr_ep)
		return NULL;
	/* the last epoch that began before @at (the first from the start) */
	i = qd_partition(p->ep + 1, p->nr_ep - 1, sizeof(*p->ep), epoch_before,
			 at);
	return p->ep[i].space;
}

bool qd_hist_sole_pid(const struct qd_hist *h, int32_t *pid)
{
	if (h->nr_procs != 1)
		return false;
	*pid = h->procs[0].pid;
	return true;
}
