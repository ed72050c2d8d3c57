// SPDX-License-Identifier: MIT
/* The pictures' output file and their dispatch (views.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/flame.h"
#include "cli/views.h"

enum view_kind view_kind(const char *s)
{
	if (!strcmp(s, "chrome-trace"))
		return VIEW_CHROME;
	if (!strcmp(s, "flame"))
		return VIEW_FLAME;
	if (!strcmp(s, "folded"))
		return VIEW_FOLDED;
	return VIEW_NONE;
}

static int flame_start(struct view *v)
{
	struct flame *f;
	int err = flame_new(&f);

	if (err)
		return err;
	v->ctx = f;
	return callflow_init(&v->cf, &flame_ops, f);
}

int view_open(struct view *v, enum view_kind kind, const char *path)
{
	bool out = !path || !strcmp(path, "-");
	int err;

	v->kind = kind;
	v->path = out ? NULL : path;
	v->fd =
	    out ? STDOUT_FILENO
		: open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (v->fd < 0) {
		cli_error(path, "%s", strerror(errno));
		return QPT_EXIT_ERROR;
	}
	out_init(&v->w, v->fd, kind == VIEW_CHROME, v->buf, sizeof(v->buf));
	err = kind == VIEW_CHROME ? chrome_start(v) : flame_start(v);
	if (err) {
		cli_error(NULL, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	return 0;
}

int view_item(const struct qpt_item *it, void *v)
{
	return callflow_item(it, &((struct view *)v)->cf);
}

int view_finish(struct view *v)
{
	int err;

	if (v->kind == VIEW_CHROME) {
		err = chrome_finish(v);
	} else {
		err = callflow_finish(&v->cf);
		if (!err && v->kind == VIEW_FLAME)
			err = flame_write_svg(v->ctx, &v->w);
		else if (!err)
			err = flame_write_folded(v->ctx, &v->w);
	}
	if (out_flush(&v->w) && !err)
		err = v->w.err;
	if (v->path && close(v->fd) && !err)
		err = -errno;
	v->fd = -1;
	return err;
}

void view_free(struct view *v)
{
	if (v->kind == VIEW_CHROME)
		chrome_free(v);
	else
		flame_free(v->ctx);
	v->ctx = NULL;
	callflow_fini(&v->cf);
	if (v->path && v->fd >= 0)
		close(v->fd);
	v->fd = -1;
}
