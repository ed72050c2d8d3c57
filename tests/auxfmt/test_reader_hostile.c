// SPDX-License-Identifier: MIT
/*
 * The reader on hostile and unfinished files, built by hand (perfbuild.h):
 * attrs that share or overlap their ids sections, many attrs listing one
 * id (the attr added last has it, as perf's id hash gives), files whose
 * writer was killed before it finished the header (data size 0, no feature
 * table: the whole records are read, a cut one ends them, with warnings),
 * and inputs on pipes, which must not be read further than the magic or
 * the header's sections (the write ends stay open here: a reader that
 * read on would block, and ctest's TIMEOUT would fail the test).
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

#include "qpt/reader.h"
#include "auxfmt/perfbuild.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID)

/* A VER0 attr (64 bytes): software event @config, sample_type ST. */
static void put_attr(struct pb *p, uint64_t config)
{
	pb_u32(p, PERF_TYPE_SOFTWARE);
	pb_u32(p, PERF_ATTR_SIZE_VER0);
	pb_u64(p, config);
	pb_u64(p, 1); /* sample_period */
	pb_u64(p, ST);
	pb_u64(p, 0); /* read_format */
	pb_attr_flags(p, 0);
	pb_u32(p, 0); /* wakeup_events */
	pb_u32(p, 0); /* bp_type */
	pb_u64(p, 0); /* config1 */
}

static void put_sample(struct pb *p, uint64_t ip, uint64_t id)
{
	size_t at = pb_rec(p, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	pb_u64(p, ip);
	pb_u32(p, 42);
	pb_u32(p, 42);
	pb_u64(p, id);
	pb_end(p, at);
}

/* The file header; its sections and feature bits are set later. */
static void put_header(struct pb *p, bool be)
{
	memset(p, 0, sizeof(*p));
	p->be = be;
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 104);
	pb_u64(p, PERF_ATTR_SIZE_VER0 + 16);
	p->n = 104;
}

static void set_sections(struct pb *p, size_t attrs, size_t nattrs, size_t data,
			 size_t data_size, uint64_t feat_bits)
{
	pb_set_u64(p, 24, attrs);
	pb_set_u64(p, 32, nattrs * (PERF_ATTR_SIZE_VER0 + 16));
	pb_set_u64(p, 40, data);
	pb_set_u64(p, 48, data_size);
	pb_set_u64(p, 72, feat_bits);
}

/*
 * Attrs 0-2 name one ids section {5, 6, 7}, attr 3 its own {8}; then a
 * SAMPLE for ids 6, 8 and 99.
 */
static size_t build_shared(struct pb *p, bool be)
{
	size_t ids_at = 104, attrs_at, data_at;
	int i;

	put_header(p, be);
	pb_u64(p, 5);
	pb_u64(p, 6);
	pb_u64(p, 7);
	pb_u64(p, 8);
	attrs_at = p->n;
	for (i = 0; i < 4; i++) {
		put_attr(p, (uint64_t)i);
		pb_u64(p, i < 3 ? ids_at : ids_at + 24);
		pb_u64(p, i < 3 ? 24 : 8);
	}
	data_at = p->n;
	put_sample(p, 0x1000, 6);
	put_sample(p, 0x2000, 8);
	put_sample(p, 0x3000, 99);
	set_sections(p, attrs_at, 4, data_at, p->n - data_at, 0);
	return data_at;
}

static struct qpt_reader *open_pb(const struct pb *p, int *err,
				  const struct qpt_reader_opts *opts)
{
	struct qpt_reader *r = NULL;

	*err = qpt_reader_open_mem(p->b, p->n, "t", opts, &r);
	return r;
}

static void test_shared_ids(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	const struct qpt_attr *a;
	int be, err, i;

	(void)state;
	for (be = 0; be < 2; be++) {
		build_shared(&p, be);
		r = open_pb(&p, &err, NULL);
		assert_int_equal(err, 0);
		assert_int_equal(qpt_reader_nr_attrs(r), 4);
		for (i = 0; i < 3; i++) {
			a = qpt_reader_attr(r, (size_t)i);
			assert_int_equal(a->nr_ids, 3);
			assert_int_equal(a->ids[0], 5);
			assert_int_equal(a->ids[2], 7);
			/* one array for the one section */
			assert_ptr_equal(a->ids, qpt_reader_attr(r, 0)->ids);
		}
		/* perf: the attr read last has the ids several list */
		assert_int_equal(qpt_reader_attr_by_id(r, 5)->attr.config, 2);
		assert_int_equal(qpt_reader_next(r, &rec), 1);
		assert_int_equal(rec.attr->attr.config, 2);
		assert_int_equal(qpt_reader_next(r, &rec), 1);
		assert_int_equal(rec.attr->attr.config, 3);
		assert_int_equal(qpt_reader_next(r, &rec), 1);
		assert_null(rec.attr); /* id 99: no attr has it */
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		qpt_reader_free(r);
	}
}

/* Eight attrs whose 64-id sections start 8 bytes apart: 4 KiB of ids in a
 * file of 1.2 KiB.  No writer does this; it is refused, not multiplied. */
static void test_ids_overlap(void **state)
{
	static struct pb p;
	struct qpt_reader *r;
	size_t attrs_at, data_at;
	int err, i;

	(void)state;
	put_header(&p, false);
	for (i = 0; i < 72; i++)
		pb_u64(&p, (uint64_t)i);
	attrs_at = p.n;
	for (i = 0; i < 8; i++) {
		put_attr(&p, (uint64_t)i);
		pb_u64(&p, 104 + 8 * (uint64_t)i);
		pb_u64(&p, 64 * 8);
	}
	data_at = p.n;
	set_sections(&p, attrs_at, 8, data_at, 0, 1ull << 3);
	r = open_pb(&p, &err, NULL);
	assert_int_equal(err, -QPT_E_FORMAT);
	assert_non_null(strstr(qpt_reader_errmsg(r), "overlap"));
	qpt_reader_free(r);
}

/*
 * Pipe mode, NA HEADER_ATTR records: attr k (config k) lists ids 1000 + k
 * and 1000 + k - 1, so each id is listed again by the next attr, which then
 * has it.  Checked after every attr (the index merges its runs as they
 * come) and at the end, for every id.
 */
#define NA 600
static void test_many_attrs_pipe(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	size_t at;
	int err, k, j;

	(void)state;
	memset(&p, 0, sizeof(p));
	pb_u64(&p, QPT_PERF_MAGIC2);
	pb_u64(&p, 16);
	for (k = 0; k < NA; k++) {
		at = pb_rec(&p, QPT_RECORD_HEADER_ATTR, 0);
		put_attr(&p, (uint64_t)k);
		pb_u64(&p, 1000 + (uint64_t)k);
		if (k)
			pb_u64(&p, 1000 + (uint64_t)k - 1);
		pb_end(&p, at);
	}
	assert_true(p.n < sizeof(p.b));
	r = open_pb(&p, &err, NULL);
	assert_int_equal(err, 0);
	for (k = 0; k < NA; k++) {
		assert_int_equal(qpt_reader_next(r, &rec), 1);
		assert_int_equal(
		    qpt_reader_attr_by_id(r, 1000 + (uint64_t)k)->attr.config,
		    (uint64_t)k);
		if (k)
			assert_int_equal(
			    qpt_reader_attr_by_id(r, 1000 + (uint64_t)k - 1)
				->attr.config,
			    (uint64_t)k);
	}
	for (j = 0; j < NA; j++)
		assert_int_equal(
		    qpt_reader_attr_by_id(r, 1000 + (uint64_t)j)->attr.config,
		    (uint64_t)(j + 1 < NA ? j + 1 : j));
	assert_null(qpt_reader_attr_by_id(r, 999));
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
}

struct logged {
	int warns;
	char last[256];
};

static void log_cb(enum qpt_log_level level, const char *msg, void *ctx)
{
	struct logged *l = ctx;

	if (level != QPT_LOG_WARN)
		return;
	l->warns++;
	snprintf(l->last, sizeof(l->last), "%s", msg);
}

/*
 * What a killed perf record leaves: the header written at the start, with
 * data size 0 and the feature bits it meant to write (HOSTNAME, NRCPUS)
 * but no table, then the records.  Returns where they start; *@ends gets
 * the end of each of the four.
 */
static size_t build_unfinished(struct pb *p, size_t ends[4])
{
	size_t attrs_at, data_at;
	int i;

	put_header(p, false);
	pb_u64(p, 7);
	attrs_at = p->n;
	put_attr(p, 1);
	pb_u64(p, 104);
	pb_u64(p, 8);
	data_at = p->n;
	for (i = 0; i < 4; i++) {
		put_sample(p, 0x1000 + (uint64_t)i, 7);
		ends[i] = p->n;
	}
	set_sections(p, attrs_at, 1, data_at, 0, (1ull << 3) | (1ull << 7));
	return data_at;
}

static void test_unfinished(void **state)
{
	static struct pb p;
	struct qpt_reader_opts opts;
	struct qpt_record rec;
	struct qpt_reader *r;
	struct logged log;
	size_t ends[4], data_at = build_unfinished(&p, ends), full = p.n;
	size_t cut;
	int err, n;

	(void)state;
	qpt_reader_opts_init(&opts);
	opts.log = log_cb;
	opts.log_ctx = &log;
	/* every cut from the first record's start to the end of the file */
	for (cut = data_at; cut <= full; cut++) {
		memset(&log, 0, sizeof(log));
		p.n = cut;
		r = open_pb(&p, &err, &opts);
		assert_int_equal(err, 0);
		assert_true(qpt_reader_is_unfinished(r));
		assert_false(qpt_reader_has_feature(r, QPT_FEAT_HOSTNAME));
		assert_int_equal(log.warns, 1);
		assert_non_null(strstr(log.last, "data size 0"));
		for (n = 0; n < 4 && ends[n] <= cut; n++) {
			assert_int_equal(qpt_reader_next(r, &rec), 1);
			assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
			assert_int_equal(rec.attr->attr.config, 1);
		}
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		/* a second warning names a record cut short */
		if (cut == (n ? ends[n - 1] : data_at)) {
			assert_int_equal(log.warns, 1);
		} else {
			assert_int_equal(log.warns, 2);
			assert_non_null(strstr(log.last, "cut short"));
		}
		qpt_reader_free(r);
	}
	p.n = full;
}

/* Data size 0 with a feature table after it: a finished file that has no
 * records, not an unfinished one. */
static void test_finished_empty(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	size_t attrs_at, data_at, f0;
	int err;

	(void)state;
	put_header(&p, true);
	attrs_at = p.n;
	put_attr(&p, 1);
	pb_u64(&p, 0);
	pb_u64(&p, 0);
	data_at = p.n;
	p.n += 16; /* the table: HOSTNAME */
	f0 = p.n;
	pb_u32(&p, 8);
	pb_str(&p, "host", 8);
	pb_set_u64(&p, data_at, f0);
	pb_set_u64(&p, data_at + 8, p.n - f0);
	set_sections(&p, attrs_at, 1, data_at, 0, 1ull << 3);
	r = open_pb(&p, &err, NULL);
	assert_int_equal(err, 0);
	assert_false(qpt_reader_is_unfinished(r));
	assert_string_equal(qpt_reader_feature_string(r, QPT_FEAT_HOSTNAME),
			    "host");
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
}

/* @n bytes into a new pipe whose write end stays open (in *@wfd). */
static int pipe_with(const void *b, size_t n, int *wfd)
{
	int fd[2];

	assert_int_equal(pipe(fd), 0);
	assert_int_equal(write(fd[1], b, n), (ssize_t)n);
	*wfd = fd[1];
	return fd[0];
}

static void test_pipe_bounded(void **state)
{
	static struct pb p;
	static const uint8_t junk[64] = {'n', 'o', 't', ' ', 'p', 'e', 'r'};
	struct qpt_record rec;
	struct qpt_reader *r;
	size_t ends[4];
	int rfd, wfd, err, n;

	(void)state;
	/* the magic is checked before anything more is read */
	rfd = pipe_with(junk, sizeof(junk), &wfd);
	assert_int_equal(qpt_reader_open_fd(rfd, "junk", NULL, &r),
			 -QPT_E_FORMAT);
	qpt_reader_free(r);
	close(rfd);
	close(wfd);
	/* a finished file is read as far as its sections go */
	build_shared(&p, true);
	memcpy(p.b + p.n, junk, sizeof(junk));
	rfd = pipe_with(p.b, p.n + sizeof(junk), &wfd);
	assert_int_equal(qpt_reader_open_fd(rfd, "file", NULL, &r), 0);
	assert_false(qpt_reader_is_stream(r)); /* all of it is in */
	for (n = 0; (err = qpt_reader_next(r, &rec)) > 0; n++)
		;
	assert_int_equal(err, 0);
	assert_int_equal(n, 3);
	qpt_reader_free(r);
	close(rfd);
	close(wfd);
	/* an unfinished one gives its records as they come */
	build_unfinished(&p, ends);
	rfd = pipe_with(p.b, ends[2], &wfd);
	assert_int_equal(qpt_reader_open_fd(rfd, "killed", NULL, &r), 0);
	assert_true(qpt_reader_is_unfinished(r));
	assert_true(qpt_reader_is_stream(r));
	for (n = 0; n < 3; n++)
		assert_int_equal(qpt_reader_next(r, &rec), 1);
	assert_int_equal(write(wfd, p.b + ends[2], p.n - ends[2]),
			 (ssize_t)(p.n - ends[2]));
	assert_int_equal(qpt_reader_next(r, &rec), 1);
	assert_int_equal(((const uint64_t *)rec.data)[1], 0x1003);
	close(wfd);
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
	close(rfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_ids),
	    cmocka_unit_test(test_ids_overlap),
	    cmocka_unit_test(test_many_attrs_pipe),
	    cmocka_unit_test(test_unfinished),
	    cmocka_unit_test(test_finished_empty),
	    cmocka_unit_test(test_pipe_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
