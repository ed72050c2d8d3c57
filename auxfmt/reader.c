// SPDX-License-Identifier: MIT
/*
 * The reader's core: opening an input (mapped when it is a regular file,
 * read into memory otherwise), the attr table, and record iteration with
 * byte swapping, attr matching and COMPRESSED unpacking.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auxfmt/sized.h"
#include "auxfmt/reader_internal.h"

void qpt_reader_opts_init_sized(struct qpt_reader_opts *out, size_t size)
{
	struct qpt_reader_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_reader_fail(struct qpt_reader *r, uint64_t pos, int err,
		    const char *fmt, ...)
{
	va_list ap;

	r->errpos = pos;
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	if (r->log)
		r->log(QPT_LOG_DEBUG, r->errmsg, r->log_ctx);
	return err;
}

void qpt_reader_warn(struct qpt_reader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!r->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->log(QPT_LOG_WARN, msg, r->log_ctx);
}

static int reader_alloc(const char *name, const struct qpt_reader_opts *opts,
			struct qpt_reader **out)
{
	struct qpt_reader_opts o;
	struct qpt_reader *r;

	qpt_reader_opts_init(&o);
	if (opts && qpt_sized_opts_read(&o, sizeof(o), opts,
					offsetof(struct qpt_reader_opts, log)))
		return -QPT_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->name = strdup(name ? name : "-");
	r->rec = malloc(QPT_RECORD_MAX);
	r->features = qpt_features_new();
	if (!r->name || !r->rec || !r->features) {
		qpt_reader_free(r);
		return -ENOMEM;
	}
	r->fd = -1;
	r->own_fd = -1;
	r->data_fd = -1;
	r->spool_fd = -1;
	r->log = o.log;
	r->log_ctx = o.log_ctx;
	r->no_decompress = o.no_decompress;
	*out = r;
	return 0;
}

static int reader_start(struct qpt_reader *r)
{
	uint64_t magic;

	if (r->len < 16)
		return qpt_reader_fail(r, r->len, -QPT_E_TRUNCATED,
				       "input too short for a perf.data header"
				       " (%llu bytes)",
				       (unsigned long long)r->len);
	memcpy(&magic, r->buf, 8);
	if (magic == QPT_PERF_MAGIC2)
		r->swap = false;
	else if (magic == QPT_PERF_MAGIC2_SW)
		r->swap = true;
	else if (!memcmp(r->buf, "PERFFILE", 8))
		return qpt_reader_fail(r, 0, -QPT_E_UNSUPPORTED,
				       "perf.data version 1 (PERFFILE) is not"
				       " supported");
	else
		return qpt_reader_fail(r, 0, -QPT_E_FORMAT,
				       "not a perf.data file (bad magic)");
	memcpy(&magic, r->buf + 8, 8);
	if (r->swap)
		magic = qpt_bswap64(magic);
	if (magic == sizeof(struct qpt_pipe_header))
		return qpt_reader_open_pipe(r);
	return qpt_reader_open_file(r);
}

int qpt_reader_open_fd(int fd, const char *name,
		       const struct qpt_reader_opts *opts,
		       struct qpt_reader **reader)
{
	struct qpt_reader *r;
	struct stat st;
	int err;

	if (!reader)
		return -QPT_E_INVAL;
	*reader = NULL;
	err = reader_alloc(name, opts, &r);
	if (err)
		return err;
	*reader = r;
	if (fstat(fd, &st) < 0)
		return qpt_reader_fail(r, 0, -errno, "%s", strerror(errno));
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		r->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			      fd, 0);
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			return qpt_reader_fail(r, 0, -errno, "mmap: %s",
					       strerror(errno));
		}
		r->buf = r->map;
		r->len = (uint64_t)st.st_size;
		r->random_access = true;
		r->data_fd = fd;
	} else {
		err = qpt_stream_open(r, fd);
		if (err)
			return err;
	}
	return reader_start(r);
}

int qpt_reader_open(const char *path, const struct qpt_reader_opts *opts,
		    struct qpt_reader **reader)
{
	int fd, err;

	if (!path || !reader)
		return -QPT_E_INVAL;
	*reader = NULL;
	if (!strcmp(path, "-"))
		return qpt_reader_open_fd(STDIN_FILENO, "-", opts, reader);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = qpt_reader_open_fd(fd, path, opts, reader);
	/* a FIFO read on while iterating, or a file read with pread */
	if (*reader && ((*reader)->stream || (*reader)->data_fd == fd))
		(*reader)->own_fd = fd;
	else
		close(fd);
	return err;
}

int qpt_reader_open_mem(const void *buf, size_t len, const char *name,
			const struct qpt_reader_opts *opts,
			struct qpt_reader **reader)
{
	struct qpt_reader *r;
	int err;

	if (!reader || (!buf && len))
		return -QPT_E_INVAL;
	*reader = NULL;
	err = reader_alloc(name, opts, &r);
	if (err)
		return err;
	*reader = r;
	r->buf = buf;
	r->len = len;
	r->random_access = true;
	return reader_start(r);
}

void qpt_reader_free(struct qpt_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_attrs; i++) {
		free((void *)r->attrs[i]->name);
		free(r->attrs[i]);
	}
	free(r->attrs);
	qpt_idmap_free(&r->idmap);
	qpt_features_free(r->features);
	free(r->auxidx);
	qpt_zstd_free(r->zstd);
	free(r->zout);
	free(r->rec);
	if (r->map)
		munmap(r->map, r->len);
	free(r->owned);
	if (r->own_fd >= 0)
		close(r->own_fd);
	if (r->spool_fd >= 0)
		close(r->spool_fd);
	free(r->name);
	free(r);
}

const char *qpt_reader_name(const struct qpt_reader *r)
{
	return r->name;
}

bool qpt_reader_is_pipe(const struct qpt_reader *r)
{
	return r->pipe;
}

bool qpt_reader_is_swapped(const struct qpt_reader *r)
{
	return r->swap;
}

bool qpt_reader_is_stream(const struct qpt_reader *r)
{
	return r->stream;
}

int qpt_reader_data_fd(const struct qpt_reader *r)
{
	return r && !r->stream ? r->data_fd : -1;
}

bool qpt_reader_is_unfinished(const struct qpt_reader *r)
{
	return r->unfinished;
}

const struct qpt_file_header *
qpt_reader_file_header(const struct qpt_reader *r)
{
	return r->pipe ? NULL : &r->hdr;
}

uint64_t qpt_reader_errpos(const struct qpt_reader *r)
{
	return r->errpos;
}

const char *qpt_reader_errmsg(const struct qpt_reader *r)
{
	return r->errmsg;
}

size_t qpt_reader_nr_attrs(const struct qpt_reader *r)
{
	return r->nr_attrs;
}

const struct qpt_attr *qpt_reader_attr(const struct qpt_reader *r, size_t idx)
{
	return idx < r->nr_attrs ? r->attrs[idx] : NULL;
}

const struct qpt_attr *qpt_reader_attr_by_id(const struct qpt_reader *r,
					     uint64_t id)
{
	const struct qpt_attr *a = qpt_idmap_find(&r->idmap, id);

	if (a)
		return a;
	return r->nr_attrs == 1 ? r->attrs[0] : NULL;
}

uint64_t *qpt_reader_id_block(struct qpt_reader *r, const uint8_t *src,
			      size_t n, bool swap)
{
	uint64_t *v = qpt_reader_alloc(r, n, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	memcpy(v, src, n * sizeof(*v));
	if (swap)
		for (i = 0; i < n; i++)
			v[i] = qpt_bswap64(v[i]);
	return v;
}

int qpt_reader_add_attr(struct qpt_reader *r, const void *attr_bytes,
			size_t attr_len, bool swap, const uint64_t *ids,
			uint32_t nr_ids, const uint64_t *sorted, uint64_t pos)
{
	uint8_t tmp[QPT_ATTR_BYTES];
	struct qpt_attr *a;
	size_t n = attr_len;
	int err;

	/* Cap by the input: every attr takes input bytes. */
	if (r->nr_attrs >= r->len / 8 + 1)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT, "too many attrs");
	if (n > sizeof(tmp))
		n = sizeof(tmp);
	memset(tmp, 0, sizeof(tmp));
	memcpy(tmp, attr_bytes, n);
	if (swap)
		qpt_attr_swap(tmp, n);
	if (r->nr_attrs == r->cap_attrs) {
		size_t cap = r->cap_attrs ? 2 * r->cap_attrs : 8;
		struct qpt_attr **na = realloc(r->attrs, cap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		r->attrs = na;
		r->cap_attrs = cap;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memcpy(a->attr_bytes, tmp, n);
	a->ids = nr_ids ? ids : NULL;
	a->nr_ids = nr_ids;
	err = qpt_idmap_add(&r->idmap, sorted ? sorted : ids, nr_ids, a);
	if (err) {
		free(a);
		return err;
	}
	r->attrs[r->nr_attrs++] = a;
	return 0;
}

int qpt_reader_set_name(struct qpt_reader *r, uint64_t id, const char *name,
			size_t len)
{
	struct qpt_attr *a = (struct qpt_attr *)qpt_reader_attr_by_id(r, id);
	char *s;

	if (!a)
		return 0;
	s = strndup(name, len);
	if (!s)
		return -ENOMEM;
	free((void *)a->name);
	a->name = s;
	return 0;
}

static uint64_t load64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? qpt_bswap64(v) : v;
}

/*
 * The attr of a record, as perf finds it: with one attr that one; else by
 * the id at the position the first attr's sample_type gives.
 */
const struct qpt_attr *qpt_reader_match(struct qpt_reader *r, uint32_t type,
					 const uint8_t *rec, size_t size,
					 bool swap)
{
	const struct perf_event_attr *a0;
	uint64_t id;
	int idx;

	if (!r->nr_attrs)
		return NULL;
	if (r->nr_attrs == 1)
		return r->attrs[0];
	a0 = &r->attrs[0]->attr;
	if (type == PERF_RECORD_SAMPLE) {
		idx = qpt_sample_id_pos(a0->sample_type);
		if (idx < 0)
			return r->attrs[0];
		if (8 + 8 * (size_t)idx + 8 > size)
			return NULL;
		return qpt_reader_attr_by_id(r,
					     load64(rec + 8 + 8 * idx, swap));
	}
	if (type >= PERF_RECORD_MAX || !a0->sample_id_all)
		return r->attrs[0];
	if (a0->sample_type & PERF_SAMPLE_IDENTIFIER)
		idx = 1;
	else if (!(a0->sample_type & PERF_SAMPLE_ID))
		return r->attrs[0];
	else
		idx = 1 + !!(a0->sample_type & PERF_SAMPLE_CPU) +
		      !!(a0->sample_type & PERF_SAMPLE_STREAM_ID);
	if ((size_t)idx * 8 + 8 > size)
		return NULL;
	id = load64(rec + size - 8 * idx, swap);
	/* perf: synthesized records have an id of zero: the first attr */
	return id ? qpt_reader_attr_by_id(r, id) : r->attrs[0];
}

const struct qpt_features *qpt_reader_features(const struct qpt_reader *r)
{
	return r->features;
}

int qpt_reader_read_at(struct qpt_reader *r, uint64_t pos, uint64_t size,
		       const void **data)
{
	if (!r->random_access)
		return qpt_reader_fail(r, pos, -QPT_E_STATE,
				       "random access needs a file input");
	if (pos > r->len || size > r->len - pos)
		return qpt_reader_fail(r, pos, -QPT_E_TRUNCATED,
				       "%llu bytes past the end of the input",
				       (unsigned long long)size);
	*data = r->buf + pos;
	return 0;
}

/* Pages let go at a time behind qpt_reader_next. */
#define BEHIND_STEP (8u << 20)

void qpt_reader_behind(struct qpt_reader *r, uint64_t pos)
{
	if (!r->map || pos < r->behind || pos - r->behind < BEHIND_STEP)
		return;
	qpt_reader_evict(r, r->behind, pos - r->behind);
	r->behind = pos;
}

void qpt_reader_evict(struct qpt_reader *r, uint64_t pos, uint64_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (!r || !r->map || pos >= r->len)
		return;
	if (size > r->len - pos)
		size = r->len - pos;
	lo = pos & ~(page - 1);
	hi = (pos + size + page - 1) & ~(page - 1);
	if (hi > lo)
		madvise((uint8_t *)r->map + lo, (size_t)(hi - lo),
			MADV_DONTNEED);
}
