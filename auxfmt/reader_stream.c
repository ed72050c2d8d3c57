// SPDX-License-Identifier: MIT
/*
 * Input that cannot be mapped (a pipe, a terminal, a socket): bytes are
 * read into a window as records need them.  A pipe-mode stream is read
 * incrementally, so records come out while the writer is still running; a
 * file-mode file arriving on a pipe is read as far as its header and
 * sections name (they point anywhere), no further: into a temporary file
 * that is then mapped, or where none can be made into the window; an
 * unfinished one's records come incrementally.  Nothing is read past the
 * 16 bytes that hold the magic before it is checked.  The window only
 * grows when it is full of bytes actually read, so its size stays within
 * twice the input seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auxfmt/reader_internal.h"
#include "auxfmt/tmpfile.h"

/* Read until the window holds [pos, pos + n) or the input ends. */
static int fill(struct qpt_reader *r, uint64_t pos, uint64_t n)
{
	while (!r->eof && r->len - pos < n) {
		size_t used = (size_t)(r->len - r->win_off);
		ssize_t got;

		if (used == r->win_cap) {
			size_t cap = r->win_cap ? 2 * r->win_cap : 65536;
			uint8_t *nb = realloc(r->owned, cap);

			if (!nb)
				return -ENOMEM;
			r->owned = nb;
			r->win_cap = cap;
		}
		got = read(r->fd, r->owned + used, r->win_cap - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return qpt_reader_fail(r, r->len, -errno, "read: %s",
					       strerror(errno));
		if (got == 0)
			r->eof = true;
		r->len += (uint64_t)got;
	}
	r->buf = r->owned;
	return 0;
}

int qpt_stream_view(struct qpt_reader *r, uint64_t pos, uint64_t n,
		    const uint8_t **p)
{
	int err;

	if (!r->stream) {
		if (pos > r->data_end || n > r->data_end - pos)
			return 1;
		*p = r->buf + pos;
		return 0;
	}
	if ((err = fill(r, pos, n)))
		return err;
	if (r->len - pos < n)
		return 1;
	*p = r->owned + (pos - r->win_off);
	return 0;
}

uint64_t qpt_stream_avail(const struct qpt_reader *r, uint64_t pos)
{
	uint64_t end = r->stream ? r->len : r->data_end;

	return pos < end ? end - pos : 0;
}

/* Drop the bytes before @pos: nothing before the next record is used. */
void qpt_stream_consume(struct qpt_reader *r, uint64_t pos)
{
	size_t drop;

	if (!r->stream || pos <= r->win_off)
		return;
	drop = (size_t)(pos - r->win_off);
	memmove(r->owned, r->owned + drop, (size_t)(r->len - pos));
	r->win_off = pos;
}

int qpt_stream_need(struct qpt_reader *r, uint64_t end)
{
	return end > r->len ? fill(r, 0, end) : 0;
}

/* Start reading @fd: 16 bytes tell the magic and the mode.  A pipe-mode
 * stream is then read record by record; file mode reads what its header
 * names (reader_file.c). */
int qpt_stream_open(struct qpt_reader *r, int fd)
{
	r->fd = fd;
	r->stream = true;
	return fill(r, 0, 16);
}

int qpt_stream_spool(struct qpt_reader *r, uint64_t end)
{
	int err = 0;

	if (r->spool_fd < 0) {
		int fd = qpt_tmpfile();

		if (fd < 0)
			return 1;
		r->spool_fd = fd;
		/* what the window holds: nothing is consumed yet */
		r->spool_len = r->len - r->win_off;
		err = qpt_tmpfile_put(fd, r->owned, r->spool_len, 0);
	}
	while (!err && !r->eof && r->spool_len < end) {
		size_t want = r->win_cap;
		ssize_t got;

		if (end - r->spool_len < want)
			want = (size_t)(end - r->spool_len);
		got = read(r->fd, r->owned, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = -errno;
		else if (!got)
			r->eof = true;
		else if (!(err = qpt_tmpfile_put(r->spool_fd, r->owned,
						 (uint64_t)got, r->spool_len)))
			r->spool_len += (uint64_t)got;
	}
	if (err)
		return qpt_reader_fail(r, r->spool_len, err,
				       "copying the input into a temporary"
				       " file in %s: %s",
				       qpt_tmpdir(), strerror(-err));
	return 0;
}

int qpt_stream_spool_read(struct qpt_reader *r, uint64_t off, void *buf,
			  size_t n)
{
	if (off > r->spool_len || n > r->spool_len - off)
		return 1;
	return pread(r->spool_fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : 1;
}

int qpt_stream_spool_map(struct qpt_reader *r)
{
	void *map = mmap(NULL, (size_t)r->spool_len, PROT_READ, MAP_PRIVATE,
			 r->spool_fd, 0);

	if (map == MAP_FAILED)
		return qpt_reader_fail(r, 0, -errno, "mmap: %s",
				       strerror(errno));
	free(r->owned);
	r->owned = NULL;
	r->win_cap = 0;
	r->win_off = 0;
	r->map = map;
	r->buf = map;
	r->len = r->spool_len;
	r->stream = false;
	r->random_access = true;
	r->data_fd = r->spool_fd;
	return 0;
}
