// SPDX-License-Identifier: MIT
/*
 * Perfmon buffers in files: the input (a regular file mapped, anything
 * else read whole) and the writer (records gathered in memory, written
 * with their header at save).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auxfmt/perfmon_priv.h"
#include "auxfmt/writer_priv.h"

void qpt_perfmon_free(struct qpt_perfmon *pm)
{
	if (!pm)
		return;
	if (pm->map)
		munmap(pm->map, pm->map_len);
	free(pm->own);
	free(pm);
}

static int finish_open(struct qpt_perfmon *pm, struct qpt_perfmon **out)
{
	int err = qpt_perfmon_start(pm);

	*out = pm;
	return err;
}

int qpt_perfmon_open_mem(const void *buf, size_t len, struct qpt_perfmon **out)
{
	struct qpt_perfmon *pm;

	if (!out || (!buf && len))
		return -QPT_E_INVAL;
	*out = NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->buf = buf ? buf : (const uint8_t *)"";
	pm->len = len;
	return finish_open(pm, out);
}

/* Read all of @fd into pm->own. */
static int slurp(struct qpt_perfmon *pm, int fd)
{
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL, *n;
	ssize_t got;

	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			n = realloc(buf, cap);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -errno;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	pm->own = buf;
	pm->buf = buf ? buf : (const uint8_t *)"";
	pm->len = len;
	return 0;
}

static int load(struct qpt_perfmon *pm, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return slurp(pm, fd);
	if (!st.st_size) {
		pm->buf = (const uint8_t *)"";
		return 0;
	}
	pm->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (pm->map == MAP_FAILED) {
		pm->map = NULL;
		return -errno;
	}
	pm->map_len = (size_t)st.st_size;
	pm->buf = pm->map;
	pm->len = pm->map_len;
	return 0;
}

int qpt_perfmon_open(const char *path, struct qpt_perfmon **out)
{
	struct qpt_perfmon *pm;
	int fd, err;

	if (!path || !out)
		return -QPT_E_INVAL;
	*out = NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		err = -errno;
		free(pm);
		return err;
	}
	err = load(pm, fd);
	if (fd)
		close(fd);
	if (err) {
		qpt_perfmon_free(pm);
		return err;
	}
	return finish_open(pm, out);
}

struct qpt_perfmon_writer {
	struct qpt_perfmon_header hdr;
	struct qpt_wbuf b; /* the header and the records */
};

int qpt_perfmon_writer_new(const struct qpt_perfmon_header *h,
			   struct qpt_perfmon_writer **out)
{
	struct qpt_perfmon_writer *w;

	if (!h || !out || h->version)
		return -QPT_E_INVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->hdr = *h;
	w->hdr.capture_end = QPT_PERFMON_HEADER_SIZE;
	if (qpt_wbuf_add(&w->b, NULL, QPT_PERFMON_HEADER_SIZE)) {
		free(w);
		return -ENOMEM;
	}
	qpt_perfmon_encode_header(&w->hdr, w->b.data);
	*out = w;
	return 0;
}

void qpt_perfmon_writer_free(struct qpt_perfmon_writer *w)
{
	if (!w)
		return;
	qpt_wbuf_release(&w->b);
	free(w);
}

int qpt_perfmon_writer_add(struct qpt_perfmon_writer *w,
			   const struct qpt_perfmon_record *rec)
{
	size_t size = qpt_perfmon_record_size(rec);

	if (!size)
		return -QPT_E_INVAL;
	if (qpt_wbuf_reserve(&w->b, size))
		return -ENOMEM;
	qpt_perfmon_encode_record(rec, w->b.data + w->b.len, size);
	w->b.len += size;
	w->hdr.capture_end = w->b.len;
	qpt_perfmon_encode_header(&w->hdr, w->b.data);
	return 0;
}

const void *qpt_perfmon_writer_data(const struct qpt_perfmon_writer *w,
				    size_t *len)
{
	*len = w->b.len;
	return w->b.data;
}

int qpt_perfmon_writer_save(const struct qpt_perfmon_writer *w,
			    const char *path)
{
	bool out = !strcmp(path, "-");
	int fd = out ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				0644);
	size_t done = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	while (done < w->b.len) {
		ssize_t n = write(fd, w->b.data + done, w->b.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		done += (size_t)n;
	}
	if (!out && close(fd) && !err)
		err = -errno;
	return err;
}
