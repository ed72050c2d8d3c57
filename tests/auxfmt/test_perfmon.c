// SPDX-License-Identifier: MIT
/*
 * The perfmon buffer codec against byte tables written from the format's
 * published header (Fuchsia's perfmon.h, PERFMON_BUFFER_VERSION 0): every
 * record type decoded field by field, encoded back byte for byte, and the
 * corrupt shapes (reserved and unknown types, too many branches, records
 * and headers cut short, capture_end outside the buffer).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "qpt/perfmon.h"

/* A header (x86-64, FULL, 1 GHz ticks) and one record of each type:
 * 24 + 12 + 4 + 12 + 12 + 20 + (16 + 2 * 24) = 148 bytes. */
static const uint8_t buffer[] = {
	/* header: version 0, arch 1, flags 1, ticks/s 1e9, capture_end 148 */
	0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00,
	0x94, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* @24 TIME, event 0x0801 (group 2, event 1), time 0x1122334455667788 */
	0x01, 0x00, 0x01, 0x08,
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	/* @36 TICK, flags 0x5a, event 0x0402 */
	0x02, 0x5a, 0x02, 0x04,
	/* @40 COUNT, event 0x0c03, count 1000000 */
	0x03, 0x00, 0x03, 0x0c,
	0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* @52 VALUE, event 0x1004, value 0xdeadbeef */
	0x04, 0x00, 0x04, 0x10,
	0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0x00, 0x00,
	/* @64 PC, event 0, aspace (cr3) 0x12345000, pc 0x401000 */
	0x05, 0x00, 0x00, 0x00,
	0x00, 0x50, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* @84 LAST_BRANCH, 2 branches, aspace 0x12345000 */
	0x06, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x50, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00,
	/* newest: 0x401020 -> 0x401100, 7 cycles, mispredicted */
	0x20, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x11, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* older: 0x401005 -> 0x401020, cycles unknown */
	0x05, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x20, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

struct want {
	uint64_t pos;
	uint8_t type;
};

static const struct want wants[] = {
	{24, QPT_PERFMON_TIME}, {36, QPT_PERFMON_TICK}, {40, QPT_PERFMON_COUNT},
	{52, QPT_PERFMON_VALUE}, {64, QPT_PERFMON_PC},
	{84, QPT_PERFMON_LAST_BRANCH},
};

static void check_fields(const struct qpt_perfmon_record *r)
{
	switch (r->type) {
	case QPT_PERFMON_TIME:
		assert_int_equal(r->event, 0x0801);
		assert_int_equal(r->time, 0x1122334455667788LL);
		break;
	case QPT_PERFMON_TICK:
		assert_int_equal(r->reserved_flags, 0x5a);
		assert_int_equal(r->event, 0x0402);
		break;
	case QPT_PERFMON_COUNT:
		assert_int_equal(r->value, 1000000);
		break;
	case QPT_PERFMON_VALUE:
		assert_int_equal(r->value, 0xdeadbeef);
		break;
	case QPT_PERFMON_PC:
		assert_int_equal(r->aspace, 0x12345000);
		assert_int_equal(r->pc, 0x401000);
		break;
	case QPT_PERFMON_LAST_BRANCH:
		assert_int_equal(r->num_branches, 2);
		assert_int_equal(r->aspace, 0x12345000);
		assert_int_equal(r->branches[0].from, 0x401020);
		assert_int_equal(r->branches[0].to, 0x401100);
		assert_int_equal(r->branches[0].info & QPT_PERFMON_INFO_CYCLES_MASK,
				 7);
		assert_true(r->branches[0].info & QPT_PERFMON_INFO_MISPRED);
		assert_int_equal(r->branches[1].from, 0x401005);
		assert_int_equal(r->branches[1].info, 0);
		break;
	}
}

static void test_decode_every_type(void **state)
{
	struct qpt_perfmon_record rec;
	struct qpt_perfmon *pm;
	uint64_t pos;
	size_t i;

	assert_true(qpt_perfmon_probe(buffer, sizeof(buffer)));
	assert_int_equal(qpt_perfmon_open_mem(buffer, sizeof(buffer), &pm), 0);
	assert_int_equal(qpt_perfmon_header(pm)->arch, QPT_PERFMON_ARCH_X86_64);
	assert_int_equal(qpt_perfmon_header(pm)->flags,
			 QPT_PERFMON_BUFFER_FLAG_FULL);
	assert_int_equal(qpt_perfmon_header(pm)->ticks_per_second, 1000000000);
	for (i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		assert_int_equal(qpt_perfmon_next(pm, &rec, &pos), 1);
		assert_int_equal(pos, wants[i].pos);
		assert_int_equal(rec.type, wants[i].type);
		check_fields(&rec);
	}
	assert_int_equal(qpt_perfmon_next(pm, &rec, &pos), 0);
	assert_int_equal(qpt_perfmon_trailing(pm), 0);
	qpt_perfmon_free(pm);
}

/* Decode, then write every record through the writer: the same bytes. */
static void test_encode_byte_for_byte(void **state)
{
	struct qpt_perfmon_record rec;
	struct qpt_perfmon_writer *w;
	struct qpt_perfmon *pm;
	const void *out;
	size_t len;

	assert_int_equal(qpt_perfmon_open_mem(buffer, sizeof(buffer), &pm), 0);
	assert_int_equal(qpt_perfmon_writer_new(qpt_perfmon_header(pm), &w), 0);
	while (qpt_perfmon_next(pm, &rec, NULL) == 1)
		assert_int_equal(qpt_perfmon_writer_add(w, &rec), 0);
	out = qpt_perfmon_writer_data(w, &len);
	assert_int_equal(len, sizeof(buffer));
	assert_memory_equal(out, buffer, sizeof(buffer));
	qpt_perfmon_writer_free(w);
	qpt_perfmon_free(pm);
}

/* Open a patched copy of the table; the first failing call's error and
 * message. */
static int corrupt(size_t off, const uint8_t *bytes, size_t n, size_t len,
		   char *msg, size_t msgsz)
{
	uint8_t b[sizeof(buffer)];
	struct qpt_perfmon_record rec;
	struct qpt_perfmon *pm = NULL;
	int err;

	memcpy(b, buffer, sizeof(b));
	memcpy(b + off, bytes, n);
	err = qpt_perfmon_open_mem(b, len, &pm);
	while (!err && (err = qpt_perfmon_next(pm, &rec, NULL)) == 1)
		err = 0;
	snprintf(msg, msgsz, "%s", qpt_perfmon_errmsg(pm));
	if (err)
		/* sticky */
		assert_int_equal(!pm || qpt_perfmon_next(pm, &rec, NULL) == err,
				 1);
	qpt_perfmon_free(pm);
	return err;
}

static void test_corrupt(void **state)
{
	static const uint8_t v1[] = {1}, arch9[] = {9}, flags2[] = {2},
			     end_big[] = {0x95}, end_small[] = {0x10},
			     reserved[] = {0}, unknown[] = {7}, many[] = {33},
			     end_in_rec[] = {0x92};
	char msg[200];

	assert_int_equal(corrupt(0, v1, 1, sizeof(buffer), msg, sizeof(msg)),
			 -QPT_E_UNSUPPORTED);
	assert_non_null(strstr(msg, "version"));
	assert_int_equal(corrupt(2, arch9, 1, sizeof(buffer), msg, sizeof(msg)),
			 -QPT_E_FORMAT);
	assert_int_equal(corrupt(4, flags2, 1, sizeof(buffer), msg, sizeof(msg)),
			 -QPT_E_FORMAT);
	assert_int_equal(corrupt(16, end_big, 1, sizeof(buffer), msg,
				 sizeof(msg)), -QPT_E_TRUNCATED);
	assert_int_equal(corrupt(16, end_small, 1, sizeof(buffer), msg,
				 sizeof(msg)), -QPT_E_FORMAT);
	assert_int_equal(corrupt(36, reserved, 1, sizeof(buffer), msg,
				 sizeof(msg)), -QPT_E_FORMAT);
	assert_non_null(strstr(msg, "reserved"));
	assert_int_equal(corrupt(36, unknown, 1, sizeof(buffer), msg,
				 sizeof(msg)), -QPT_E_FORMAT);
	assert_int_equal(corrupt(88, many, 1, sizeof(buffer), msg, sizeof(msg)),
			 -QPT_E_FORMAT);
	assert_non_null(strstr(msg, "33 branches"));
	/* capture_end two bytes short: the LAST_BRANCH runs past it */
	assert_int_equal(corrupt(16, end_in_rec, 1, sizeof(buffer), msg,
				 sizeof(msg)), -QPT_E_TRUNCATED);
	assert_non_null(strstr(msg, "LAST_BRANCH"));
	/* the header cut short */
	assert_int_equal(corrupt(0, v1, 0, 10, msg, sizeof(msg)),
			 -QPT_E_TRUNCATED);
	assert_false(qpt_perfmon_probe(buffer, 10));
}

static void test_encode_limits(void **state)
{
	struct qpt_perfmon_record rec;
	uint8_t out[800];

	memset(&rec, 0, sizeof(rec));
	rec.type = QPT_PERFMON_LAST_BRANCH;
	rec.num_branches = 32;
	assert_int_equal(qpt_perfmon_record_size(&rec), 16 + 32 * 24);
	assert_int_equal(qpt_perfmon_encode_record(&rec, out, sizeof(out)),
			 16 + 32 * 24);
	assert_int_equal(qpt_perfmon_encode_record(&rec, out, 100), -ENOSPC);
	rec.num_branches = 33;
	assert_int_equal(qpt_perfmon_encode_record(&rec, out, sizeof(out)),
			 -QPT_E_INVAL);
	rec.type = QPT_PERFMON_RESERVED;
	assert_int_equal(qpt_perfmon_record_size(&rec), 0);
	assert_string_equal(qpt_perfmon_type_name(QPT_PERFMON_LAST_BRANCH),
			    "LAST_BRANCH");
	assert_null(qpt_perfmon_type_name(7));
}

/* The file input and save: a file written is read back the same. */
static void test_file_roundtrip(void **state)
{
	char path[] = "/tmp/qpt-perfmon-XXXXXX";
	struct qpt_perfmon_record rec;
	struct qpt_perfmon_writer *w;
	struct qpt_perfmon *pm, *back;
	int fd = mkstemp(path), n = 0;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(qpt_perfmon_open_mem(buffer, sizeof(buffer), &pm), 0);
	assert_int_equal(qpt_perfmon_writer_new(qpt_perfmon_header(pm), &w), 0);
	while (qpt_perfmon_next(pm, &rec, NULL) == 1)
		assert_int_equal(qpt_perfmon_writer_add(w, &rec), 0);
	assert_int_equal(qpt_perfmon_writer_save(w, path), 0);
	assert_int_equal(qpt_perfmon_open(path, &back), 0);
	while (qpt_perfmon_next(back, &rec, NULL) == 1)
		n++;
	assert_int_equal(n, 6);
	qpt_perfmon_free(pm);
	assert_int_equal(qpt_perfmon_open("/nonexistent/x", &pm), -ENOENT);
	assert_null(pm);
	qpt_perfmon_free(back);
	qpt_perfmon_writer_free(w);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_every_type),
		cmocka_unit_test(test_encode_byte_for_byte),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_encode_limits),
		cmocka_unit_test(test_file_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
