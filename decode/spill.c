// SPDX-License-Identifier: MIT
/*
 * Trace bytes that do not stay where the reader found them (an input read
 * from a pipe, a payload inside a COMPRESSED record) are kept in an
 * unlinked temporary file, in $TMPDIR or /tmp, and read back with pread
 * as a file input's are: a decode's memory does not grow with the trace,
 * whatever its input.  The file is made at the first bytes; where none
 * can be made, the caller keeps the bytes in memory instead.
 */
#include <errno.h>
#include <unistd.h>

#include "auxfmt/tmpfile.h"
#include "decode/session.h"

static int spill_open(struct qd_spill *sp)
{
	int fd = qpt_tmpfile();

	if (fd < 0)
		return fd;
	sp->fd = fd;
	sp->open = true;
	sp->len = 0;
	return 0;
}

int qd_spill_put(struct qd_spill *sp, const void *buf, uint64_t n,
		 uint64_t *pos)
{
	int err;

	if (sp->none)
		return 1;
	if (!sp->open && (err = spill_open(sp))) {
		sp->none = true; /* the caller keeps bytes in memory */
		return 1;
	}
	*pos = sp->len;
	err = qpt_tmpfile_put(sp->fd, buf, n, sp->len);
	if (!err)
		sp->len += n;
	return err;
}

void qd_spill_fini(struct qd_spill *sp)
{
	if (sp->open)
		close(sp->fd);
	sp->open = false;
}
