// SPDX-License-Identifier: MIT
/*
 * The flame graph's tree (flame.h): a node per stack of function names,
 * found by (parent, name) in a hash table; names are interned (the
 * decoder's symbol strings by pointer, then by their text, so that two
 * images' "_init" are one name).  Each thread keeps the node of each of
 * its stack's levels and the last leaf it counted into.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/flame.h"
#include "cli/cli.h"

#define UNKNOWN_NAME 1u /* "[unknown]": no symbol */

struct slot { /* hash table entries; key 0 (and val 0) is empty */
	uint64_t key;
	uint32_t val;
};

struct table {
	struct slot *s;
	size_t mask, used;
};

struct fl_thread {
	uint32_t *path; /* the node of each level; path[0] the thread's */
	size_t cap;
	uint32_t leaf_parent, leaf; /* the last leaf counted and its parent */
	const char *leaf_sym;
};

struct flame {
	struct flame_node *nodes;
	size_t nr, cap;
	char **names; /* owned copies of the names */
	size_t nr_names, cap_names;
	struct table by_ptr;  /* symbol pointer -> name */
	struct table by_text; /* hash of the text -> name (chained by probe) */
	struct table child;   /* (parent, name) -> node */
	struct fl_thread *t;
	size_t nr_t;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* The slot of @key, or the empty one where it would go. */
static struct slot *probe(const struct table *t, uint64_t key)
{
	size_t i = (size_t)mix(key) & t->mask;

	while (t->s[i].key && t->s[i].key != key)
		i = (i + 1) & t->mask;
	return &t->s[i];
}

static int grow(struct table *t)
{
	struct table n = {.mask = t->mask ? 2 * t->mask + 1 : 1023};
	size_t i;

	n.s = calloc(n.mask + 1, sizeof(*n.s));
	if (!n.s)
		return -ENOMEM;
	for (i = 0; t->s && i <= t->mask; i++)
		if (t->s[i].key)
			*probe(&n, t->s[i].key) = t->s[i];
	n.used = t->used;
	free(t->s);
	*t = n;
	return 0;
}

static int put(struct table *t, uint64_t key, uint32_t val)
{
	if (4 * (t->used + 1) > 3 * (t->mask + 1) && grow(t))
		return -ENOMEM;
	*probe(t, key) = (struct slot){key, val};
	t->used++;
	return 0;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h | 1; /* never 0: 0 is an empty slot */
}

/* A new name (a copy of @s); 0 when out of memory. */
static uint32_t add_name(struct flame *f, const char *s)
{
	if (cli_grow(&f->names, &f->cap_names, f->nr_names, sizeof(*f->names)))
		return 0;
	f->names[f->nr_names] = strdup(s);
	return f->names[f->nr_names] ? (uint32_t)f->nr_names++ : 0;
}

/* The name of the text @s (probing on from its hash's slot past other
 * texts with the same hash); 0 when out of memory. */
static uint32_t name_of_text(struct flame *f, const char *s)
{
	uint64_t h = text_hash(s), k;
	struct slot *sl;
	uint32_t id;

	for (k = h;; k = mix(k) | 1) {
		sl = probe(&f->by_text, k);
		if (!sl->key)
			break;
		if (!strcmp(f->names[sl->val], s))
			return sl->val;
	}
	id = add_name(f, s);
	if (id && put(&f->by_text, k, id))
		return 0;
	return id;
}

/* The name of the decoder's symbol @sym (NULL: "[unknown]"). */
static uint32_t name_of(struct flame *f, const char *sym)
{
	struct slot *sl;
	uint32_t id;

	if (!sym)
		return UNKNOWN_NAME;
	sl = probe(&f->by_ptr, (uint64_t)(uintptr_t)sym);
	if (sl->key)
		return sl->val;
	id = name_of_text(f, sym);
	if (id && put(&f->by_ptr, (uint64_t)(uintptr_t)sym, id))
		return 0;
	return id;
}

/* The child of @parent named @name, made if new; 0 when out of memory. */
static uint32_t child(struct flame *f, uint32_t parent, uint32_t name)
{
	uint64_t key = ((uint64_t)parent << 32 | name) + 1;
	struct slot *sl = probe(&f->child, key);
	struct flame_node *n;

	if (sl->key)
		return sl->val;
	if (f->nr == f->cap) {
		size_t cap = 2 * f->cap;

		n = realloc(f->nodes, cap * sizeof(*n));
		if (!n)
			return 0;
		f->nodes = n;
		f->cap = cap;
	}
	n = &f->nodes[f->nr];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	n->next = f->nodes[parent].child;
	f->nodes[parent].child = (uint32_t)f->nr;
	if (put(&f->child, key, (uint32_t)f->nr))
		return 0;
	return (uint32_t)f->nr++;
}

int flame_new(struct flame **out)
{
	struct flame *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->cap = 1024;
	f->nodes = calloc(f->cap, sizeof(*f->nodes));
	f->nr = 1; /* the root */
	/* names 0 and 1, not in by_text: a symbol named so is a name of
	 * its own */
	add_name(f, "all");
	add_name(f, "[unknown]");
	if (!f->nodes || grow(&f->by_ptr) || grow(&f->by_text) ||
	    grow(&f->child) || f->nr_names != 2) {
		flame_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void flame_free(struct flame *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_names; i++)
		free(f->names[i]);
	for (i = 0; i < f->nr_t; i++)
		free(f->t[i].path);
	free(f->names);
	free(f->by_ptr.s);
	free(f->by_text.s);
	free(f->child.s);
	free(f->nodes);
	free(f->t);
	free(f);
}

/* Thread @i, its path room for level @level (made with its root node,
 * named "PID/TID" from @it, when new). */
static struct fl_thread *thread(struct flame *f, size_t i, size_t level,
				const struct qpt_item *it)
{
	struct fl_thread *t;
	char label[32];
	uint32_t name;

	if (i >= f->nr_t) {
		t = realloc(f->t, (i + 1) * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + f->nr_t, 0, (i + 1 - f->nr_t) * sizeof(*t));
		f->t = t;
		f->nr_t = i + 1;
	}
	t = &f->t[i];
	if (level + 2 > t->cap) {
		size_t cap = 2 * (level + 2);
		uint32_t *p = realloc(t->path, cap * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + t->cap, 0, (cap - t->cap) * sizeof(*p));
		t->path = p;
		t->cap = cap;
	}
	if (!t->path[0] && it) {
		snprintf(label, sizeof(label), "%d/%d", (int)it->pid,
			 (int)it->tid);
		name = name_of_text(f, label);
		t->path[0] = name ? child(f, 0, name) : 0;
		if (!t->path[0])
			return NULL;
	}
	return t;
}

static int fl_push(void *ctx, size_t i, size_t level,
		   const struct qpt_crash_frame *fr, const struct qpt_item *it)
{
	struct flame *f = ctx;
	struct fl_thread *t = thread(f, i, level, it);
	uint32_t name, callee;

	if (!t || !(name = name_of(f, fr->sym)) ||
	    !(t->path[level + 1] = child(f, t->path[level], name)))
		return -ENOMEM;
	if (it->type == QPT_ITEM_BRANCH &&
	    (it->kind == QPT_BR_CALL || it->kind == QPT_BR_IND_CALL)) {
		name = name_of(f, it->to_sym);
		callee = name ? child(f, t->path[level + 1], name) : 0;
		if (!callee)
			return -ENOMEM;
		f->nodes[callee].calls++;
	}
	return 0;
}

static int fl_pop(void *ctx, size_t i, size_t level, const struct qpt_item *it)
{
	return 0; /* the path below @level stays as it is */
}

static int fl_insn(void *ctx, size_t i, size_t depth, const struct qpt_item *it)
{
	struct flame *f = ctx;
	struct fl_thread *t = i < f->nr_t && f->t[i].path && f->t[i].path[0]
				  ? &f->t[i]
				  : thread(f, i, 0, it);
	uint32_t parent, name;

	if (!t)
		return -ENOMEM;
	parent = t->path[depth];
	if (parent != t->leaf_parent || it->sym != t->leaf_sym || !t->leaf) {
		name = name_of(f, it->sym);
		t->leaf = name ? child(f, parent, name) : 0;
		if (!t->leaf)
			return -ENOMEM;
		t->leaf_parent = parent;
		t->leaf_sym = it->sym;
	}
	f->nodes[t->leaf].self++;
	return 0;
}

const struct callflow_ops flame_ops = {
    .push = fl_push,
    .pop = fl_pop,
    .insn = fl_insn,
};

const struct flame_node *flame_nodes(const struct flame *f, size_t *n)
{
	*n = f->nr;
	return f->nodes;
}

const char *flame_name(const struct flame *f, uint32_t name)
{
	return f->names[name];
}

uint64_t flame_totals(struct flame *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		f->nodes[i].total = f->nodes[i].self;
	for (i = f->nr; i-- > 1;)
		f->nodes[f->nodes[i].parent].total += f->nodes[i].total;
	return f->nodes[0].total;
}

/* A name in a folded line: escaped as text, ';' (the separator) as ':'. */
static void put_folded_name(struct out *w, const char *s)
{
	size_t n;

	while (*s) {
		n = strcspn(s, ";");
		out_esc(w, s, n);
		s += n;
		if (*s) {
			out_char(w, ':');
			s++;
		}
	}
}

int flame_write_folded(struct flame *f, struct out *w)
{
	uint32_t *up = NULL;
	size_t i, n, cap = 0;

	for (i = 1; i < f->nr && !w->err; i++) {
		uint32_t k;

		if (!f->nodes[i].self)
			continue;
		for (n = 0, k = (uint32_t)i; k; k = f->nodes[k].parent, n++) {
			if (n == cap) {
				uint32_t *p;

				cap = cap ? 2 * cap : 64;
				p = realloc(up, cap * sizeof(*p));
				if (!p) {
					free(up);
					return -ENOMEM;
				}
				up = p;
			}
			up[n] = k;
		}
		while (n--) {
			put_folded_name(w, f->names[f->nodes[up[n]].name]);
			out_char(w, n ? ';' : ' ');
		}
		out_dec(w, f->nodes[i].self);
		out_char(w, '\n');
	}
	free(up);
	return w->err;
}
