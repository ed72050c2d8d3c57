// SPDX-License-Identifier: MIT
/*
 * The writer's output: a buffer in front of the descriptor (pwrite at known
 * offsets in file mode, write in pipe mode), the file header, and where a
 * flush puts the features in file mode.
 *
 * A flush writes the features after the data written so far and rewrites
 * the header to cover them.  Later data then either goes past those
 * features (a gap), so that until the next flush the file on disk reads as
 * the flush left it, and the next flush (or close) makes the header let go
 * of them and covers the gap with HEADER_EVENT_TYPE records, which perf
 * skips; or, when a gap would waste much, overwrites them once the header
 * has let go of them (qpt_writer_write_features).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/writer_io.h"
#include "auxfmt/writer_priv.h"

/* Tries in a row that write nothing (EINTR, EAGAIN) before giving up. */
#define OUT_RETRIES 64

/* One write of the output (the test seam's, or the system's): the bytes
 * written or -errno. */
static ssize_t out_write(struct qpt_writer *w, const struct iovec *iov,
			 int cnt, uint64_t off)
{
	ssize_t n;

	if (w->io)
		return w->io->write(w->io->ctx, w->fd, iov, cnt,
				    w->pipe ? -1 : (int64_t)off);
	if (w->pipe)
		n = writev(w->fd, iov, cnt);
	else
		n = pwritev(w->fd, iov, cnt, (off_t)off);
	return n < 0 ? -errno : n;
}

/*
 * Write all of @iov at @off (file mode) or at the stream's end (pipe
 * mode).  @iov is consumed.  A short write goes on from where it stopped;
 * an interrupted one is tried again, and one that would block (an output
 * set non-blocking by whoever shares it) waits for room first, each up to
 * OUT_RETRIES times in a row.
 */
int qpt_writer_write_iov(struct qpt_writer *w, struct iovec *iov, int cnt,
			 uint64_t off)
{
	struct pollfd pfd = {.fd = w->fd, .events = POLLOUT};
	unsigned int idle = 0;

	while (cnt > 0) {
		int n_iov = cnt < IOV_MAX ? cnt : IOV_MAX;
		ssize_t n = out_write(w, iov, n_iov, off);

		if ((n == -EINTR || n == -EAGAIN) && ++idle < OUT_RETRIES) {
			if (n == -EAGAIN && poll(&pfd, 1, -1) < 0 &&
			    errno != EINTR)
				return -errno;
			continue;
		}
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EIO;
		idle = 0;
		off += (uint64_t)n;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int qpt_writer_write_at(struct qpt_writer *w, const void *data, size_t len,
			uint64_t off)
{
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};

	return qpt_writer_write_iov(w, &iov, 1, off);
}

int qpt_writer_fail(struct qpt_writer *w, int err)
{
	if (err < 0 && !w->err)
		w->err = err;
	return err;
}

int qpt_writer_write_header(struct qpt_writer *w, uint64_t data_size,
			    const uint64_t bits[4])
{
	struct qpt_file_header h;

	memset(&h, 0, sizeof(h));
	h.magic = QPT_PERF_MAGIC2;
	h.size = QPT_FILE_HEADER_SIZE;
	h.attr_size = QPT_ATTR_ENTRY_SIZE;
	h.attrs.offset = w->attrs_offset;
	h.attrs.size = w->prologue ? w->nr_attrs * QPT_ATTR_ENTRY_SIZE : 0;
	h.data.offset = w->data_offset;
	h.data.size = data_size;
	if (bits)
		memcpy(h.adds_features, bits, sizeof(h.adds_features));
	return qpt_writer_write_at(w, &h, sizeof(h), 0);
}

/*
 * Data is about to reach the disk where a flush left its features (those
 * it did not keep past a gap): first the header lets go of them.
 */
int qpt_writer_before_data(struct qpt_writer *w)
{
	int err;

	if (!w->feat_on_disk)
		return 0;
	err = qpt_writer_write_header(w, w->flushed_end - w->data_offset, NULL);
	if (err)
		return err;
	w->feat_on_disk = false;
	return 0;
}

void qpt_writer_note_high(struct qpt_writer *w, uint64_t end)
{
	if (end > w->high)
		w->high = end;
}

/* Put the buffered output on disk. */
int qpt_writer_out_drain(struct qpt_writer *w)
{
	uint64_t off = w->pos - w->out.len;
	int err;

	if (!w->out.len)
		return 0;
	err = qpt_writer_before_data(w);
	if (!err)
		err = qpt_writer_write_at(w, w->out.data, w->out.len, off);
	if (err)
		return qpt_writer_fail(w, err);
	qpt_writer_note_high(w, w->pos);
	w->out.len = 0;
	return 0;
}

int qpt_writer_out_reserve(struct qpt_writer *w, size_t len, uint8_t **p)
{
	int err;

	if (w->out.cap - w->out.len < len) {
		err = qpt_writer_out_drain(w);
		if (err)
			return err;
	}
	err = qpt_wbuf_reserve(&w->out, len);
	if (err)
		return err;
	*p = w->out.data + w->out.len;
	return 0;
}

void qpt_writer_out_commit(struct qpt_writer *w, size_t used)
{
	w->out.len += used;
	w->pos += used;
}

int qpt_writer_emit(struct qpt_writer *w, const void *data, size_t len)
{
	uint8_t *p;
	int err;

	if (!len)
		return 0;
	if (len >= QPT_OUT_CAP) {
		err = qpt_writer_out_drain(w);
		if (!err)
			err = qpt_writer_before_data(w);
		if (!err)
			err = qpt_writer_write_at(w, data, len, w->pos);
		if (err)
			return qpt_writer_fail(w, err);
		w->pos += len;
		qpt_writer_note_high(w, w->pos);
		return 0;
	}
	err = qpt_writer_out_reserve(w, len, &p);
	if (err)
		return err;
	memcpy(p, data, len);
	qpt_writer_out_commit(w, len);
	return 0;
}

/*
 * The gap an earlier flush left: EVENT_TYPE records (perf's deprecated
 * type, which it skips) over the features that lay there, so the data
 * reads through.  First the header lets go of those features.
 */
static int fill_gap(struct qpt_writer *w)
{
	struct perf_event_header h = {QPT_RECORD_HEADER_EVENT_TYPE, 0, 0};
	uint64_t off = w->gap_start, end = w->gap_start + w->gap_len;
	uint8_t *zero;
	int err;

	if (!w->gap_len)
		return 0;
	err = qpt_writer_write_header(w, w->gap_start - w->data_offset, NULL);
	if (err)
		return qpt_writer_fail(w, err);
	zero = calloc(1, QPT_GAP_RECORD_MAX);
	if (!zero)
		return -ENOMEM;
	while (!err && off < end) {
		size_t len = end - off < QPT_GAP_RECORD_MAX
				 ? end - off
				 : QPT_GAP_RECORD_MAX;

		h.size = (uint16_t)len;
		memcpy(zero, &h, sizeof(h));
		err = qpt_writer_write_at(w, zero, len, off);
		off += len;
	}
	free(zero);
	if (err)
		return qpt_writer_fail(w, err);
	w->gap_len = 0;
	return 0;
}

/*
 * File mode: the features after the data, then the header that covers
 * them.  Unless @last, the features stay until the next flush: later data
 * goes past them (a gap) when there was much data since the last flush
 * (little waste) or when compressing (perf needs the COMPRESSED feature to
 * read anything); else later data overwrites them, after the header has
 * let go of them.
 */
int qpt_writer_write_features(struct qpt_writer *w, bool last)
{
	uint64_t bits[4], len, index_max = UINT64_MAX;
	uint64_t since = w->pos - w->mark;
	struct qpt_wbuf b = {0};
	bool keep;
	int err;

	err = fill_gap(w);
	if (!err)
		err = qpt_writer_before_data(w); /* rewritten in place */
	if (err)
		goto out;
	if (!last) {
		index_max = since / QPT_GAP_RATIO;
		if (index_max < QPT_FLUSH_INDEX_MIN)
			index_max = QPT_FLUSH_INDEX_MIN;
	}
	err = qpt_writer_feat_block(w, w->pos, &b, bits, index_max);
	if (err)
		goto out;
	keep = !last && b.len && (w->z || since >= QPT_GAP_RATIO * b.len);
	len = keep ? (b.len + 7) & ~(size_t)7 : b.len;
	err = qpt_wbuf_add(&b, NULL, len - b.len);
	if (!err && b.len)
		err = qpt_writer_write_at(w, b.data, b.len, w->pos);
	if (!err)
		err = qpt_writer_write_header(w, w->pos - w->data_offset, bits);
	if (err)
		goto out;
	qpt_writer_note_high(w, w->pos + len);
	w->file_end = w->pos + len;
	if (keep) {
		w->gap_start = w->pos;
		w->gap_len = len;
		w->pos += len;
	} else if (!last && len) {
		w->feat_on_disk = true;
		w->flushed_end = w->pos;
	}
	w->mark = w->pos;
out:
	qpt_wbuf_release(&b);
	return qpt_writer_fail(w, err);
}
