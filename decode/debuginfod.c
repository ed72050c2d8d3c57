// SPDX-License-Identifier: MIT
/*
 * Images found by build-id through debuginfod servers (elfutils'
 * libdebuginfod), as gdb and perf find them: only where DEBUGINFOD_URLS
 * names servers (qpt decode --debuginfod sets it); the client and its
 * cache ($XDG_CACHE_HOME/debuginfod_client, DEBUGINFOD_CACHE_PATH) are
 * libdebuginfod's.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "decode/internal.h"

int qd_debuginfod_find(struct qd_files *files, const uint8_t *bid,
		       size_t bid_size, char **path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	*path = NULL;
	if (!urls || !*urls || !bid_size)
		return -ENOENT;
	if (!files->debuginfod) {
		files->debuginfod = debuginfod_begin();
		if (!files->debuginfod)
			return -ENOMEM;
	}
	fd = debuginfod_find_executable(files->debuginfod, bid, (int)bid_size,
					path);
	if (fd < 0) {
		*path = NULL;
		return fd == -ENOMEM ? -ENOMEM : -ENOENT;
	}
	close(fd);
	return 0;
}

void qd_debuginfod_end(struct qd_files *files)
{
	if (files->debuginfod)
		debuginfod_end(files->debuginfod);
	files->debuginfod = NULL;
}
