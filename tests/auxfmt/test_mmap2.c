// SPDX-License-Identifier: MIT
/*
 * qpt_mmap2_build, the one MMAP2 layout of the writer side.  Oracle: the
 * record as linux/perf_event.h documents PERF_RECORD_MMAP2 (declared here
 * field by field, both arms of its union: maj/min/ino/ino_generation and
 * build_id_size/build_id[20]); the reader's qpt_mmap_parse reads it back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "qpt/reader.h"
#include "qpt/writer.h"

/* perf_event.h's PERF_RECORD_MMAP2 */
struct uapi_mmap2 {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved_1;
			uint16_t reserved_2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

static void test_layout(void **state)
{
	(void)state;
	/* the offsets perf reads (tools/perf/util/event.h's mmap2 event) */
	assert_int_equal(offsetof(struct uapi_mmap2, maj), 40);
	assert_int_equal(offsetof(struct uapi_mmap2, build_id), 44);
	assert_int_equal(offsetof(struct uapi_mmap2, prot), 64);
	assert_int_equal(offsetof(struct uapi_mmap2, filename), 72);
}

static struct qpt_mmap_event event(void)
{
	struct qpt_mmap_event m;

	memset(&m, 0, sizeof(m));
	m.pid = 41;
	m.tid = 42;
	m.start = 0x7f0000001000ULL;
	m.len = 0x23000;
	m.pgoff = 0x1000;
	m.maj = 0xfe;
	m.min = 3;
	m.ino = 987654321;
	m.ino_generation = 7;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.filename = "/usr/lib/libc.so.6";
	m.filename_len = strlen(m.filename);
	return m;
}

static void test_inode_form(void **state)
{
	uint64_t got[32], want[32];
	struct uapi_mmap2 *w = (struct uapi_mmap2 *)want;
	struct qpt_mmap_event m = event(), back;
	struct qpt_record rec;
	int size;

	(void)state;
	memset(got, 0xa5, sizeof(got));
	size = qpt_mmap2_build(&m, PERF_RECORD_MISC_USER, 40, got,
			       sizeof(got));
	/* 72, "/usr/lib/libc.so.6\0" padded to 24, 40 of trailer */
	assert_int_equal(size, 72 + 24 + 40);
	memset(want, 0, sizeof(want));
	w->header.type = PERF_RECORD_MMAP2;
	w->header.misc = PERF_RECORD_MISC_USER;
	w->header.size = (uint16_t)size;
	w->pid = 41;
	w->tid = 42;
	w->addr = 0x7f0000001000ULL;
	w->len = 0x23000;
	w->pgoff = 0x1000;
	w->maj = 0xfe;
	w->min = 3;
	w->ino = 987654321;
	w->ino_generation = 7;
	w->prot = PROT_READ | PROT_EXEC;
	w->flags = MAP_PRIVATE;
	strcpy(w->filename, "/usr/lib/libc.so.6");
	assert_memory_equal(got, want, (size_t)size);

	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_MMAP2;
	rec.misc = PERF_RECORD_MISC_USER;
	rec.size = (uint32_t)size;
	rec.data = got;
	assert_int_equal(qpt_mmap_parse(&rec, &back), 0);
	assert_int_equal(back.pid, 41);
	assert_int_equal(back.start, m.start);
	assert_int_equal(back.len, m.len);
	assert_int_equal(back.pgoff, m.pgoff);
	assert_int_equal(back.maj, 0xfe);
	assert_int_equal(back.min, 3);
	assert_int_equal(back.ino, 987654321);
	assert_int_equal(back.ino_generation, 7);
	assert_true(back.exec);
	assert_null(back.build_id);
	assert_string_equal(back.filename, "/usr/lib/libc.so.6");
}

static void test_build_id_form(void **state)
{
	static const uint8_t bid[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	uint64_t got[32], want[32];
	struct uapi_mmap2 *w = (struct uapi_mmap2 *)want;
	struct qpt_mmap_event m = event(), back;
	struct qpt_record rec;
	int size;

	(void)state;
	m.build_id = bid;
	m.build_id_size = 20;
	m.filename = "[vdso]";
	m.filename_len = 100; /* up to its NUL */
	memset(got, 0xa5, sizeof(got));
	size = qpt_mmap2_build(&m, PERF_RECORD_MISC_USER, 0, got, sizeof(got));
	assert_int_equal(size, 72 + 8);
	memset(want, 0, sizeof(want));
	w->header.type = PERF_RECORD_MMAP2;
	w->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	w->header.size = (uint16_t)size;
	w->pid = 41;
	w->tid = 42;
	w->addr = m.start;
	w->len = m.len;
	w->pgoff = m.pgoff;
	w->build_id_size = 20;
	memcpy(w->build_id, bid, 20);
	w->prot = m.prot;
	w->flags = m.flags;
	strcpy(w->filename, "[vdso]");
	assert_memory_equal(got, want, (size_t)size);

	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_MMAP2;
	rec.misc = w->header.misc;
	rec.size = (uint32_t)size;
	rec.data = got;
	assert_int_equal(qpt_mmap_parse(&rec, &back), 0);
	assert_int_equal(back.build_id_size, 20);
	assert_memory_equal(back.build_id, bid, 20);
	assert_string_equal(back.filename, "[vdso]");
}

static void test_errors(void **state)
{
	struct qpt_mmap_event m = event();
	uint64_t buf[16];

	(void)state;
	assert_int_equal(qpt_mmap2_build(&m, 0, 0, buf, 72 + 23), -ENOSPC);
	assert_int_equal(qpt_mmap2_build(&m, 0, 0, buf, 72 + 24), 72 + 24);
	assert_int_equal(qpt_mmap2_build(NULL, 0, 0, buf, sizeof(buf)),
			 -QPT_E_INVAL);
	m.build_id_size = 21;
	m.build_id = (const uint8_t *)"x";
	assert_int_equal(qpt_mmap2_build(&m, 0, 0, buf, sizeof(buf)),
			 -QPT_E_INVAL);
	m = event();
	assert_int_equal(qpt_mmap2_build(&m, 0, 70000, buf, sizeof(buf)),
			 -QPT_E_INVAL);
	/* no name: one NUL padded to 8 */
	m.filename = NULL;
	m.filename_len = 0;
	assert_int_equal(qpt_mmap2_build(&m, 0, 0, buf, sizeof(buf)), 80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_inode_form),
	    cmocka_unit_test(test_build_id_form),
	    cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
