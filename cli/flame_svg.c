// SPDX-License-Identifier: MIT
/*
 * The SVG flame graph (flame.h): as flamegraph.pl draws one, with no
 * script or outside resource.  The root ("all") at the bottom, each
 * thread above it, then the functions of its stacks; a frame's width is
 * the instructions that ran with it on the stack, its children sorted by
 * name from the left; each frame has a tooltip (<title>) with its name,
 * instructions, share of the whole and the calls that entered it.
 * Frames narrower than MIN_WIDTH pixels are left out, and so their
 * children.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/flame.h"

#define WIDTH 1200.0	/* pixels */
#define PAD 10.0	/* left and right */
#define FRAME 16.0	/* a frame's height */
#define TOP 36.0	/* the title */
#define BOTTOM 10.0	/* below the root */
#define MIN_WIDTH 0.1	/* frames narrower are left out */
#define CHAR_WIDTH 7.08 /* 12px Verdana, as flamegraph.pl reckons (0.59) */

void flame_put_xml(struct out *w, const char *s)
{
	size_t n;

	while (*s) {
		n = strcspn(s, "&<>\"'");
		out_esc(w, s, n); /* control bytes, bad UTF-8: \xNN */
		s += n;
		switch (*s) {
		case '&':
			out_lit(w, "&amp;");
			break;
		case '<':
			out_lit(w, "&lt;");
			break;
		case '>':
			out_lit(w, "&gt;");
			break;
		case '"':
			out_lit(w, "&quot;");
			break;
		case '\'':
			out_lit(w, "&apos;");
			break;
		default:
			return;
		}
		s++;
	}
}

struct layout {
	struct flame *f;
	struct flame_node *nodes;
	uint32_t *kids;
};

static int by_name(const void *a, const void *b, void *ctx)
{
	const struct layout *l = ctx;
	const struct flame_node *x = &l->nodes[*(const uint32_t *)a];
	const struct flame_node *y = &l->nodes[*(const uint32_t *)b];

	return strcmp(flame_name(l->f, x->name), flame_name(l->f, y->name));
}

/* Each node's x (in instructions) and level: its children side by side
 * from its own x, sorted by name.  Parents come before their children. */
static int lay_out(struct flame *f, struct flame_node *nodes, size_t nr)
{
	struct layout l = {f, nodes, malloc(nr * sizeof(uint32_t))};
	size_t i, n, k;
	uint32_t c;
	double x;

	if (!l.kids)
		return -ENOMEM;
	nodes[0].x = 0;
	nodes[0].level = 0;
	for (i = 0; i < nr; i++) {
		for (n = 0, c = nodes[i].child; c; c = nodes[c].next)
			l.kids[n++] = c;
		qsort_r(l.kids, n, sizeof(*l.kids), by_name, &l);
		for (x = nodes[i].x, k = 0; k < n; k++) {
			nodes[l.kids[k]].x = x;
			nodes[l.kids[k]].level = nodes[i].level + 1;
			x += (double)nodes[l.kids[k]].total;
		}
	}
	free(l.kids);
	return 0;
}

/* A warm colour from the name, as flamegraph.pl's "hot" palette. */
static void color(const char *s, unsigned rgb[3])
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	rgb[0] = 205 + h % 51;
	rgb[1] = (h >> 8) % 231;
	rgb[2] = (h >> 16) % 56;
}

/* The part of @name that fits @px pixels, ".." ended when cut: its
 * length, 0 when not even three characters fit. */
static size_t label_len(const char *name, double px, bool *cut)
{
	size_t fit = (size_t)(px / CHAR_WIDTH), n = strlen(name);

	*cut = false;
	if (fit < 3)
		return 0;
	if (n <= fit)
		return n;
	*cut = true;
	while (fit > 2 && (name[fit - 2] & 0xc0) == 0x80)
		fit--; /* not inside a UTF-8 character */
	return fit - 2;
}

static void put_frame(struct out *w, const struct flame *f,
		      const struct flame_node *n, uint64_t all, double scale,
		      double height)
{
	const char *name = flame_name(f, n->name);
	double x = PAD + n->x * scale, wd = (double)n->total * scale;
	double y = height - BOTTOM - (n->level + 1) * FRAME;
	char num[128], *label;
	unsigned rgb[3];
	size_t len;
	bool cut;

	color(name, rgb);
	out_lit(w, "<g><title>");
	flame_put_xml(w, name);
	snprintf(num, sizeof(num), " (%llu instructions, %.2f%%",
		 (unsigned long long)n->total,
		 100.0 * (double)n->total / (double)all);
	out_cstr(w, num);
	if (n->calls) {
		out_lit(w, ", ");
		out_dec(w, n->calls);
		out_cstr(w, n->calls == 1 ? " call" : " calls");
	}
	snprintf(num, sizeof(num),
		 ")</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" "
		 "height=\"%.1f\" fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		 x, y, wd, FRAME - 1, rgb[0], rgb[1], rgb[2]);
	out_cstr(w, num);
	len = label_len(name, wd, &cut);
	if (len) {
		snprintf(num, sizeof(num), "<text x=\"%.1f\" y=\"%.1f\">",
			 x + 3, y + 10.5);
		out_cstr(w, num);
		label = strndup(name, len);
		if (label)
			flame_put_xml(w, label);
		free(label);
		if (cut)
			out_lit(w, "..");
		out_lit(w, "</text>");
	}
	out_lit(w, "</g>\n");
}

int flame_write_svg(struct flame *f, struct out *w)
{
	uint64_t all = flame_totals(f);
	size_t nr, i, levels = 1;
	struct flame_node *nodes = (struct flame_node *)flame_nodes(f, &nr);
	double scale, height;
	char head[512];
	int err;

	err = lay_out(f, nodes, nr);
	if (err)
		return err;
	scale = all ? (WIDTH - 2 * PAD) / (double)all : 0;
	for (i = 0; i < nr; i++)
		if ((double)nodes[i].total * scale >= MIN_WIDTH &&
		    nodes[i].level + 1 > levels)
			levels = nodes[i].level + 1;
	height = TOP + levels * FRAME + BOTTOM;
	snprintf(
	    head, sizeof(head),
	    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	    "font-family=\"Verdana, sans-serif\" font-size=\"12\">\n"
	    "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
	    "fill=\"rgb(248,248,248)\"/>\n"
	    "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
	    "font-size=\"17\">Flame graph: %llu instructions</text>\n",
	    WIDTH, height, WIDTH, height, WIDTH / 2, (unsigned long long)all);
	out_cstr(w, head);
	for (i = 0; i < nr && all && !w->err; i++)
		if ((double)nodes[i].total * scale >= MIN_WIDTH)
			put_frame(w, f, &nodes[i], all, scale, height);
	out_lit(w, "</svg>\n");
	return w->err;
}
