// SPDX-License-Identifier: MIT
/*
 * The ELF note walker against the gABI's note layout (namesz, descsz,
 * type, then name and descriptor each padded to 4, or to 8 for 8-byte
 * aligned notes), and against libelf: the build-id it finds in this
 * program's own notes is the one gelf_getnote() finds.
 */
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "auxfmt/elfnote.h"
#include "qpt/qpt.h"

struct nb {
	uint8_t b[256];
	size_t n;
};

static void put32(struct nb *nb, uint32_t v)
{
	memcpy(nb->b + nb->n, &v, 4);
	nb->n += 4;
}

/* One note, name and descriptor padded to @align. */
static void note(struct nb *nb, uint32_t type, const char *name,
		 const void *desc, uint32_t descsz, size_t align)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;

	put32(nb, namesz);
	put32(nb, descsz);
	put32(nb, type);
	memcpy(nb->b + nb->n, name, namesz);
	nb->n += namesz;
	while (nb->n % align)
		nb->b[nb->n++] = 0;
	memcpy(nb->b + nb->n, desc, descsz);
	nb->n += descsz;
	while (nb->n % align)
		nb->b[nb->n++] = 0;
}

static const uint8_t id20[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

static void test_after_other_notes(void **state)
{
	struct nb nb = {0};
	const uint8_t *id = NULL;

	note(&nb, 5, "GNU", "\x01\x00\x00\xc0\x04\x00\x00\x00", 8, 4);
	note(&nb, QPT_NT_GNU_BUILD_ID, "GNUX", id20, 20, 4); /* other name */
	note(&nb, 1, "GNU", id20, 16, 4);		     /* other type */
	note(&nb, QPT_NT_GNU_BUILD_ID, "GNU", id20 + 2, 18, 4);
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 4, &id), 18);
	assert_ptr_equal(id, nb.b + nb.n - 20);
	assert_memory_equal(id, id20 + 2, 18);
}

static void test_align8(void **state)
{
	struct nb nb = {0};
	const uint8_t *id = NULL;

	/* a name of 6 bytes ends at 18: its descriptor starts at 24 in
	 * 8-aligned notes, at 20 in 4-aligned ones */
	note(&nb, 5, "LINUX", id20, 16, 8);
	note(&nb, QPT_NT_GNU_BUILD_ID, "GNU", id20, 20, 8);
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 8, &id), 20);
	assert_memory_equal(id, id20, 20);
	/* read as 4-aligned notes the first descriptor ends elsewhere */
	assert_int_not_equal(qpt_elf_note_build_id(nb.b, nb.n, 4, &id), 20);
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 2, &id),
			 -QPT_E_INVAL);
}

static void test_bounds(void **state)
{
	struct nb nb = {0};
	const uint8_t *id = NULL;
	size_t cut;

	assert_int_equal(qpt_elf_note_build_id(nb.b, 0, 4, &id), 0);
	note(&nb, 1, "GNU", id20, 4, 4);
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 4, &id), 0);
	note(&nb, QPT_NT_GNU_BUILD_ID, "GNU", id20, 20, 4);
	/* every cut inside the build-id note is truncated, never a read
	 * past it (ASan watches the copy below) */
	for (cut = 21; cut < nb.n; cut++) {
		uint8_t copy[256];

		memcpy(copy, nb.b, cut);
		assert_int_equal(qpt_elf_note_build_id(copy, cut, 4, &id),
				 -QPT_E_TRUNCATED);
	}
	/* sizes that wrap a 32-bit sum */
	nb.n = 0;
	put32(&nb, 4);
	put32(&nb, 0xfffffffcu);
	put32(&nb, QPT_NT_GNU_BUILD_ID);
	memcpy(nb.b + nb.n, "GNU", 4);
	nb.n += 4;
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 4, &id),
			 -QPT_E_TRUNCATED);
	nb.n = 0;
	put32(&nb, 0xffffffffu);
	put32(&nb, 0);
	put32(&nb, 1);
	assert_int_equal(qpt_elf_note_build_id(nb.b, nb.n, 4, &id),
			 -QPT_E_TRUNCATED);
}

/* libelf's gelf_getnote is the oracle on this program's own notes. */
static void test_against_libelf(void **state)
{
	Elf_Scn *scn = NULL;
	int fd, n, found = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		const uint8_t *want = NULL, *id = NULL;
		size_t want_n = 0;
		GElf_Shdr sh;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off,
					   &desc_off))) {
			if (nh.n_type == NT_GNU_BUILD_ID &&
			    nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
				want = (uint8_t *)data->d_buf + desc_off;
				want_n = nh.n_descsz;
				break;
			}
		}
		n = qpt_elf_note_build_id(data->d_buf, data->d_size,
					  data->d_type == ELF_T_NHDR8 ? 8 : 4,
					  &id);
		assert_int_equal(n, (int)want_n);
		if (want) {
			assert_ptr_equal(id, want);
			found++;
		}
	}
	elf_end(elf);
	close(fd);
	/* Debian's gcc links with --build-id */
	assert_int_equal(found, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_after_other_notes),
		cmocka_unit_test(test_align8),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_against_libelf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
