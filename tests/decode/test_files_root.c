// SPDX-License-Identifier: MIT
/*
 * A recording's names never lead out of the sysroot (qpt decode
 * --sysroot, perf's --symfs; decode/root.c): "..", absolute symlinks (of
 * the file or of a directory on its path), relative symlinks that climb
 * out, symlink loops, and the separate debug file found by build-id.  Each
 * escape has a file waiting outside the sysroot where the escape would
 * lead on the host, so an escape is seen; the oracle is the layout the
 * test made: a name resolves as if the sysroot were the root directory (an
 * absolute symlink inside it points inside it, as in a chroot), so it
 * finds the file inside or nothing, never the one outside.  Where a file is
 * found, the path handed on to libipt (which opens sections by name) is
 * the file's real path inside the sysroot (realpath(3) agrees), and no
 * descriptor is left open (/proc/self/fd).
 *
 * Everything runs twice: with openat2 (RESOLVE_IN_ROOT), then under a
 * seccomp filter that refuses openat2 with EPERM (as older container
 * runtimes do), where the resolution is done one component at a time.  The
 * ELF is this test's own executable, copied (its symbols counted against
 * a copy stripped by binutils' objcopy).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <cmocka.h>
#include <libelf.h>

#include "decode/internal.h"

static char self[PATH_MAX];
static size_t fds_before; /* open after setup */
static char dir[PATH_MAX];
static char root[PATH_MAX + 16], out[PATH_MAX + 16];

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), o;
	ssize_t n;

	assert_true(in >= 0);
	o = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	assert_true(o >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(o, buf, (size_t)n), n);
	close(in);
	close(o);
}

/* @fmt under the test's directory: made (a directory when it ends in
 * '/'), or a symlink to @target. */
static void make(const char *target, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	n = strlen(path);
	if (path[n - 1] == '/')
		assert_int_equal(mkdir(path, 0700), 0);
	else
		assert_int_equal(symlink(target, path), 0);
}

/* How many descriptors are open, by the kernel's list. */
static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* DIR/root/bin/prog and DIR/outside/prog, both copies of this program. */
static int setup(void **state)
{
	char tmpl[] = "/tmp/qpt-root-XXXXXX", path[PATH_MAX * 2];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (n <= 0 || !mkdtemp(tmpl) || !realpath(tmpl, dir))
		return -1;
	self[n] = '\0';
	elf_version(EV_CURRENT);
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(out, sizeof(out), "%s/outside", dir);
	make(NULL, "root/");
	make(NULL, "root/bin/");
	make(NULL, "outside/");
	snprintf(path, sizeof(path), "%s/bin/prog", root);
	copy_file(self, path);
	/* where every escape leads: the same ELF, outside */
	snprintf(path, sizeof(path), "%s/prog", out);
	copy_file(self, path);
	fds_before = open_fds();
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* @path looked up under the sysroot: NULL when not found (with @reason),
 * else where it was found: inside the sysroot, free of symlinks. */
static const char *lookup(struct qd_files *files, const char *path,
			  const char *reason)
{
	struct qd_file *f = qd_files_get(files, path, NULL, 0, false);
	char real[PATH_MAX];

	assert_non_null(f);
	if (!f->found) {
		assert_non_null(reason);
		assert_string_equal(f->reason, reason);
		return NULL;
	}
	assert_null(reason);
	assert_true(f->is_elf);
	assert_non_null(realpath(f->found, real));
	assert_string_equal(f->found, real);
	if (files->sysroot)
		assert_memory_equal(f->found, files->sysroot,
				    strlen(files->sysroot));
	return f->found;
}

/* ROOT/@rel, the path the sysroot's @rel is found at. */
static const char *in_root(const char *rel)
{
	static char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return path;
}

static void test_inside(void **state)
{
	struct qd_files files = {.sysroot = root};
	char want[PATH_MAX * 2];

	(void)state;
	assert_string_equal(lookup(&files, "/bin/prog", NULL),
			    in_root("/bin/prog"));
	/* ".." and "." that stay inside, a relative name */
	assert_string_equal(lookup(&files, "/bin/../bin/./prog", NULL),
			    in_root("/bin/prog"));
	assert_string_equal(lookup(&files, "bin//prog", NULL),
			    in_root("/bin/prog"));
	/* not a regular file: the root itself, a directory */
	assert_null(lookup(&files, "/", "is not a regular file"));
	assert_null(lookup(&files, "/bin", "is not a regular file"));
	assert_null(lookup(&files, "/bin/prog/x", "not found"));
	qd_files_free(&files);
	/* without a sysroot, a path is the host's; so with "/" */
	files.sysroot = NULL;
	snprintf(want, sizeof(want), "%s/prog", out);
	assert_string_equal(lookup(&files, want, NULL), want);
	qd_files_free(&files);
	files.sysroot = "/";
	assert_string_equal(lookup(&files, want, NULL), want);
	qd_files_free(&files);
}

static void test_dotdot(void **state)
{
	struct qd_files files = {.sysroot = root};
	char path[PATH_MAX * 2];

	(void)state;
	assert_null(lookup(&files, "/../outside/prog", "not found"));
	assert_null(lookup(&files, "../outside/prog", "not found"));
	assert_null(lookup(&files, "/bin/../../outside/prog", "not found"));
	/* as many as it takes from the top of the host */
	snprintf(path, sizeof(path), "/bin/../../../../../../../../..%s/prog",
		 out);
	assert_null(lookup(&files, path, "not found"));
	qd_files_free(&files);
}

static void test_absolute_symlinks(void **state)
{
	struct qd_files files = {.sysroot = root};
	char host[PATH_MAX * 2];

	(void)state;
	snprintf(host, sizeof(host), "%s/prog", out);
	make(host, "root/bin/abs");
	make(out, "root/lib");		      /* a directory on the path */
	make("/bin/prog", "root/bin/abs_in"); /* the sysroot's own /bin */
	make("/bin", "root/lib64");
	assert_null(lookup(&files, "/bin/abs", "not found"));
	assert_null(lookup(&files, "/lib/prog", "not found"));
	/* found inside, by its own path (libipt opens it by name, and would
	 * follow the link out) */
	assert_string_equal(lookup(&files, "/bin/abs_in", NULL),
			    in_root("/bin/prog"));
	assert_string_equal(lookup(&files, "/lib64/prog", NULL),
			    in_root("/bin/prog"));
	qd_files_free(&files);
}

static void test_relative_symlinks(void **state)
{
	struct qd_files files = {.sysroot = root};

	(void)state;
	make("../../outside/prog", "root/bin/rel");
	make("../outside", "root/up");
	make("../bin/prog", "root/bin/rel_in");
	assert_null(lookup(&files, "/bin/rel", "not found"));
	assert_null(lookup(&files, "/up/prog", "not found"));
	assert_string_equal(lookup(&files, "/bin/rel_in", NULL),
			    in_root("/bin/prog"));
	qd_files_free(&files);
}

static void test_loops(void **state)
{
	struct qd_files files = {.sysroot = root};

	(void)state;
	make("loop2", "root/bin/loop1");
	make("loop1", "root/bin/loop2");
	make("/bin/me", "root/bin/me");
	make(".", "root/dot");
	assert_null(lookup(&files, "/bin/loop1", "is in a symlink loop"));
	assert_null(lookup(&files, "/bin/me", "is in a symlink loop"));
	/* a directory that holds itself, deep: found, no escape */
	assert_string_equal(lookup(&files, "/dot/dot/dot/dot/bin/prog", NULL),
			    in_root("/bin/prog"));
	qd_files_free(&files);
}

/* The stripped copy's symbols: its .dynsym's, and its separate debug
 * file's (SYSROOT/usr/lib/debug/.build-id/xx/yyyy.debug) once there is
 * one inside; a debug file that is an absolute symlink out is not read. */
static void test_debug_file(void **state)
{
	struct qd_files files = {.sysroot = root};
	char cmd[PATH_MAX * 3], hex[41], debug[PATH_MAX * 2],
	    host[PATH_MAX * 2];
	struct qd_file *f;
	size_t alone, i;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "objcopy --strip-all '%s' '%s/bin/stripped' 2>/dev/null", self,
		 root);
	if (system(cmd))
		skip();
	f = qd_files_get(&files, "/bin/stripped", NULL, 0, false);
	assert_non_null(f);
	assert_non_null(f->found);
	assert_true(f->build_id_size > 0);
	alone = f->nr_syms;
	for (i = 0; i < f->build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", f->build_id[i]);
	qd_files_free(&files);
	make(NULL, "root/usr/");
	make(NULL, "root/usr/lib/");
	make(NULL, "root/usr/lib/debug/");
	make(NULL, "root/usr/lib/debug/.build-id/");
	make(NULL, "root/usr/lib/debug/.build-id/%.2s/", hex);
	snprintf(host, sizeof(host), "%s/prog", out);
	make(host, "root/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	f = qd_files_get(&files, "/bin/stripped", NULL, 0, false);
	assert_non_null(f);
	assert_int_equal(f->nr_syms, alone);
	qd_files_free(&files);
	/* the same debug file inside: read */
	snprintf(debug, sizeof(debug),
		 "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, hex,
		 hex + 2);
	assert_int_equal(unlink(debug), 0);
	copy_file(self, debug);
	f = qd_files_get(&files, "/bin/stripped", NULL, 0, false);
	assert_non_null(f);
	assert_true(f->nr_syms > alone);
	qd_files_free(&files);
}

/* The lookups above, their files freed, left no descriptor open. */
static void test_no_fd_left(void **state)
{
	(void)state;
	assert_int_equal(open_fds(), fds_before);
}

/* openat2 refused from now on (EPERM), as a container's seccomp filter
 * refuses a system call it does not know: 0, or -1 where seccomp is not
 * there. */
static int refuse_openat2(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	struct open_how how = {.flags = O_RDONLY};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -1;
	/* the filter holds */
	if (syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how)) != -1 ||
	    errno != EPERM)
		return -1;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inside),
	    cmocka_unit_test(test_dotdot),
	    cmocka_unit_test(test_absolute_symlinks),
	    cmocka_unit_test(test_relative_symlinks),
	    cmocka_unit_test(test_loops),
	    cmocka_unit_test(test_debug_file),
	    cmocka_unit_test(test_no_fd_left),
	};
	int rc = cmocka_run_group_tests_name("openat2", tests, setup, teardown);

	if (rc)
		return rc;
	if (refuse_openat2()) {
		printf("skip: no seccomp filter to refuse openat2\n");
		return 77;
	}
	return cmocka_run_group_tests_name("without openat2", tests, setup,
					   teardown);
}
