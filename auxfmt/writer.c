// SPDX-License-Identifier: MIT
/*
 * Writing perf.data: the writer object, its output (a buffer in front of
 * the descriptor), file mode and pipe mode, records and AUXTRACE records.
 *
 * File mode layout, as perf record makes it: the 104-byte header, the ids
 * of every attr, the attrs section (attr + ids section per entry), the data,
 * then the feature section table and the features.  The header is on disk
 * from open; every flush puts the features after the data written so far
 * and rewrites the header to cover them.  Later data either goes past
 * those features (a gap), so that until the next flush the file on disk
 * reads as the flush left it, and the next flush (or close) makes the header
 * let go of them and covers the gap with HEADER_EVENT_TYPE records, which
 * perf skips; or, when a gap would waste much, overwrites them once the
 * header has let go of them (see qpt_writer_write_features).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auxfmt/sized.h"
#include "auxfmt/writer_io.h"
#include "auxfmt/writer_priv.h"
#include "qpt/crash.h"
#include "qpt/reader.h"
#include "qpt/reader.h"

void qpt_writer_logf(struct qpt_writer *w, enum qpt_log_level level,
		     const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!w->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->log(level, msg, w->log_ctx);
}

void qpt_writer_opts_init_sized(struct qpt_writer_opts *out, size_t size)
{
	struct qpt_writer_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

/* Copy what both sides know of @in; unknown trailing bytes must be zero. */
static int opts_copy(struct qpt_writer_opts *out,
		     const struct qpt_writer_opts *in)
{
	const unsigned char *extra;
	size_t i;

	qpt_writer_opts_init(out);
	if (!in)
		return 0;
	if (in->size < sizeof(size_t))
		return -QPT_E_INVAL;
	extra = (const unsigned char *)in;
	for (i = sizeof(*out); i < in->size; i++)
		if (extra[i])
			return -QPT_E_INVAL;
	memcpy(out, in, in->size < sizeof(*out) ? in->size : sizeof(*out));
	out->size = sizeof(*out);
	if (out->compress < 0 || out->compress > 22)
		return -QPT_E_INVAL;
	return 0;
}

static int writer_start(struct qpt_writer *w)
{
	struct qpt_pipe_header ph;
	int err;

	err = qpt_wbuf_reserve(&w->out, QPT_OUT_CAP);
	if (err)
		return err;
	if (w->pipe) {
		ph.magic = QPT_PERF_MAGIC2;
		ph.size = sizeof(ph);
		err = qpt_writer_emit(w, &ph, sizeof(ph));
		return err ? err : qpt_writer_out_drain(w);
	}
	w->attrs_offset = QPT_FILE_HEADER_SIZE;
	w->data_offset = QPT_FILE_HEADER_SIZE;
	w->pos = QPT_FILE_HEADER_SIZE;
	err = qpt_writer_write_header(w, 0, NULL);
	if (err)
		return qpt_writer_fail(w, err);
	qpt_writer_note_high(w, QPT_FILE_HEADER_SIZE);
	return 0;
}

static int writer_new(int fd, const char *name,
		      const struct qpt_writer_opts *opts,
		      const struct qpt_writer_io *io, struct qpt_writer **writer)
{
	struct qpt_writer_opts o;
	struct qpt_writer *w;
	int err;

	if (!writer)
		return -QPT_E_INVAL;
	*writer = NULL;
	if (fd < 0)
		return -QPT_E_INVAL;
	err = opts_copy(&o, opts);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->io = io;
	w->name = strdup(name ? name : "-");
	w->log = o.log;
	w->log_ctx = o.log_ctx;
	w->pipe = o.pipe;
	w->level = o.compress;
	if (!w->name) {
		err = -ENOMEM;
		goto err_free;
	}
	/* A descriptor that cannot seek, or that appends whatever the
	 * offset, takes a pipe-mode stream. */
	if (!w->pipe && ((lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) ||
			 (fcntl(fd, F_GETFL) & O_APPEND)))
		w->pipe = true;
	if (w->level) {
		err = qpt_wzstd_new(w->level, &w->z);
		if (err)
			goto err_free;
	}
	err = writer_start(w);
	if (err)
		goto err_free;
	*writer = w;
	return 0;

err_free:
	qpt_writer_free(w);
	return err;
}

int qpt_writer_open_fd(int fd, const char *name,
		       const struct qpt_writer_opts *opts,
		       struct qpt_writer **writer)
{
	return writer_new(fd, name, opts, NULL, writer);
}

int qpt_writer_open(const char *path, const struct qpt_writer_opts *opts,
		    struct qpt_writer **writer)
{
	return qpt_writer_open_io(path, opts, NULL, writer);
}

int qpt_writer_open_io(const char *path, const struct qpt_writer_opts *opts,
		       const struct qpt_writer_io *io,
		       struct qpt_writer **writer)
{
	struct qpt_writer_opts o;
	int fd, err;

	if (!writer)
		return -QPT_E_INVAL;
	*writer = NULL;
	if (!path)
		return -QPT_E_INVAL;
	err = opts_copy(&o, opts);
	if (err)
		return err;
	if (!strcmp(path, "-")) {
		o.pipe = true;
		return writer_new(STDOUT_FILENO, "-", &o, io, writer);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = writer_new(fd, path, &o, io, writer);
	if (err) {
		close(fd);
		return err;
	}
	(*writer)->own_fd = true;
	return 0;
}

int qpt_writer_add_attr(struct qpt_writer *w,
			const struct perf_event_attr *attr, const uint64_t *ids,
			uint32_t nr_ids, const char *name)
{
	struct qpt_writer_attr *a, *n;
	const unsigned char *extra;
	uint32_t size;

	if (!w || !attr || (nr_ids && !ids))
		return -QPT_E_INVAL;
	if (w->prologue || w->closed)
		return -QPT_E_STATE;
	size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		return -QPT_E_INVAL;
	/* Fields this build does not know must be zero. */
	extra = (const unsigned char *)attr;
	for (uint32_t i = sizeof(a->attr); i < size; i++)
		if (extra[i])
			return -QPT_E_UNSUPPORTED;
	/* pipe mode: one HEADER_ATTR record holds the attr and its ids */
	if (nr_ids > (QPT_RECORD_MAX - 8 - sizeof(a->attr)) / 8)
		return -QPT_E_INVAL;
	if (w->nr_attrs == w->cap_attrs) {
		size_t cap = w->cap_attrs ? 2 * w->cap_attrs : 8;

		n = realloc(w->attrs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->attrs = n;
		w->cap_attrs = cap;
	}
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, size < sizeof(a->attr) ? size : sizeof(a->attr));
	a->attr.size = sizeof(a->attr);
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids)
			return -ENOMEM;
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	}
	a->nr_ids = nr_ids;
	if (name) {
		a->name = strdup(name);
		if (!a->name) {
			free(a->ids);
			return -ENOMEM;
		}
	}
	w->nr_attrs++;
	return 0;
}

static int prologue_file(struct qpt_writer *w)
{
	struct qpt_file_section ids;
	uint64_t *ids_off;
	size_t i;
	int err = 0;

	ids_off = calloc(w->nr_attrs + 1, sizeof(*ids_off));
	if (!ids_off)
		return -ENOMEM;
	for (i = 0; i < w->nr_attrs && !err; i++) {
		ids_off[i] = w->pos;
		err = qpt_writer_emit(w, w->attrs[i].ids,
				      w->attrs[i].nr_ids * sizeof(uint64_t));
	}
	w->attrs_offset = w->pos;
	for (i = 0; i < w->nr_attrs && !err; i++) {
		ids.offset = ids_off[i];
		ids.size = w->attrs[i].nr_ids * sizeof(uint64_t);
		err = qpt_writer_emit(w, &w->attrs[i].attr,
				      sizeof(w->attrs[i].attr));
		if (!err)
			err = qpt_writer_emit(w, &ids, sizeof(ids));
	}
	free(ids_off);
	if (err)
		return err;
	w->data_offset = w->pos;
	w->mark = w->pos;
	w->prologue = true;
	err = qpt_writer_out_drain(w);
	if (!err)
		err = qpt_writer_write_header(w, 0, NULL);
	return qpt_writer_fail(w, err);
}

static int emit_build_ids(struct qpt_writer *w)
{
	int err;

	if (w->build_ids_sent == w->build_ids.len)
		return 0;
	err = qpt_writer_emit(w, w->build_ids.data + w->build_ids_sent,
			      w->build_ids.len - w->build_ids_sent);
	if (err)
		return err;
	w->build_ids_sent = w->build_ids.len;
	return 0;
}

static int prologue_pipe(struct qpt_writer *w)
{
	struct perf_event_header h;
	size_t i;
	int err;

	for (i = 0; i < w->nr_attrs; i++) {
		const struct qpt_writer_attr *a = &w->attrs[i];

		h.type = QPT_RECORD_HEADER_ATTR;
		h.misc = 0;
		h.size = (uint16_t)(sizeof(h) + sizeof(a->attr) +
				    a->nr_ids * sizeof(uint64_t));
		err = qpt_writer_emit(w, &h, sizeof(h));
		if (!err)
			err = qpt_writer_emit(w, &a->attr, sizeof(a->attr));
		if (!err)
			err = qpt_writer_emit(w, a->ids,
					      a->nr_ids * sizeof(uint64_t));
		if (err)
			return err;
	}
	w->prologue = true;
	err = qpt_writer_feat_records(w);
	if (!err)
		err = emit_build_ids(w);
	return err;
}

static int ensure_prologue(struct qpt_writer *w)
{
	if (w->err)
		return w->err;
	if (w->closed)
		return -QPT_E_STATE;
	if (w->prologue)
		return 0;
	return w->pipe ? prologue_pipe(w) : prologue_file(w);
}

/* Pipe mode, after the prologue: what the writer adds later goes out as
 * records of its own, behind whatever is queued for compression. */
static int pipe_late(struct qpt_writer *w)
{
	if (!w->pipe || !w->prologue || w->closed)
		return 0;
	return w->z ? qpt_wzstd_flush(w) : 0;
}

/* Feature @feat's bytes are set: in pipe mode after the prologue they go
 * out at once, as a HEADER_FEATURE record. */
static int feature_set(struct qpt_writer *w, unsigned feat)
{
	int err;

	w->has_feat[feat] = true;
	err = pipe_late(w);
	if (!err && w->pipe && w->prologue)
		err = qpt_writer_feat_record(w, feat);
	return err;
}

/* Build-ids were added: in pipe mode after the prologue they go out at
 * once, as records. */
static int build_ids_added(struct qpt_writer *w)
{
	int err = pipe_late(w);

	if (!err && w->pipe && w->prologue)
		err = emit_build_ids(w);
	return err;
}

int qpt_writer_set_feature_string(struct qpt_writer *w, enum qpt_feature feat,
				  const char *value)
{
	struct qpt_wbuf *b;
	int err;

	if (!w || !value || !qpt_feature_is_string(feat))
		return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	b = &w->feat[feat];
	b->len = 0;
	err = qpt_wbuf_add_string(b, value);
	if (err)
		return err;
	return feature_set(w, feat);
}

int qpt_writer_set_cmdline(struct qpt_writer *w, int argc,
			   const char *const argv[])
{
	struct qpt_wbuf *b;
	int i, err;

	if (!w || argc < 0 || (argc && !argv))
		return -QPT_E_INVAL;
	for (i = 0; i < argc; i++)
		if (!argv[i])
			return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	b = &w->feat[QPT_FEAT_CMDLINE];
	b->len = 0;
	if (argc)
		err = qpt_feat_encode_cmdline(b, argv[0], argc - 1, argv + 1);
	else
		err = qpt_wbuf_add_u32(b, 0);
	if (err)
		return err;
	return feature_set(w, QPT_FEAT_CMDLINE);
}

int qpt_writer_set_cpu_pmu_caps(struct qpt_writer *w,
				const struct qpt_pmu_cap *caps, size_t n)
{
	struct qpt_wbuf *b;
	size_t i;
	int err;

	if (!w || (n && !caps) || n > UINT32_MAX)
		return -QPT_E_INVAL;
	for (i = 0; i < n; i++)
		if (!caps[i].name || !caps[i].value)
			return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	b = &w->feat[QPT_FEAT_CPU_PMU_CAPS];
	b->len = 0;
	err = qpt_wbuf_add_u32(b, (uint32_t)n);
	for (i = 0; i < n && !err; i++) {
		err = qpt_wbuf_add_string(b, caps[i].name);
		if (!err)
			err = qpt_wbuf_add_string(b, caps[i].value);
	}
	return err ? err : feature_set(w, QPT_FEAT_CPU_PMU_CAPS);
}

/* Check a run of build_id_event records: each within the run, each at
 * least a build_id_event. */
static bool build_ids_valid(const uint8_t *p, size_t size)
{
	struct perf_event_header h;

	while (size) {
		if (size < sizeof(h))
			return false;
		memcpy(&h, p, sizeof(h));
		if (h.size < QPT_BUILD_ID_EVENT_SIZE || h.size > size)
			return false;
		p += h.size;
		size -= h.size;
	}
	return true;
}

/* Append a checked run of build_id_event records.  perf's file-mode table
 * leaves header.type 0; as records (pipe mode) they must say what they are.
 */
static int add_build_ids(struct qpt_writer *w, const uint8_t *p, size_t size)
{
	struct qpt_wbuf *b = &w->build_ids;
	size_t start = b->len, off = 0;
	uint32_t type = QPT_RECORD_HEADER_BUILD_ID;
	uint16_t len;
	int err;

	err = qpt_wbuf_add(b, p, size);
	if (err)
		return err;
	while (off < size) {
		memcpy(b->data + start + off, &type, sizeof(type));
		memcpy(&len, b->data + start + off + 6, sizeof(len));
		off += len;
	}
	return 0;
}

int qpt_writer_set_feature_raw(struct qpt_writer *w, enum qpt_feature feat,
			       const void *data, size_t size)
{
	struct qpt_wbuf *b;
	int err;

	if (!w || (size && !data) || feat <= QPT_FEAT_RESERVED ||
	    (feat >= QPT_FEAT_LAST && feat != QPT_FEAT_QPT_CRASH) ||
	    feat == QPT_FEAT_AUXTRACE ||
	    feat == QPT_FEAT_COMPRESSED)
		return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	if (feat == QPT_FEAT_BUILD_ID) {
		/* Build-ids are records: they join those of add_build_id. */
		if (!build_ids_valid(data, size))
			return -QPT_E_FORMAT;
		err = add_build_ids(w, data, size);
		return err ? err : build_ids_added(w);
	}
	b = &w->feat[feat];
	b->len = 0;
	err = qpt_wbuf_add(b, data, size);
	if (err)
		return err;
	return feature_set(w, feat);
}

int qpt_writer_add_build_id(struct qpt_writer *w, int32_t pid,
			    const uint8_t *build_id, size_t len,
			    const char *filename, uint16_t misc)
{
	int err;

	if (!w || !filename || (len && !build_id) || len > QPT_BUILD_ID_MAX)
		return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	err = qpt_feat_encode_build_id(&w->build_ids, pid, build_id, len,
				       filename, misc);
	return err ? err : build_ids_added(w);
}

static bool type_is_writers_own(uint32_t type)
{
	switch (type) {
	case QPT_RECORD_HEADER_ATTR:
	case QPT_RECORD_AUXTRACE:
	case QPT_RECORD_HEADER_FEATURE:
	case QPT_RECORD_COMPRESSED:
	case QPT_RECORD_COMPRESSED2:
		return true;
	default:
		return false;
	}
}

int qpt_writer_write(struct qpt_writer *w, const void *record)
{
	struct perf_event_header h;
	int err;

	if (!w || !record)
		return -QPT_E_INVAL;
	memcpy(&h, record, sizeof(h));
	if (h.size < sizeof(h) || type_is_writers_own(h.type))
		return -QPT_E_INVAL;
	err = ensure_prologue(w);
	if (err)
		return err;
	if (w->z && h.type < QPT_RECORD_HEADER_ATTR)
		return qpt_wzstd_add(w, record, h.size);
	/* perf's own types (AUXTRACE_INFO, TIME_CONV, FINISHED_ROUND, ...)
	 * stay out of COMPRESSED records, behind what is queued, as perf
	 * record writes them: perf inject passes COMPRESSED records on
	 * unread, and without the AUXTRACE_INFO it has no trace to decode */
	if (w->z)
		err = qpt_wzstd_flush(w);
	return err ? err : qpt_writer_emit(w, record, h.size);
}

static int index_add(struct qpt_writer *w, uint64_t off)
{
	struct qpt_auxtrace_index_entry *n;

	if (w->nr_index == w->cap_index) {
		size_t cap = w->cap_index ? 2 * w->cap_index : 256;

		n = realloc(w->index, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		w->index = n;
		w->cap_index = cap;
	}
	w->index[w->nr_index].file_offset = off;
	w->index[w->nr_index].sz = sizeof(struct qpt_record_auxtrace);
	w->nr_index++;
	return 0;
}

/* The payload straight to the descriptor, without a copy. */
static int auxtrace_payload_direct(struct qpt_writer *w,
				   const struct iovec *iov, int iovcnt,
				   const void *pad, size_t pad_len,
				   uint64_t total)
{
	struct iovec *v;
	int err;

	v = calloc((size_t)iovcnt + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, iov, (size_t)iovcnt * sizeof(*v));
	v[iovcnt].iov_base = (void *)pad;
	v[iovcnt].iov_len = pad_len;
	err = qpt_writer_out_drain(w);
	if (!err)
		err = qpt_writer_before_data(w);
	if (!err)
		err = qpt_writer_write_iov(w, v, iovcnt + 1, w->pos);
	free(v);
	if (err)
		return qpt_writer_fail(w, err);
	w->pos += total;
	qpt_writer_note_high(w, w->pos);
	return 0;
}

int qpt_writer_write_auxtrace(struct qpt_writer *w,
			      const struct qpt_record_auxtrace *hdr,
			      const struct iovec *iov, int iovcnt)
{
	static const uint8_t zero[8];
	struct qpt_record_auxtrace rec;
	uint64_t total = 0, padded;
	size_t pad;
	int i, err;

	if (!w || !hdr || iovcnt < 0 || (iovcnt && !iov))
		return -QPT_E_INVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -QPT_E_INVAL;
		if (total + iov[i].iov_len < total)
			return -QPT_E_INVAL;
		total += iov[i].iov_len;
	}
	pad = (size_t)((8 - (total & 7)) & 7);
	padded = total + pad;
	if (padded < total)
		return -QPT_E_INVAL;
	if (hdr->size && hdr->size != total && hdr->size != padded)
		return -QPT_E_INVAL;
	err = ensure_prologue(w);
	if (!err && w->z)
		err = qpt_wzstd_flush(w);
	if (err)
		return err;

	rec = *hdr;
	rec.header.type = QPT_RECORD_AUXTRACE;
	rec.header.misc = 0;
	rec.header.size = sizeof(rec);
	rec.size = padded;
	rec.reserved__ = 0;
	if (!w->pipe) {
		err = index_add(w, w->pos);
		if (err)
			return err;
	}
	err = qpt_writer_emit(w, &rec, sizeof(rec));
	if (err)
		return err;
	if (padded >= QPT_OUT_CAP / 2)
		return auxtrace_payload_direct(w, iov, iovcnt, zero, pad,
					       padded);
	for (i = 0; i < iovcnt && !err; i++)
		err = qpt_writer_emit(w, iov[i].iov_base, iov[i].iov_len);
	if (!err)
		err = qpt_writer_emit(w, zero, pad);
	return err;
}

static int flush(struct qpt_writer *w, bool last)
{
	int err;

	err = ensure_prologue(w);
	if (!err && w->z)
		err = qpt_wzstd_flush(w);
	if (!err)
		err = qpt_writer_out_drain(w);
	if (!err && !w->pipe)
		err = qpt_writer_write_features(w, last);
	return err;
}

int qpt_writer_flush(struct qpt_writer *w)
{
	return w ? flush(w, false) : -QPT_E_INVAL;
}

uint64_t qpt_writer_bytes(const struct qpt_writer *w)
{
	return w ? w->pos : 0;
}

int qpt_writer_close(struct qpt_writer *w)
{
	int err;

	if (!w)
		return -QPT_E_INVAL;
	err = flush(w, true);
	if (err)
		return err;
	w->closed = true;
	/* Nothing lies past the end; should the file have been longer. */
	if (!w->pipe && w->high > w->file_end &&
	    ftruncate(w->fd, (off_t)w->file_end) && errno != EINVAL)
		return qpt_writer_fail(w, -errno);
	if (w->own_fd) {
		w->own_fd = false;
		if (close(w->fd) && errno != EINTR)
			return qpt_writer_fail(w, -errno);
	}
	return 0;
}

void qpt_writer_free(struct qpt_writer *w)
{
	size_t i;

	if (!w)
		return;
	if (w->own_fd)
		close(w->fd);
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (i = 0; i < QPT_HEADER_FEAT_BITS; i++)
		qpt_wbuf_release(&w->feat[i]);
	qpt_wbuf_release(&w->build_ids);
	qpt_wbuf_release(&w->out);
	free(w->index);
	qpt_wzstd_free(w->z);
	free(w->name);
	free(w);
}
