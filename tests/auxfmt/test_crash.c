// SPDX-License-Identifier: MIT
/*
 * The crash facts feature (qpt/crash.h): written by the writer in file
 * mode (not in a pipe, where perf would fail on it), read back in both
 * byte orders, and hostile sections refused without reading past them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "qpt/crash.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

static void entry(struct qpt_crash *c, uint32_t kind, int32_t tid)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->signo = 11;
	c->code = 1;
	c->err = 0;
	c->pid = 100;
	c->tid = tid;
	c->addr = 0x10;
	c->ip = 0x401000 + (uint64_t)tid;
	c->time = 123456789;
	c->insn_len = 3;
	memcpy(c->insn, "\x8b\x00\x90", 3);
	c->nr_regs = QPT_CRASH_MAX_REGS;
	for (i = 0; i < c->nr_regs; i++)
		c->regs[i] = 0x1000 * i + (uint64_t)tid;
}

/* A file with @len bytes of crash feature @data; its reader's result. */
static int write_read(const void *data, size_t len, bool pipe,
		      struct qpt_crash **list)
{
	char path[] = "/tmp/qpt-crash-XXXXXX";
	struct perf_event_attr attr;
	struct qpt_writer_opts o;
	struct qpt_writer *w;
	struct qpt_reader *r;
	uint64_t id = 1;
	int fd, n;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	qpt_writer_opts_init(&o);
	o.pipe = pipe;
	assert_int_equal(qpt_writer_open(path, &o, &w), 0);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	assert_int_equal(qpt_writer_add_attr(w, &attr, &id, 1, "dummy"), 0);
	assert_int_equal(qpt_writer_set_feature_raw(
			     w, (enum qpt_feature)QPT_FEAT_QPT_CRASH, data, len),
			 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	assert_int_equal(qpt_reader_open(path, NULL, &r), 0);
	while ((n = qpt_reader_next(r, &(struct qpt_record){0})) > 0)
		;
	assert_int_equal(n, 0);
	n = qpt_crash_read(r, list);
	qpt_reader_free(r);
	unlink(path);
	return n;
}

static void roundtrip(void **state)
{
	struct qpt_crash in[2], *out;
	size_t len;
	void *buf;

	(void)state;
	entry(&in[0], QPT_CRASH_TRIGGER, 7);
	entry(&in[1], QPT_CRASH_SIGNAL, 8);
	in[1].nr_regs = 3; /* entries carry their own size */
	assert_int_equal(qpt_crash_encode(in, 2, &buf, &len), 0);
	assert_int_equal(len, 8 + QPT_CRASH_ENTRY_SIZE(27) +
				  QPT_CRASH_ENTRY_SIZE(3));
	assert_int_equal(write_read(buf, len, false, &out), 2);
	in[1].nr_regs = 3;
	memset(in[1].regs + 3, 0, sizeof(in[1].regs) - 3 * 8);
	assert_memory_equal(&out[0], &in[0], sizeof(in[0]));
	assert_memory_equal(&out[1], &in[1], sizeof(in[1]));
	free(out);
	/* a pipe carries none: perf fails on features it does not know */
	assert_int_equal(write_read(buf, len, true, &out), 0);
	assert_null(out);
	free(buf);
}

static void hostile(void **state)
{
	uint8_t b[8 + 3 * QPT_CRASH_ENTRY_SIZE(27)];
	struct qpt_crash c, *out = NULL;
	size_t len;
	void *buf;
	uint32_t v;

	(void)state;
	entry(&c, QPT_CRASH_SIGNAL, 9);
	assert_int_equal(qpt_crash_encode(&c, 1, &buf, &len), 0);
	memcpy(b, buf, len);
	free(buf);
	/* shorter than the header, than the entry */
	assert_int_equal(write_read(b, 4, false, &out), -QPT_E_FORMAT);
	assert_int_equal(write_read(b, len - 8, false, &out), -QPT_E_FORMAT);
	/* another version */
	v = 2;
	memcpy(b, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), -QPT_E_FORMAT);
	v = 1;
	memcpy(b, &v, 4);
	/* more entries than the bytes can hold: no allocation for them */
	v = 0xffffffff;
	memcpy(b + 4, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), -QPT_E_FORMAT);
	v = 1;
	memcpy(b + 4, &v, 4);
	/* too many registers, an entry size below its fields or past the
	 * end */
	v = QPT_CRASH_MAX_REGS + 1;
	memcpy(b + 8 + 28, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), -QPT_E_FORMAT);
	v = QPT_CRASH_MAX_REGS;
	memcpy(b + 8 + 28, &v, 4);
	v = 40;
	memcpy(b + 8 + 4, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), -QPT_E_FORMAT);
	v = (uint32_t)len;
	memcpy(b + 8 + 4, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), -QPT_E_FORMAT);
	assert_null(out);
	/* the same bytes, mended, read */
	v = (uint32_t)QPT_CRASH_ENTRY_SIZE(27);
	memcpy(b + 8 + 4, &v, 4);
	assert_int_equal(write_read(b, len, false, &out), 1);
	assert_int_equal(out[0].tid, 9);
	free(out);
	/* encoding refuses too many registers */
	c.nr_regs = QPT_CRASH_MAX_REGS + 1;
	assert_int_equal(qpt_crash_encode(&c, 1, &buf, &len), -QPT_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(roundtrip),
	    cmocka_unit_test(hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
