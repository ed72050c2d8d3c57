/* SPDX-License-Identifier: MIT */
/*
 * The pictures of a decoded call flow, written to a file (or standard
 * output): qpt decode --calls --format=chrome-trace (decode_chrome.c),
 * and qpt flame's SVG flame graph and folded stacks (flame.c,
 * flame_svg.c), which qpt decode takes as --format=flame and
 * --format=folded.  Each gets the decoder's items through the call flow
 * (callflow.h).
 */
#ifndef QPT_CLI_VIEWS_H
#define QPT_CLI_VIEWS_H

#include "cli/callflow.h"
#include "cli/out.h"

enum view_kind { VIEW_NONE, VIEW_CHROME, VIEW_FLAME, VIEW_FOLDED };

struct view {
	enum view_kind kind;
	const char *path; /* NULL: standard output */
	int fd;
	struct out w;
	struct callflow cf;
	void *ctx; /* the view's own */
	char buf[1 << 16];
};

/* The kind named @s ("chrome-trace", "flame", "folded"), or VIEW_NONE. */
enum view_kind view_kind(const char *s);
/*
 * Open @path (NULL or "-": standard output) for @kind and start the
 * view; on failure prints the one line ("qpt: PATH: ...") and returns
 * QPT_EXIT_ERROR, else 0.
 */
int view_open(struct view *v, enum view_kind kind, const char *path);
/* The qpt_item_fn (@v the struct view). */
int view_item(const struct qpt_item *it, void *v);
/* The end of the items: the view is written out and the file closed;
 * returns 0 or a negative error (a write error: -errno). */
int view_finish(struct view *v);
/* Free what the view holds (closing the file if still open). */
void view_free(struct view *v);

/* decode_chrome.c */
int chrome_start(struct view *v);
int chrome_finish(struct view *v);
void chrome_free(struct view *v);

#endif
