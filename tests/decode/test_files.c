// SPDX-License-Identifier: MIT
/*
 * Files behind mappings: an ELF (this test's own executable) found by
 * recorded path under a sysroot and by build-id in a build-id cache; its
 * function symbols against binutils' nm (the oracle); missing files and
 * build-id mismatches reported with their reason.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <libelf.h>

#include "decode/internal.h"

static char self[PATH_MAX];

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	self[n] = '\0';
	elf_version(EV_CURRENT);
	return 0;
}

static void test_symbols_vs_nm(void **state)
{
	struct qd_files files = { 0 };
	struct qd_file *f;
	char cmd[PATH_MAX + 64], line[1024];
	unsigned checked = 0;
	FILE *nm;

	(void)state;
	f = qd_files_get(&files, self, NULL, 0, false);
	assert_non_null(f);
	assert_non_null(f->found);
	assert_true(f->is_elf);
	assert_true(f->nr_segs > 0);
	assert_true(f->nr_syms > 0);
	assert_true(f->build_id_size > 0);
	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s' 2>/dev/null", self);
	nm = popen(cmd, "r");
	if (!nm)
		skip();
	while (fgets(line, sizeof(line), nm)) {
		unsigned long long addr;
		char type, name[512];
		const struct qd_sym *s;

		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 ||
		    (type != 'T' && type != 't') || !addr)
			continue;
		s = qd_file_sym(f, addr);
		if (!s)
			continue; /* nm lists non-FUNC text symbols too */
		/* the symbol at this address (or an alias of it) */
		if (s->addr != addr)
			continue;
		assert_int_equal(s->addr, addr);
		if (!strcmp(name, "test_symbols_vs_nm"))
			assert_string_equal(s->name, "test_symbols_vs_nm");
		checked++;
	}
	pclose(nm);
	assert_true(checked > 10);
	qd_files_free(&files);
}

/* The PLT stubs of this program (.plt's and .plt.got's, which it has:
 * __cxa_finalize's at least) by the names objdump gives them. */
static void test_plt_stubs_vs_objdump(void **state)
{
	struct qd_files files = { 0 };
	unsigned checked = 0, got = 0;
	char cmd[PATH_MAX + 96], line[1024];
	bool in_got = false;
	struct qd_file *f;
	FILE *od;

	(void)state;
	f = qd_files_get(&files, self, NULL, 0, false);
	assert_non_null(f);
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --section=.plt --section=.plt.got '%s' 2>/dev/null",
		 self);
	od = popen(cmd, "r");
	if (!od)
		skip();
	while (fgets(line, sizeof(line), od)) {
		unsigned long long addr;
		char name[512];
		const struct qd_sym *s;
		size_t n;

		if (!strncmp(line, "Disassembly of section ", 23))
			in_got = !strncmp(line + 23, ".plt.got:", 9);
		if (sscanf(line, "%llx <%511[^>]>:", &addr, name) != 2)
			continue;
		n = strlen(name);
		if (n < 4 || strcmp(name + n - 4, "@plt"))
			continue;
		s = qd_file_sym(f, addr);
		assert_non_null(s);
		assert_int_equal(s->addr, addr);
		assert_string_equal(s->name, name);
		checked++;
		got += in_got;
	}
	pclose(od);
	if (!checked)
		skip(); /* no objdump */
	assert_true(got > 0);
	qd_files_free(&files);
}

/* The build-id of this program as qd_files reads it, and in hex. */
static size_t self_build_id(uint8_t *bid, char *hex)
{
	struct qd_files files = { 0 };
	struct qd_file *probe;
	size_t n, i;

	probe = qd_files_get(&files, self, NULL, 0, false);
	assert_non_null(probe);
	n = probe->build_id_size;
	assert_true(n > 0);
	memcpy(bid, probe->build_id, n);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	qd_files_free(&files);
	return n;
}

/* A copy of this program at @path: a sysroot resolves as if it were the
 * root directory, where a symlink to this program's path leads nowhere. */
static void copy_self(const char *path)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, path);
	assert_int_equal(system(cmd), 0);
}

/* Under a sysroot: DIR/usr/bin/thing, and a build-id that differs. */
static void check_sysroot(const char *dir, uint8_t *bid, size_t n)
{
	struct qd_files files = { 0 };
	char path[PATH_MAX];
	struct qd_file *f;

	snprintf(path, sizeof(path), "%s/usr", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/usr/bin", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/usr/bin/thing", dir);
	copy_self(path);
	files.sysroot = dir;
	f = qd_files_get(&files, "/usr/bin/thing", bid, n, false);
	assert_non_null(f);
	assert_non_null(f->found);
	assert_true(f->is_elf);
	/* the same entry the second time */
	assert_ptr_equal(qd_files_get(&files, "/usr/bin/thing", bid, n, false),
			 f);
	/* a different build-id: found but mismatched, so missing */
	bid[0] ^= 0xff;
	f = qd_files_get(&files, "/usr/bin/thing2", bid, n, false);
	assert_non_null(f);
	assert_null(f->found);
	assert_string_equal(f->reason, "not found");
	qd_files_free(&files);
	files.sysroot = dir;
	snprintf(path, sizeof(path), "%s/usr/bin/thing2", dir);
	copy_self(path);
	f = qd_files_get(&files, "/usr/bin/thing2", bid, n, false);
	assert_non_null(f);
	assert_null(f->found);
	assert_string_equal(f->reason, "build-id mismatch");
	bid[0] ^= 0xff;
	qd_files_free(&files);
}

/* By build-id: DIR/.build-id/xx/rest/elf, the recorded path absent. */
static void check_buildid_dir(const char *dir, const uint8_t *bid, size_t n,
			      const char *hex)
{
	struct qd_files files = { 0 };
	char path[PATH_MAX];
	struct qd_file *f;

	snprintf(path, sizeof(path), "%s/.build-id", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", dir, hex,
		 hex + 2);
	assert_int_equal(symlink(self, path), 0);
	files.buildid_dir = dir;
	f = qd_files_get(&files, "/nonexistent/recorded/path", bid, n, false);
	assert_non_null(f);
	assert_non_null(f->found);
	assert_string_equal(f->found, path);
	assert_true(f->nr_syms > 0);
	qd_files_free(&files);
}

/* What check_sysroot and check_buildid_dir made, and @dir. */
static void remove_tree(const char *dir, const char *hex)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", dir, hex,
		 hex + 2);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/usr/bin/thing", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/usr/bin/thing2", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/usr/bin", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/usr", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_sysroot_and_buildid(void **state)
{
	char dir[] = "/tmp/qpt-files-XXXXXX", hex[41];
	uint8_t bid[20];
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	n = self_build_id(bid, hex);
	check_sysroot(dir, bid, n);
	check_buildid_dir(dir, bid, n, hex);
	remove_tree(dir, hex);
}

static void test_raw_and_space(void **state)
{
	struct qd_files files = { 0 };
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct qd_space *sp = qd_space_new(1);
	char path[] = "/tmp/qpt-raw-XXXXXX";
	uint8_t bytes[64], out[16];
	struct qd_file *f;
	int fd;

	(void)state;
	assert_non_null(isc);
	assert_non_null(sp);
	for (fd = 0; fd < 64; fd++)
		bytes[fd] = (uint8_t)fd;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, sizeof(bytes)), sizeof(bytes));
	close(fd);
	f = qd_files_get(&files, path, NULL, 0, false);
	assert_non_null(f);
	assert_false(f->is_elf);
	assert_true(f->raw);
	/* mapped at 0x5000 from file offset 16: 48 bytes */
	assert_int_equal(qd_space_map(sp, isc, 0x5000, 0x1000, 16, f), 0);
	assert_int_equal(qd_space_read(sp, 0x5000, out, 4), 4);
	assert_int_equal(out[0], 16);
	assert_int_equal(qd_space_read(sp, 0x5000 + 46, out, 8), 2);
	assert_int_equal(out[1], 63);
	assert_int_equal(qd_space_read(sp, 0x4fff, out, 4), 0);
	/* a new mapping over the middle splits the old one */
	assert_int_equal(qd_space_map(sp, isc, 0x5010, 0x10, 0, f), 0);
	assert_int_equal(sp->nr_maps, 3);
	assert_int_equal(qd_space_read(sp, 0x5010, out, 1), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(qd_space_read(sp, 0x5020, out, 1), 1);
	assert_int_equal(out[0], 16 + 0x20);
	qd_space_free(sp);
	pt_iscache_free(isc);
	qd_files_free(&files);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols_vs_nm),
		cmocka_unit_test(test_plt_stubs_vs_objdump),
		cmocka_unit_test(test_sysroot_and_buildid),
		cmocka_unit_test(test_raw_and_space),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
