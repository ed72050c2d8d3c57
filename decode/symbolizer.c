// SPDX-License-Identifier: MIT
/*
 * The public symbolizer (qpt/symbolizer.h): one address space of the
 * decoder's kind (space.c) over files found as the decoder finds them
 * (files.c), without a libipt image: lookups only.
 */
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/internal.h"
#include "qpt/symbolizer.h"

struct qpt_symbolizer {
	struct qpt_symbolizer_opts opts;
	struct qd_files files;
	struct qd_space *space;
};

void qpt_symbolizer_opts_init_sized(struct qpt_symbolizer_opts *out,
				    size_t size)
{
	struct qpt_symbolizer_opts o;

	memset(&o, 0, sizeof(o));
	o.demangle = true;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_symbolizer_new(const struct qpt_symbolizer_opts *opts,
		       struct qpt_symbolizer **out)
{
	struct qpt_symbolizer *s;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	qpt_symbolizer_opts_init(&s->opts);
	if (opts &&
	    qpt_sized_opts_read(&s->opts, sizeof(s->opts), opts,
				offsetof(struct qpt_symbolizer_opts, demangle) +
				    sizeof(bool))) {
		free(s);
		return -QPT_E_INVAL;
	}
	elf_version(EV_CURRENT);
	s->files.sysroot = s->opts.sysroot;
	s->files.buildid_dir = s->opts.buildid_dir;
	s->files.demangle = s->opts.demangle;
	s->space = qd_space_new(-1);
	if (!s->space) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void qpt_symbolizer_free(struct qpt_symbolizer *s)
{
	if (!s)
		return;
	qd_space_free(s->space);
	qd_files_free(&s->files);
	free(s);
}

int qpt_symbolizer_map(struct qpt_symbolizer *s, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path, const uint8_t *bid,
		       size_t bid_size)
{
	struct qd_file *file;

	if (!s || !path || (bid_size && !bid))
		return -QPT_E_INVAL;
	file = qd_files_get(&s->files, path, bid, bid_size, false);
	if (!file)
		return -ENOMEM;
	return qd_space_map(s->space, NULL, start, len, pgoff, file);
}

const char *qpt_symbolizer_sym(struct qpt_symbolizer *s, uint64_t ip,
			       uint64_t *off)
{
	*off = 0;
	return s ? qd_space_sym(s->space, ip, off) : NULL;
}

const char *qpt_symbolizer_srcline(struct qpt_symbolizer *s, uint64_t ip,
				   unsigned *line)
{
	*line = 0;
	return s ? qd_space_srcline(s->space, ip, line) : NULL;
}
