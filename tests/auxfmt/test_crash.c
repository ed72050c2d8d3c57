// SPDX-License-Identifier: MIT
/*
 * The crash facts (qpt/crash.h): the feature of qpt 0.1's files, written
 * by the writer in file mode (not in a pipe, where perf would fail on
 * it), read back, and hostile sections refused without reading past
 * them; the samples of the crash event, written and read back, hostile
 * ones refused.
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

/* A file of one crash event sample @rec (patched by the caller); the
 * parse of the sample read back. */
static int sample_read(const void *rec, struct qpt_crash *out,
		       uint8_t *stack_copy)
{
	char path[] = "/tmp/qpt-crash-XXXXXX";
	struct perf_event_attr attr;
	struct qpt_writer *w;
	struct qpt_reader *r;
	struct qpt_record rec_in;
	uint64_t id = QPT_CRASH_EVENT_ID;
	int fd, n, err = 1;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(qpt_writer_open(path, NULL, &w), 0);
	qpt_crash_event_attr(&attr);
	assert_int_equal(
	    qpt_writer_add_attr(w, &attr, &id, 1, QPT_CRASH_EVENT_NAME), 0);
	assert_int_equal(qpt_writer_write(w, rec), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	assert_int_equal(qpt_reader_open(path, NULL, &r), 0);
	while ((n = qpt_reader_next(r, &rec_in)) > 0) {
		if (rec_in.type != PERF_RECORD_SAMPLE)
			continue;
		assert_true(qpt_crash_is_event(rec_in.attr));
		err = qpt_crash_sample_parse(&rec_in, false, out);
		if (!err && out->stack_len)
			memcpy(stack_copy, out->stack, out->stack_len);
	}
	assert_int_equal(n, 0);
	qpt_reader_free(r);
	unlink(path);
	return err;
}

/* The sample form: every field back (the registers through perf's order
 * and RAW), the stack's bytes, one cut at what a record holds. */
static void sample_roundtrip(void **state)
{
	static uint8_t buf[QPT_CRASH_SAMPLE_MAX], stack[70000], got[70000];
	struct qpt_crash in, out;
	size_t i;
	int n;

	(void)state;
	entry(&in, QPT_CRASH_SIGNAL, 8);
	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 7);
	in.stack = stack;
	in.stack_len = 1001;
	in.stack_addr = in.regs[19];
	n = qpt_crash_sample_encode(&in, buf, sizeof(buf));
	assert_true(n > 0 && n % 8 == 0);
	assert_int_equal(sample_read(buf, &out, got), 0);
	assert_int_equal(out.stack_len, 1001);
	assert_memory_equal(got, stack, 1001);
	out.stack = in.stack;
	assert_memory_equal(&out, &in, sizeof(in));
	/* more than a record holds: its first QPT_CRASH_STACK_MAX */
	in.stack_len = sizeof(stack);
	n = qpt_crash_sample_encode(&in, buf, sizeof(buf));
	assert_true(n > 0 && n <= 65535);
	assert_int_equal(sample_read(buf, &out, got), 0);
	assert_int_equal(out.stack_len, QPT_CRASH_STACK_MAX);
	assert_memory_equal(got, stack, QPT_CRASH_STACK_MAX);
	/* a buffer too small, registers missing */
	assert_int_equal(qpt_crash_sample_encode(&in, buf, 1000), -QPT_E_INVAL);
	in.nr_regs = 3;
	assert_int_equal(qpt_crash_sample_encode(&in, buf, sizeof(buf)),
			 -QPT_E_INVAL);
}

/* Samples that do not parse: another RAW version, registers of another
 * ABI, a dyn_size past the bytes. */
static void sample_hostile(void **state)
{
	static uint8_t buf[QPT_CRASH_SAMPLE_MAX], got[256];
	struct qpt_crash in, out;
	uint64_t v;
	uint32_t u;
	int n;

	(void)state;
	entry(&in, QPT_CRASH_TRIGGER, 9);
	in.stack = (const uint8_t *)"0123456789abcdef";
	in.stack_len = 16;
	n = qpt_crash_sample_encode(&in, buf, sizeof(buf));
	assert_true(n > 0);
	/* RAW: at 56 its size, then the version */
	u = 2;
	memcpy(buf + 60, &u, 4);
	assert_int_equal(sample_read(buf, &out, got), -QPT_E_FORMAT);
	u = 1;
	memcpy(buf + 60, &u, 4);
	/* REGS_USER's ABI after RAW: 32-bit registers are not ours */
	v = PERF_SAMPLE_REGS_ABI_32;
	memcpy(buf + 60 + QPT_CRASH_RAW_SIZE, &v, 8);
	assert_int_equal(sample_read(buf, &out, got), -QPT_E_FORMAT);
	v = PERF_SAMPLE_REGS_ABI_64;
	memcpy(buf + 60 + QPT_CRASH_RAW_SIZE, &v, 8);
	/* the last u64: dyn_size */
	v = 17;
	memcpy(buf + n - 8, &v, 8);
	assert_int_equal(sample_read(buf, &out, got), -QPT_E_FORMAT);
	v = 16;
	memcpy(buf + n - 8, &v, 8);
	assert_int_equal(sample_read(buf, &out, got), 0);
	assert_int_equal(out.kind, QPT_CRASH_TRIGGER);
	assert_memory_equal(got, "0123456789abcdef", 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(roundtrip),
	    cmocka_unit_test(hostile),
	    cmocka_unit_test(sample_roundtrip),
	    cmocka_unit_test(sample_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
