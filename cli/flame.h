/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs of the call flow (qpt flame): a tree of stacks whose
 * nodes count the instructions that ran with exactly that stack (self)
 * and the calls that entered them, built from the call flow (callflow.h),
 * written as folded stacks (flamegraph.pl's and speedscope's input:
 * "PID/TID;outer;...;inner COUNT") or as a self-contained SVG flame graph
 * (flame_svg.c).  The bottom frame of each stack is its thread.
 */
#ifndef QPT_CLI_FLAME_H
#define QPT_CLI_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "cli/callflow.h"
#include "cli/out.h"

struct flame_node {
	uint32_t parent, name; /* name: an index into the names */
	uint32_t child, next;  /* first child, next sibling (0: none) */
	uint64_t self, calls, total;
	double x; /* flame_svg.c: where it starts, in instructions */
	uint32_t level;
};

struct flame;

/* The view's calls; the context is the struct flame. */
extern const struct callflow_ops flame_ops;

/* Returns 0 or -ENOMEM. */
int flame_new(struct flame **f);
void flame_free(struct flame *f);

/* The nodes (0 the root, "all"), their count, and a node's name.  A
 * parent comes before its children. */
const struct flame_node *flame_nodes(const struct flame *f, size_t *n);
const char *flame_name(const struct flame *f, uint32_t name);
/* Add up each node's total (self and its children's); the root's. */
uint64_t flame_totals(struct flame *f);

/* Write the folded stacks, one line per stack that ran instructions.
 * Returns the writer's error. */
int flame_write_folded(struct flame *f, struct out *w);
/* Write the SVG flame graph (flame_svg.c). */
int flame_write_svg(struct flame *f, struct out *w);
/* A name escaped for XML text and attributes (flame_svg.c). */
void flame_put_xml(struct out *w, const char *s);

#endif
