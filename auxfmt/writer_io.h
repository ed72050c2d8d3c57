/* SPDX-License-Identifier: MIT */
/*
 * The writer's output calls, a seam for tests that inject faults (short
 * writes, EINTR, EAGAIN, ENOSPC, EIO): the real ones are pwritev(2) at an
 * offset (file mode) and writev(2) at the stream's end (pipe mode).  The
 * recorder passes a test's seam on (capture/recorder.h).  Not installed.
 */
#ifndef QPT_AUXFMT_WRITER_IO_H
#define QPT_AUXFMT_WRITER_IO_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "qpt/writer.h"

struct qpt_writer_io {
	/* Write @cnt spans at @off (file mode) or at the end (@off < 0,
	 * pipe mode): the bytes written (possibly fewer), or -errno. */
	ssize_t (*write)(void *ctx, int fd, const struct iovec *iov, int cnt,
			 int64_t off);
	void *ctx;
};

/* qpt_writer_open with every write of the output through @io (borrowed
 * until qpt_writer_free; NULL: the real calls).  Returns as
 * qpt_writer_open. */
int qpt_writer_open_io(const char *path, const struct qpt_writer_opts *opts,
		       const struct qpt_writer_io *io,
		       struct qpt_writer **writer);

#endif /* QPT_AUXFMT_WRITER_IO_H */
