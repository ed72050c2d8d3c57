// SPDX-License-Identifier: MIT
/* Unlinked temporary files (tmpfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "auxfmt/tmpfile.h"

const char *qpt_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int qpt_tmpfile(void)
{
	const char *dir = qpt_tmpdir();
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	/* a file system without O_TMPFILE */
	if (snprintf(path, sizeof(path), "%s/qpt-tmp-XXXXXX", dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int qpt_tmpfile_put(int fd, const void *buf, uint64_t n, uint64_t off)
{
	const uint8_t *p = buf;

	while (n) {
		size_t k = n < (1u << 30) ? (size_t)n : 1u << 30;
		ssize_t got = pwrite(fd, p, k, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		p += got;
		off += (uint64_t)got;
		n -= (uint64_t)got;
	}
	return 0;
}
