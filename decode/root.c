// SPDX-License-Identifier: MIT
/*
 * Files a recording names, opened inside the sysroot (--sysroot, perf's
 * --symfs).  The names are untrusted: "..", absolute symlinks and symlink
 * loops resolve as if the sysroot were the root directory (as in a
 * chroot), so no name leads out of it.  openat2's RESOLVE_IN_ROOT does it
 * where the kernel has it (Linux 5.6); where it is absent (ENOSYS) or a
 * seccomp filter refuses it (EPERM), the same resolution one component at
 * a time (O_PATH | O_NOFOLLOW, readlinkat).  The path handed on (libipt
 * opens sections by name) is the file's own, free of symlinks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "decode/internal.h"

#define MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

/* @fd if it is a regular file, else closed: -QPT_E_UNSUPPORTED. */
static int only_regular(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -QPT_E_UNSUPPORTED;
	}
	return fd;
}

/*
 * Open @path read-only as a regular file: -errno, or -QPT_E_UNSUPPORTED for
 * anything else (a FIFO, device or directory).  O_NONBLOCK: opening a FIFO
 * must not wait for a writer that never comes; reads of regular files
 * ignore it.
 */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	return fd < 0 ? -errno : only_regular(fd);
}

/* A directory walked, and where its name ends in the walk's @rel. */
struct walk_dir {
	int fd;
	size_t len;
};

/* The directories walked from the root down (dirs[0] the root, not
 * owned), and @rel, the path so far. */
struct walk {
	struct walk_dir *dirs;
	size_t n, cap;
	char rel[PATH_MAX];
	size_t len;
};

static void walk_pop(struct walk *w)
{
	w->n--;
	close(w->dirs[w->n].fd);
	w->len = w->dirs[w->n - 1].len;
	w->rel[w->len] = '\0';
}

static int walk_push(struct walk *w, int fd, const char *name, size_t n)
{
	if (w->n == w->cap) {
		size_t nc = w->cap * 2;
		void *nd = realloc(w->dirs, nc * sizeof(*w->dirs));

		if (!nd)
			return -ENOMEM;
		w->dirs = nd;
		w->cap = nc;
	}
	if (w->len + 1 + n >= sizeof(w->rel))
		return -ENAMETOOLONG;
	w->rel[w->len++] = '/';
	memcpy(w->rel + w->len, name, n);
	w->len += n;
	w->rel[w->len] = '\0';
	w->dirs[w->n].fd = fd;
	w->dirs[w->n].len = w->len;
	w->n++;
	return 0;
}

/* *@s: symlink @fd's target, then "/" and @rest (malloc'd); -errno. */
static int expand_link(int fd, const char *rest, char **s)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(fd, "", target, sizeof(target));

	if (n < 0)
		return -errno;
	if (!n || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	if (asprintf(s, "%.*s/%s", (int)n, target, rest) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * Resolve @path under @w's root one component at a time as openat2's
 * RESOLVE_IN_ROOT does ("..", and a symlink's absolute target, from the
 * root), opening no component but as O_PATH | O_NOFOLLOW: 0 when the last
 * component is a regular file, @name in @w's innermost directory; or
 * -errno, -QPT_E_UNSUPPORTED when it is no regular file.
 */
static int walk_path(struct walk *w, const char *path, char *name)
{
	char *rest = strdup(path), *p = rest, *s;
	unsigned links = 0;
	struct stat st;
	int fd, err;
	size_t n;
	bool last;

	if (!rest)
		return -ENOMEM;
	for (;;) {
		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n) { /* the root itself, or a directory ("dir/") */
			err = -QPT_E_UNSUPPORTED;
			break;
		}
		if (n > NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		last = !p[strspn(p, "/")];
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (w->n > 1)
				walk_pop(w);
			continue;
		}
		fd = openat(w->dirs[w->n - 1].fd, name,
			    O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			break;
		}
		if (fstat(fd, &st)) {
			err = -errno;
			close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			err = ++links > MAX_LINKS ? -ELOOP
						  : expand_link(fd, p, &s);
			close(fd);
			if (err)
				break;
			free(rest);
			rest = p = s;
			while (*p == '/' && w->n > 1) /* from the root */
				walk_pop(w);
			continue;
		}
		if (last) {
			close(fd);
			err = S_ISREG(st.st_mode) ? 0 : -QPT_E_UNSUPPORTED;
			break;
		}
		err =
		    S_ISDIR(st.st_mode) ? walk_push(w, fd, name, n) : -ENOTDIR;
		if (err) {
			close(fd);
			break;
		}
	}
	free(rest);
	return err;
}

/* @path inside @root (@rfd) without openat2: walked by hand. */
static int open_walked(int rfd, const char *root, const char *path,
		       char **found)
{
	struct walk w = {.cap = 16};
	size_t top = strlen(root);
	char name[NAME_MAX + 1];
	int fd;

	while (top && root[top - 1] == '/')
		top--;

	w.dirs = malloc(w.cap * sizeof(*w.dirs));
	if (!w.dirs)
		return -ENOMEM;
	w.dirs[0].fd = rfd;
	w.dirs[0].len = 0;
	w.n = 1;
	fd = walk_path(&w, path, name);
	if (!fd) {
		fd = openat(w.dirs[w.n - 1].fd, name,
			    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		fd = fd < 0 ? -errno : only_regular(fd);
	}
	if (fd >= 0 && found &&
	    asprintf(found, "%.*s%s/%s", (int)top, root, w.rel, name) < 0) {
		*found = NULL;
		close(fd);
		fd = -ENOMEM;
	}
	while (w.n > 1)
		walk_pop(&w);
	free(w.dirs);
	return fd;
}

/* *@found: the path of @fd as the kernel tells it (/proc/self/fd), when it
 * lies inside @root's real path; false when it cannot be told. */
static bool fd_path(int fd, const char *root, char **found)
{
	char link[32], *path = malloc(PATH_MAX), *top = realpath(root, NULL);
	size_t t = top ? strlen(top) : 0;
	ssize_t n = -1;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (path && top)
		n = readlink(link, path, PATH_MAX);
	if (n > 0 && n < PATH_MAX) {
		path[n] = '\0';
		if (strncmp(path, top, t) || (t > 1 && path[t] != '/'))
			n = -1;
	}
	free(top);
	if (n <= 0 || n >= PATH_MAX) {
		free(path);
		return false;
	}
	*found = path;
	return true;
}

int qpt_sysroot_open(const char *sysroot, const char *path, char **found)
{
	struct open_how how = {
	    .flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int rfd, fd;

	if (found)
		*found = NULL;
	if (!sysroot) {
		fd = open_regular(path);
		if (fd >= 0 && found && !(*found = strdup(path))) {
			close(fd);
			return -ENOMEM;
		}
		return fd;
	}
	rfd = open(sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	fd = fd < 0 ? -errno : only_regular(fd);
	if (fd >= 0 && found && !fd_path(fd, sysroot, found)) {
		close(fd);
		fd = -ENOSYS; /* the walk tells the path */
	}
	/* no openat2 (before Linux 5.6), refused by seccomp (older
	 * container runtimes), or a rename raced its ".." */
	if (fd == -ENOSYS || fd == -EPERM || fd == -EAGAIN)
		fd = open_walked(rfd, sysroot, path, found);
	close(rfd);
	return fd;
}
