// SPDX-License-Identifier: MIT
/*
 * Writer to reader: what qpt writes (file and pipe mode, compressed and
 * not, whole and interrupted) reads back through qpt's reader as the same
 * records in the same order, the same attrs, ids and names, the same
 * features, and an AUXTRACE index that points at the AUXTRACE records.
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
#include "qpt/writer.h"

#define SAMPLE_TYPE                                                            \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)

/* Every record written, as the reader must give it back. */
struct expect {
	uint8_t *bytes;
	size_t len;
	size_t nr;
	unsigned nr_aux;
};

struct sample_rec {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, id, period;
};

struct comm_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[16];
	uint32_t s_pid, s_tid;
	uint64_t s_time, s_id;
};

static char path[64];

static int setup(void **state)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/qpt-rt-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void expect_add(struct expect *e, const void *p, size_t len)
{
	e->bytes = realloc(e->bytes, e->len + len);
	assert_non_null(e->bytes);
	memcpy(e->bytes + e->len, p, len);
	e->len += len;
	e->nr++;
}

static void make_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->size = sizeof(*a);
	a->config = config;
	a->sample_period = 1000;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->comm = 1;
}

static void put(struct qpt_writer *w, struct expect *e, const void *rec)
{
	const struct perf_event_header *h = rec;

	assert_int_equal(qpt_writer_write(w, rec), 0);
	expect_add(e, rec, h->size);
}

/* Byte @i of the payload of AUXTRACE record @n (its size: aux_len(n)). */
static size_t aux_len(unsigned n)
{
	return 100 + n * 700;
}

static uint8_t aux_byte(unsigned n, size_t i)
{
	return (uint8_t)(n * 31 + i);
}

static void put_aux(struct qpt_writer *w, struct expect *e, unsigned n)
{
	size_t len = aux_len(n);
	struct qpt_record_auxtrace hdr;
	uint8_t *p = malloc(len + 8);
	struct iovec iov = {p, len};
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = aux_byte(n, i);
	memset(&hdr, 0, sizeof(hdr));
	hdr.offset = n * 0x10000;
	hdr.reference = n;
	hdr.idx = n % 2;
	hdr.tid = 200 + n;
	hdr.cpu = n % 2;
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1), 0);
	/* the reader gives back the record saying the padded size */
	hdr.header.type = QPT_RECORD_AUXTRACE;
	hdr.header.size = sizeof(hdr);
	hdr.size = (len + 7) & ~(size_t)7;
	expect_add(e, &hdr, sizeof(hdr));
	e->nr_aux++;
	free(p);
}

/*
 * Write a recording; with @cut, flush halfway and free without close: 1
 * with no more than the output buffer after the flush, 2 with enough to
 * reach the disk past it.
 */
static void write_it(bool pipe, int level, int cut, struct expect *e,
		     size_t *at_flush)
{
	static const uint8_t bid[20] = {0xab, 0xcd, 1, 2, 3};
	const char *argv[] = {"/usr/bin/qpt", "record", "-z"};
	struct perf_event_attr a;
	struct qpt_writer_opts o;
	struct qpt_writer *w;
	uint64_t ids1[2] = {11, 12}, ids2[1] = {21};
	struct sample_rec s;
	struct comm_rec c;
	struct perf_event_header round = {QPT_RECORD_FINISHED_ROUND, 0, 8};
	unsigned i;

	qpt_writer_opts_init(&o);
	o.pipe = pipe;
	o.compress = level;
	assert_int_equal(qpt_writer_open(path, &o, &w), 0);
	make_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(qpt_writer_add_attr(w, &a, ids1, 2, "task-clock"), 0);
	make_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(qpt_writer_add_attr(w, &a, ids2, 1, NULL), 0);
	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "round-trip"),
	    0);
	assert_int_equal(qpt_writer_set_cmdline(w, 3, argv), 0);
	assert_int_equal(qpt_writer_add_build_id(w, -1, bid, 20, "/bin/true",
						 PERF_RECORD_MISC_USER),
			 0);

	memset(&c, 0, sizeof(c));
	c.header.type = PERF_RECORD_COMM;
	c.header.size = sizeof(c);
	c.pid = c.tid = c.s_pid = c.s_tid = 100;
	strcpy(c.comm, "rt");
	c.s_time = 5;
	c.s_id = 11;
	put(w, e, &c);
	for (i = 0; i < 4000; i++) {
		memset(&s, 0, sizeof(s));
		s.header.type = PERF_RECORD_SAMPLE;
		s.header.misc = PERF_RECORD_MISC_USER;
		s.header.size = sizeof(s);
		s.ip = 0x1000 + i * 4;
		s.pid = s.tid = 100;
		s.time = 10 + i;
		s.id = i % 3 == 2 ? 21 : 11 + i % 2;
		s.period = 1000;
		put(w, e, &s);
		if (i % 1000 == 999)
			put(w, e, &round);
		if (i % 700 == 0)
			put_aux(w, e, i / 700);
		/* flushes along the way leave gaps in file mode */
		if (!cut && (i == 1500 || i == 3000))
			assert_int_equal(qpt_writer_flush(w), 0);
		if (cut && i == 1999) {
			assert_int_equal(qpt_writer_flush(w), 0);
			*at_flush = e->nr;
		}
	}
	if (cut == 2) {
		/* enough after the flush to reach the disk over the features */
		struct qpt_record_auxtrace hdr = {.idx = 0};
		struct iovec iov = {calloc(1, 400000), 400000};

		assert_non_null(iov.iov_base);
		assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1),
				 0);
		free(iov.iov_base);
	}
	if (cut) {
		qpt_writer_free(w);
		return;
	}
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
}

/* The name of @qa: the reader's, else (pipe mode, where this reader
 * leaves names to the caller) the EVENT_DESC entry holding its first id. */
static const char *attr_name(struct qpt_reader *r, const struct qpt_attr *qa)
{
	const struct qpt_features *f = qpt_reader_features(r);
	size_t i;

	if (qa->name)
		return qa->name;
	for (i = 0; i < f->nr_event_desc; i++)
		if (f->event_desc[i].nr_ids &&
		    f->event_desc[i].ids[0] == qa->ids[0])
			return f->event_desc[i].name;
	return "";
}

static void check_attrs(struct qpt_reader *r)
{
	struct perf_event_attr a;
	const struct qpt_attr *qa;

	assert_int_equal(qpt_reader_nr_attrs(r), 2);
	qa = qpt_reader_attr(r, 0);
	make_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_memory_equal(&qa->attr, &a, sizeof(a));
	assert_int_equal(qa->nr_ids, 2);
	assert_int_equal(qa->ids[0], 11);
	assert_int_equal(qa->ids[1], 12);
	assert_string_equal(attr_name(r, qa), "task-clock");
	qa = qpt_reader_attr(r, 1);
	make_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	assert_memory_equal(&qa->attr, &a, sizeof(a));
	assert_int_equal(qa->nr_ids, 1);
	assert_int_equal(qa->ids[0], 21);
	assert_string_equal(attr_name(r, qa), "cycles"); /* perf's name */
	assert_ptr_equal(qpt_reader_attr_by_id(r, 21), qa);
}

/* The features lent carry their size and their arrays' element sizes:
 * this version's, the structs as compiled here. */
static void check_features_sized(const struct qpt_features *f)
{
	assert_int_equal(f->struct_size, sizeof(*f));
	assert_true(QPT_SIZED_HAS(struct qpt_features, f, caches_size));
	assert_int_equal(f->build_ids_size, sizeof(*f->build_ids));
	assert_int_equal(f->event_desc_size, sizeof(*f->event_desc));
	assert_int_equal(f->topology_cpus_size, sizeof(*f->topology_cpus));
	assert_int_equal(f->numa_nodes_size, sizeof(*f->numa_nodes));
	assert_int_equal(f->pmu_mappings_size, sizeof(*f->pmu_mappings));
	assert_int_equal(f->groups_size, sizeof(*f->groups));
	assert_int_equal(f->cpu_pmu_caps_size, sizeof(*f->cpu_pmu_caps));
	assert_int_equal(f->hybrid_nodes_size, sizeof(*f->hybrid_nodes));
	assert_int_equal(f->caches_size, sizeof(*f->caches));
}

static void check_features(struct qpt_reader *r, bool pipe, int level)
{
	const struct qpt_features *f = qpt_reader_features(r);

	assert_string_equal(qpt_reader_feature_string(r, QPT_FEAT_HOSTNAME),
			    "round-trip");
	assert_true(qpt_reader_has_feature(r, QPT_FEAT_CMDLINE));
	assert_int_equal(f->nr_cmdline, 3);
	assert_string_equal(f->cmdline[0], "/usr/bin/qpt");
	assert_string_equal(f->cmdline[2], "-z");
	assert_true(qpt_reader_has_feature(r, QPT_FEAT_EVENT_DESC));
	assert_int_equal(qpt_reader_has_feature(r, QPT_FEAT_COMPRESSED),
			 level > 0);
	if (level) {
		assert_int_equal(f->compressed.type, 1);
		assert_int_equal(f->compressed.level, level);
		assert_int_equal(f->compressed.mmap_len, 528384);
	}
	if (!pipe) {
		/* pipe mode sends build-ids as records, not a feature */
		assert_int_equal(f->nr_build_ids, 1);
		assert_string_equal(f->build_ids[0].filename, "/bin/true");
		assert_int_equal(f->build_ids[0].size, 20);
		assert_int_equal(f->build_ids[0].id[1], 0xcd);
		assert_ptr_equal(QPT_FEATURES_AT(f, build_ids, 0),
				 &f->build_ids[0]);
	}
	check_features_sized(f);
}

/* Read everything back and compare with @e (its first @nr records). */
/* AUXTRACE payload @n as written: its bytes, zeros up to 8-byte padding. */
static void check_payload(const struct qpt_record *rec, unsigned n)
{
	const uint8_t *p = rec->aux;
	size_t i;

	assert_int_equal(rec->aux_size, (aux_len(n) + 7) & ~(size_t)7);
	for (i = 0; i < rec->aux_size; i++)
		if (p[i] != (i < aux_len(n) ? aux_byte(n, i) : 0))
			fail_msg("payload %u byte %zu", n, i);
}

/* The AUXTRACE index: none in pipe mode, else every AUXTRACE record. */
static void check_index(struct qpt_reader *r, bool pipe,
			const uint64_t *aux_pos, size_t nr_aux)
{
	const struct qpt_auxtrace_index_entry *idx;
	size_t nr_idx, i;

	nr_idx = qpt_reader_auxtrace_index(r, &idx);
	if (pipe) {
		assert_int_equal(nr_idx, 0);
		return;
	}
	assert_int_equal(nr_idx, nr_aux);
	for (i = 0; i < nr_idx; i++) {
		assert_int_equal(idx[i].file_offset, aux_pos[i]);
		assert_int_equal(idx[i].sz, 0x30);
	}
}

static void read_back(bool pipe, int level, const struct expect *e, size_t nr)
{
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	uint64_t aux_pos[16];
	size_t off = 0, got = 0, nr_aux = 0;
	unsigned comp = 0, extra = 0, gaps = 0;
	int err;

	err = qpt_reader_open(path, NULL, &r);
	if (err)
		fail_msg("open: %s: %s", qpt_strerror(err),
			 r ? qpt_reader_errmsg(r) : "");
	assert_int_equal(qpt_reader_is_pipe(r), pipe);
	while ((err = qpt_reader_next(r, &rec)) > 0) {
		if (rec.type == QPT_RECORD_COMPRESSED) {
			assert_int_equal(rec.depth, 0);
			comp++;
			continue;
		}
		if (rec.type == QPT_RECORD_HEADER_EVENT_TYPE) {
			/* the filler over a flush's features */
			assert_false(pipe);
			gaps++;
			continue;
		}
		if (rec.type == QPT_RECORD_HEADER_ATTR ||
		    rec.type == QPT_RECORD_HEADER_FEATURE ||
		    rec.type == QPT_RECORD_HEADER_BUILD_ID) {
			assert_true(pipe);
			extra++;
			continue;
		}
		assert_true(got < nr);
		/* compressed: the kernel's types; perf's own as perf record
		 * writes them, apart */
		assert_int_equal(rec.depth,
				 level && rec.type < QPT_RECORD_HEADER_ATTR);
		assert_true(off + rec.size <= e->len);
		assert_memory_equal(rec.data, e->bytes + off, rec.size);
		if (rec.type == QPT_RECORD_AUXTRACE) {
			assert_true(nr_aux < 16);
			check_payload(&rec, (unsigned)nr_aux);
			aux_pos[nr_aux++] = rec.pos;
		}
		if (rec.type == PERF_RECORD_SAMPLE) {
			assert_non_null(rec.attr);
			assert_int_equal(
			    rec.sid.id,
			    ((const struct sample_rec *)rec.data)->id);
		}
		off += rec.size;
		got++;
	}
	if (err < 0)
		fail_msg("next: %s at 0x%llx: %s", qpt_strerror(err),
			 (unsigned long long)qpt_reader_errpos(r),
			 qpt_reader_errmsg(r));
	assert_int_equal(got, nr);
	assert_int_equal(comp > 0, level > 0);
	assert_int_equal(extra > 0, pipe);
	/* two flushes before close: two gaps; one before a cut: none */
	assert_int_equal(gaps, pipe || nr < e->nr ? 0 : 2);
	check_attrs(r);
	check_features(r, pipe, level);
	check_index(r, pipe, aux_pos, nr_aux);
	qpt_reader_free(r);
}

static void roundtrip(bool pipe, int level)
{
	struct expect e = {0};

	write_it(pipe, level, 0, &e, NULL);
	read_back(pipe, level, &e, e.nr);
	free(e.bytes);
}

static void test_file(void **state)
{
	roundtrip(false, 0);
}

static void test_file_z(void **state)
{
	roundtrip(false, 3);
}

static void test_pipe(void **state)
{
	roundtrip(true, 0);
}

static void test_pipe_z(void **state)
{
	roundtrip(true, 1);
}

static void interrupted(int level, int cut)
{
	struct expect e = {0};
	size_t at = 0;

	write_it(false, level, cut, &e, &at);
	assert_true(at > 0 && at < e.nr);
	read_back(false, level, &e, at);
	free(e.bytes);
}

static void test_interrupted(void **state)
{
	interrupted(0, 1);
}

static void test_interrupted_z(void **state)
{
	interrupted(1, 1);
}

static void test_interrupted_later(void **state)
{
	interrupted(0, 2);
}

static void test_interrupted_later_z(void **state)
{
	interrupted(1, 2);
}

/* Nothing but open: the header alone is a (empty) perf.data already. */
static void test_open_only(void **state)
{
	struct qpt_writer *w;
	struct qpt_reader *r = NULL;
	struct qpt_record rec;

	assert_int_equal(qpt_writer_open(path, NULL, &w), 0);
	qpt_writer_free(w);
	assert_int_equal(qpt_reader_open(path, NULL, &r), 0);
	assert_int_equal(qpt_reader_nr_attrs(r), 0);
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_file),
	    T(test_file_z),
	    T(test_pipe),
	    T(test_pipe_z),
	    T(test_interrupted),
	    T(test_interrupted_z),
	    T(test_interrupted_later),
	    T(test_interrupted_later_z),
	    T(test_open_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
