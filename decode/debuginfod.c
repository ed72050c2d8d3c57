// SPDX-License-Identifier: MIT
/*
 * Images found by build-id through debuginfod servers (elfutils'
 * libdebuginfod), as gdb and perf find them: only where DEBUGINFOD_URLS
 * names servers (qpt decode --debuginfod sets it); the client and its
 * cache ($XDG_CACHE_HOME/debuginfod_client, DEBUGINFOD_CACHE_PATH) are
 * libdebuginfod's.
 *
 * libdebuginfod is loaded at its first use, as elfutils' own libdwfl loads
 * it: linked in, it brings libcurl, GnuTLS, Kerberos and LDAP (some 30
 * libraries), whose relocation and constructors were most of the work of
 * every qpt run that never asks a server (15M of the 43M instructions of
 * `qpt decode --branches` on a small trace).  Loaded once per process and
 * never unloaded (its libraries keep global state).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "decode/internal.h"

#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

/* The entry points of libdebuginfod, once it is loaded (NULL: it is not). */
static struct {
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int,
			       char **);
	void (*end)(debuginfod_client *);
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.find_executable =
		dlsym(h, "debuginfod_find_executable");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	if (!lib.begin || !lib.find_executable || !lib.end) {
		lib.begin = NULL;
		dlclose(h);
	}
}

int qd_debuginfod_find(struct qd_files *files, const uint8_t *bid,
		       size_t bid_size, char **path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	*path = NULL;
	if (!urls || !*urls || !bid_size)
		return -ENOENT;
	if (!files->debuginfod) {
		pthread_once(&lib_once, lib_load);
		if (!lib.begin) /* no client library: as no server */
			return -ENOENT;
		files->debuginfod = lib.begin();
		if (!files->debuginfod)
			return -ENOMEM;
	}
	fd = lib.find_executable(files->debuginfod, bid, (int)bid_size, path);
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
		lib.end(files->debuginfod);
	files->debuginfod = NULL;
}
