// SPDX-License-Identifier: MIT
/*
 * Input that cannot be mapped (a pipe, a terminal, a socket): bytes are
 * read into a window as records need them.  A pipe-mode stream is read
 * incrementally, so records come out while the writer is still running; a
 * file-mode file arriving on a pipe is read as far as its header and
 * sections name (they point anywhere), no further; an unfinished one's
 * records then come incrementally too.  Nothing is read past the 16 bytes
 * that hold the magic before it is checked.  The window only grows when it
 * is full of bytes actually read, so its size stays within twice the input
 * seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/reader_internal.h"

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
