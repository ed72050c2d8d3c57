// SPDX-License-Identifier: MIT
/*
 * The public symbolizer (qpt/symbolizer.h) on this test's own executable,
 * mapped where /proc/self/maps says it is: a function's name and offset
 * against the compiler's (its address), its source line against the
 * compiler's __FILE__ and __LINE__ (where the build has DWARF: the
 * function is on one line); missing files, bad arguments and options.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include <fcntl.h>

#include "qpt/symbolizer.h"

int qpt_test_probe(int x);
/* clang-format off */
__attribute__((noinline)) int qpt_test_probe(int x) { return x * 3 + 1; } static const unsigned probe_line = __LINE__;
/* clang-format on */

static char self[PATH_MAX];

/* Map every executable mapping of this process's own file into @s. */
static void map_self(struct qpt_symbolizer *s)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], path[PATH_MAX], perm[8];
	unsigned long lo, hi, off;
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi,
			   perm, &off, path) != 5 ||
		    perm[2] != 'x' || strcmp(path, self))
			continue;
		assert_int_equal(qpt_symbolizer_map(s, lo, hi - lo, off, self,
						    NULL, 0),
				 0);
		n++;
	}
	fclose(f);
	assert_true(n > 0);
}

/* Whether this executable has DWARF line tables. */
static bool has_lines(void)
{
	int fd = open(self, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found |= name && !strcmp(name, ".debug_line");
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void test_self(void **state)
{
	struct qpt_symbolizer_opts o;
	struct qpt_symbolizer *s = NULL;
	uintptr_t fn = (uintptr_t)qpt_test_probe;
	const char *name, *file;
	uint64_t off = 99;
	unsigned line = 99;

	(void)state;
	assert_int_equal(qpt_test_probe(2), 7);
	qpt_symbolizer_opts_init(&o);
	assert_int_equal(qpt_symbolizer_new(&o, &s), 0);
	map_self(s);
	name = qpt_symbolizer_sym(s, fn + 1, &off);
	assert_non_null(name);
	assert_string_equal(name, "qpt_test_probe");
	assert_int_equal(off, 1);
	file = qpt_symbolizer_srcline(s, fn, &line);
	if (has_lines()) {
		assert_non_null(file);
		assert_string_equal(file, __FILE__);
		assert_int_equal(line, probe_line);
	} else {
		assert_null(file);
		assert_int_equal(line, 0);
	}
	/* outside every mapping */
	assert_null(qpt_symbolizer_sym(s, 0x10, &off));
	assert_int_equal(off, 0);
	assert_null(qpt_symbolizer_srcline(s, 0x10, &line));
	assert_int_equal(line, 0);
	qpt_symbolizer_free(s);
}

static void test_missing_and_bad(void **state)
{
	struct qpt_symbolizer_opts o;
	struct qpt_symbolizer *s = NULL;
	uint64_t off;
	unsigned line;

	(void)state;
	assert_int_equal(qpt_symbolizer_new(NULL, &s), 0);
	/* a missing file maps, and names nothing */
	assert_int_equal(qpt_symbolizer_map(s, 0x400000, 0x1000, 0,
					    "/nonexistent/qpt/file", NULL, 0),
			 0);
	assert_null(qpt_symbolizer_sym(s, 0x400010, &off));
	assert_null(qpt_symbolizer_srcline(s, 0x400010, &line));
	assert_int_equal(qpt_symbolizer_map(s, 0, 1, 0, NULL, NULL, 0),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_symbolizer_map(s, 0, 1, 0, "/x", NULL, 20),
			 -QPT_E_INVAL);
	qpt_symbolizer_free(s);
	qpt_symbolizer_free(NULL);
	assert_null(qpt_symbolizer_sym(NULL, 1, &off));
	assert_null(qpt_symbolizer_srcline(NULL, 1, &line));
	/* options: a size too small, unknown bytes set */
	memset(&o, 0, sizeof(o));
	o.size = 1;
	assert_int_equal(qpt_symbolizer_new(&o, &s), -QPT_E_INVAL);
	assert_null(s);
	assert_int_equal(qpt_symbolizer_new(&o, NULL), -QPT_E_INVAL);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	if (n <= 0)
		return -1;
	self[n] = '\0';
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_missing_and_bad),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
