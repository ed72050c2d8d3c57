// SPDX-License-Identifier: MIT
/* Adding to perf's build-id cache, in perf's layout. */
#include "capture/buildid_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p @path (modified while working, restored). */
static int mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* Write @path through a temporary file renamed into place, unless it is
 * there already. */
static int put_file(const char *path, const void *buf, size_t len)
{
	char *tmp;
	int fd, err = 0;

	if (!access(path, F_OK))
		return 0;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (write(fd, buf, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && (fchmodat(AT_FDCWD, tmp, 0644, 0) || rename(tmp, path)))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	return err;
}

int qpt_buildid_cache_add(const char *dir, const char *name, const char *base,
			  const uint8_t *bid, size_t bid_len, const void *buf,
			  size_t len, char **path)
{
	char hex[41], *entry = NULL, *file = NULL, *link = NULL, *target = NULL;
	size_t i;
	int err;

	if (!bid_len || bid_len > 20 || !dir[0])
		return -EINVAL;
	for (i = 0; i < bid_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	if (asprintf(&entry, "%s%s%s/%s", dir, name[0] == '/' ? "" : "/", name,
		     hex) < 0 ||
	    asprintf(&file, "%s/%s", entry, base) < 0 ||
	    asprintf(&link, "%s/.build-id/%.2s", dir, hex) < 0 ||
	    asprintf(&target, "../..%s%s/%s", name[0] == '/' ? "" : "/", name,
		     hex) < 0) {
		err = -ENOMEM;
		goto out;
	}
	err = mkdir_p(entry);
	if (!err)
		err = put_file(file, buf, len);
	if (!err)
		err = mkdir_p(link);
	if (err)
		goto out;
	free(entry);
	entry = link;
	link = NULL;
	if (asprintf(&link, "%s/%s", entry, hex + 2) < 0) {
		err = -ENOMEM;
		goto out;
	}
	if (symlink(target, link) && errno != EEXIST)
		err = -errno;
	if (!err && path) {
		*path = file;
		file = NULL;
	}
out:
	free(entry);
	free(file);
	free(link);
	free(target);
	return err;
}
