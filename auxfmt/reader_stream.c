// SPDX-License-Identifier: MIT
/*
 * Input that cannot be mapped (a pipe, a terminal, a socket): bytes are
 * read into a window as records need them.  A pipe-mode stream is read
 * incrementally, so records come out while the writer is still running; a
 * file-mode file arriving on a pipe is read whole (its header points
 * anywhere).  The window only grows when it is full of bytes actually
 * read, so its size stays within twice the input seen.
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

/* Start reading @fd: the pipe header decides between streaming and
 * reading the whole input. */
int qpt_stream_open(struct qpt_reader *r, int fd)
{
	uint64_t size;
	int err;

	r->fd = fd;
	r->stream = true;
	if ((err = fill(r, 0, 16)))
		return err;
	if (r->len >= 16) {
		memcpy(&size, r->owned + 8, 8);
		if (size == sizeof(struct qpt_pipe_header) ||
		    __builtin_bswap64(size) == sizeof(struct qpt_pipe_header))
			return 0; /* pipe mode: incremental */
	}
	err = fill(r, 0, UINT64_MAX);
	r->stream = false;
	r->random_access = true; /* all of it is in memory */
	r->buf = r->owned;
	return err;
}
