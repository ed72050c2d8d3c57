// SPDX-License-Identifier: MIT
/*
 * Reader byte-table tests: perf.data files built by hand, field by field
 * (perfbuild.h), in both byte orders and with attrs of several sizes, must
 * decode to the values written.  The oracle is the table of values below
 * and the layouts of perf_event.h / perf.data-file-format.txt.
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
#include <zstd.h>

#include "qpt/reader.h"
#include "auxfmt/perfbuild.h"

#define ST_A                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |          \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |            \
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | \
	 PERF_SAMPLE_WEIGHT)
#define BST_A (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX)
/* disabled (0), exclude_kernel (5), sample_id_all (18), mmap2 (23) */
#define FLAGS_A ((1ull << 0) | (1ull << 5) | (1ull << 18) | (1ull << 23))

struct layout {
	size_t auxtrace_at, sample_at, data_at, data_end;
};

/* What a kernel after Linux 6.3 (attr VER8, 136 bytes) may put in the
 * fields it adds. */
#define LATER 0x7766554433221100ULL

/* One attr of @asz bytes (its size field says @asz), fields cut at @asz. */
static void put_attr(struct pb *p, uint32_t asz, uint64_t sample_type,
		     uint64_t bst, uint64_t config)
{
	size_t start = p->n;
#define F(w, v)                                         \
	do {                                            \
		if (p->n - start + (w) <= asz)          \
			pb_uint(p, (v), (w));           \
	} while (0)
	F(4, PERF_TYPE_SOFTWARE);
	F(4, asz == PERF_ATTR_SIZE_VER0 ? 0 : asz); /* VER0: size 0 */
	F(8, config);
	F(8, 4000);	   /* sample_period */
	F(8, sample_type);
	F(8, 0);	   /* read_format */
	pb_attr_flags(p, FLAGS_A);
	F(4, 0);	   /* wakeup_events */
	F(4, 0);	   /* bp_type */
	F(8, 0x11);	   /* config1 */
	F(8, 0x22);	   /* config2 */
	F(8, bst);	   /* branch_sample_type */
	F(8, 0);	   /* sample_regs_user */
	F(4, 0);	   /* sample_stack_user */
	F(4, 0);	   /* clockid */
	F(8, 0);	   /* sample_regs_intr */
	F(4, 0x1000);	   /* aux_watermark */
	F(2, 127);	   /* sample_max_stack */
	F(2, 0);
	F(4, 0);	   /* aux_sample_size */
	F(4, 0);
	F(8, 0x5151);	   /* sig_data */
	F(8, 0);	   /* config3 */
	while (p->n - start < asz)
		F(8, LATER);   /* a later kernel's fields */
#undef F
}

static void put_trailer(struct pb *p, uint64_t time, uint64_t id)
{
	pb_u32(p, 100); /* TID */
	pb_u32(p, 101);
	pb_u64(p, time); /* TIME */
	pb_u32(p, 3);	 /* CPU */
	pb_u32(p, 0);
	pb_u64(p, id);	 /* IDENTIFIER */
}

/* put_records' parts: MMAP2, ITRACE_START, AUX; AUXTRACE; the samples. */
static void put_sideband(struct pb *p)
{
	size_t r;

	r = pb_rec(p, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	pb_u32(p, 100);
	pb_u32(p, 101);
	pb_u64(p, 0x400000);
	pb_u64(p, 0x2000);
	pb_u64(p, 0x1000);
	pb_u32(p, 8);	  /* maj */
	pb_u32(p, 1);	  /* min */
	pb_u64(p, 12345); /* ino */
	pb_u64(p, 7);	  /* ino_generation */
	pb_u32(p, 5);	  /* prot */
	pb_u32(p, 2);	  /* flags */
	pb_str(p, "/bin/true", 8);
	put_trailer(p, 1000, 7);
	pb_end(p, r);

	r = pb_rec(p, PERF_RECORD_ITRACE_START, 0);
	pb_u32(p, 100);
	pb_u32(p, 101);
	put_trailer(p, 1001, 8);
	pb_end(p, r);

	r = pb_rec(p, PERF_RECORD_AUX, 0);
	pb_u64(p, 0x100);
	pb_u64(p, 0x40);
	pb_u64(p, PERF_AUX_FLAG_TRUNCATED);
	put_trailer(p, 1002, 8);
	pb_end(p, r);
}

static void put_auxtrace(struct pb *p, struct layout *l)
{
	size_t r;
	int i;

	l->auxtrace_at = r = pb_rec(p, QPT_RECORD_AUXTRACE, 0);
	pb_u64(p, 16);	  /* size */
	pb_u64(p, 0x100); /* offset */
	pb_u64(p, 0xabc); /* reference */
	pb_u32(p, 2);	  /* idx */
	pb_u32(p, 101);	  /* tid */
	pb_u32(p, 3);	  /* cpu */
	pb_u32(p, 0);
	pb_end(p, r);
	for (i = 0; i < 16; i++)
		pb_u8(p, (uint8_t)i);
}

static void put_samples(struct pb *p, struct layout *l, uint64_t st)
{
	size_t r;

	l->sample_at = r = pb_rec(p, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		pb_u64(p, 8);
	pb_u64(p, 0x401000); /* IP */
	pb_u32(p, 100);	     /* TID */
	pb_u32(p, 101);
	if (st & PERF_SAMPLE_TIME)
		pb_u64(p, 1003);
	if (st & PERF_SAMPLE_CPU) {
		pb_u32(p, 3);
		pb_u32(p, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		pb_u64(p, 4000);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		pb_u64(p, 2);
		pb_u64(p, 0x401000);
		pb_u64(p, 0x402000);
	}
	if (st & PERF_SAMPLE_RAW) {
		pb_u32(p, 4);
		pb_bytes(p, "abcd", 4);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		pb_u64(p, 2);
		pb_u64(p, 5); /* hw_idx */
		pb_u64(p, 0x10);
		pb_u64(p, 0x20);
		pb_u64(p, pb_branch_flags(p, 1, 0, 0x123, 5));
		pb_u64(p, 0x30);
		pb_u64(p, 0x40);
		pb_u64(p, pb_branch_flags(p, 0, 1, 7, 1));
	}
	if (st & PERF_SAMPLE_WEIGHT)
		pb_u64(p, 99);
	pb_end(p, r);

	if (st & PERF_SAMPLE_IDENTIFIER) {
		/* a sample of the second attr (id 9) */
		r = pb_rec(p, PERF_RECORD_SAMPLE, 0);
		pb_u64(p, 9);
		pb_u64(p, 0x999);
		pb_u32(p, 1);
		pb_u32(p, 2);
		pb_u64(p, 1004);
		pb_u64(p, 3);
		pb_end(p, r);
	}
}

static void put_records(struct pb *p, struct layout *l, uint64_t st)
{
	size_t r;

	put_sideband(p);
	put_auxtrace(p, l);
	put_samples(p, l, st);
	r = pb_rec(p, QPT_RECORD_FINISHED_ROUND, 0);
	pb_end(p, r);
}

/* A file-mode perf.data; attrs of @asz bytes; two attrs when @two. */
static void build_file(struct pb *p, bool be, uint32_t asz, bool two,
		       struct layout *l)
{
	uint64_t st = two ? ST_A : (PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	size_t attrs_at, ids_at, sect_at;
	int nattr = two ? 2 : 1, i;

	memset(p, 0, sizeof(*p));
	p->be = be;
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 104);
	pb_u64(p, asz + 16u); /* attr_size: attr and its ids section */
	attrs_at = p->n;
	p->n = 104;
	/* attrs, each followed by its ids section; ids after them */
	ids_at = 104 + (size_t)nattr * (asz + 16u);
	for (i = 0; i < nattr; i++) {
		put_attr(p, asz, i ? (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
				      PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				      PERF_SAMPLE_PERIOD) : st,
			 i || !two ? 0 : BST_A, i ? 0x2 : 0x1);
		pb_u64(p, ids_at + 16 * (size_t)i);
		pb_u64(p, 16);
	}
	for (i = 0; i < nattr; i++) { /* ids: 7, 8 and 9, 10 */
		pb_u64(p, i ? 9 : 7);
		pb_u64(p, i ? 10 : 8);
	}
	l->data_at = p->n;
	put_records(p, l, st);
	l->data_end = p->n;
	/* features HOSTNAME (3), NRCPUS (7), AUXTRACE (18) */
	sect_at = p->n;
	p->n += 3 * 16;
	{
		size_t f0 = p->n, f1, f2;

		pb_u32(p, 16);
		pb_str(p, "testhost", 16);
		f1 = p->n;
		pb_u32(p, 4); /* nr_cpus_avail */
		pb_u32(p, 2); /* nr_cpus_online */
		f2 = p->n;
		pb_u64(p, 1);
		pb_u64(p, l->auxtrace_at);
		pb_u64(p, 0x30);
		pb_set_u64(p, sect_at, f0);
		pb_set_u64(p, sect_at + 8, f1 - f0);
		pb_set_u64(p, sect_at + 16, f1);
		pb_set_u64(p, sect_at + 24, f2 - f1);
		pb_set_u64(p, sect_at + 32, f2);
		pb_set_u64(p, sect_at + 40, p->n - f2);
	}
	/* header sections */
	pb_set_u64(p, attrs_at, 104);
	pb_set_u64(p, attrs_at + 8, (uint64_t)nattr * (asz + 16u));
	pb_set_u64(p, attrs_at + 16, l->data_at);
	pb_set_u64(p, attrs_at + 24, l->data_end - l->data_at);
	pb_set_u64(p, attrs_at + 32, 0);
	pb_set_u64(p, attrs_at + 40, 0);
	pb_set_u64(p, attrs_at + 48, (1ull << 3) | (1ull << 7) | (1ull << 18));
	pb_set_u64(p, attrs_at + 56, 0);
	pb_set_u64(p, attrs_at + 64, 0);
	pb_set_u64(p, attrs_at + 72, 0);
}

static struct qpt_reader *open_pb(const struct pb *p)
{
	struct qpt_reader *r = NULL;
	int err = qpt_reader_open_mem(p->b, p->n, "test", NULL, &r);

	if (err)
		fprintf(stderr, "open: %s at 0x%llx\n",
			r ? qpt_reader_errmsg(r) : qpt_strerror(err),
			r ? (unsigned long long)qpt_reader_errpos(r) : 0ull);
	assert_int_equal(err, 0);
	return r;
}

static void next_ok(struct qpt_reader *r, struct qpt_record *rec,
		    uint32_t type)
{
	int ret = qpt_reader_next(r, rec);

	if (ret != 1)
		fprintf(stderr, "next: %d %s at 0x%llx\n", ret,
			qpt_reader_errmsg(r),
			(unsigned long long)qpt_reader_errpos(r));
	assert_int_equal(ret, 1);
	assert_int_equal(rec->type, type);
}

static uint64_t f64(const struct qpt_record *rec, size_t off)
{
	uint64_t v;

	assert_true(off + 8 <= rec->size);
	memcpy(&v, (const uint8_t *)rec->data + off, 8);
	return v;
}

static uint32_t f32(const struct qpt_record *rec, size_t off)
{
	uint32_t v;

	assert_true(off + 4 <= rec->size);
	memcpy(&v, (const uint8_t *)rec->data + off, 4);
	return v;
}

static void check_trailer(const struct qpt_record *rec, uint64_t time,
			  uint64_t id)
{
	assert_int_equal(rec->sid.present,
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_IDENTIFIER);
	assert_int_equal(rec->sid.pid, 100);
	assert_int_equal(rec->sid.tid, 101);
	assert_int_equal(rec->sid.time, time);
	assert_int_equal(rec->sid.cpu, 3);
	assert_int_equal(rec->sid.identifier, id);
	assert_non_null(rec->attr);
	assert_int_equal(rec->attr->attr.config, 1);
}

static void check_attr_a(const struct qpt_attr *a, uint32_t asz, bool be)
{
	uint64_t v;
	size_t i;

	assert_int_equal(a->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a->attr.config, 1);
	assert_int_equal(a->attr.sample_period, 4000);
	assert_int_equal(a->attr.disabled, 1);
	assert_int_equal(a->attr.inherit, 0);
	assert_int_equal(a->attr.exclude_kernel, 1);
	assert_int_equal(a->attr.sample_id_all, 1);
	assert_int_equal(a->attr.mmap2, 1);
	assert_int_equal(a->attr.mmap, 0);
	assert_int_equal(a->nr_ids, 2);
	assert_int_equal(a->ids[0], 7);
	assert_int_equal(a->ids[1], 8);
	if (asz >= PERF_ATTR_SIZE_VER7) {
		assert_int_equal(a->attr.config2, 0x22);
		assert_int_equal(a->attr.branch_sample_type, BST_A);
		assert_int_equal(a->attr.aux_watermark, 0x1000);
		assert_int_equal(a->attr.sample_max_stack, 127);
		assert_int_equal(a->attr.sig_data, 0x5151);
	}
	/* The attr keeps QPT_ATTR_BYTES whatever the kernel header says: the
	 * fields of a later kernel as they are in the file where its byte
	 * order is the host's (their widths are unknown: in a swapped file
	 * they read as zero), zeros past the attr. */
	assert_int_equal(sizeof(a->attr_bytes), QPT_ATTR_BYTES);
	for (i = 136; i < QPT_ATTR_BYTES; i += 8) { /* VER8 */
		memcpy(&v, a->attr_bytes + i, 8);
		assert_int_equal(v, i + 8 <= asz && !be ? LATER : 0);
	}
}

/* check_file's parts, in record order. */
static void check_file_header(struct qpt_reader *r, const struct layout *l,
			      bool be, uint32_t asz)
{
	const struct qpt_auxtrace_index_entry *idx;

	assert_int_equal(qpt_reader_is_swapped(r), be);
	assert_false(qpt_reader_is_pipe(r));
	assert_int_equal(qpt_reader_file_header(r)->data.offset, l->data_at);
	assert_int_equal(qpt_reader_nr_attrs(r), 2);
	check_attr_a(qpt_reader_attr(r, 0), asz, be);
	assert_ptr_equal(qpt_reader_attr_by_id(r, 8), qpt_reader_attr(r, 0));
	assert_ptr_equal(qpt_reader_attr_by_id(r, 10), qpt_reader_attr(r, 1));
	assert_null(qpt_reader_attr_by_id(r, 11));
	assert_string_equal(qpt_reader_feature_string(r, QPT_FEAT_HOSTNAME),
			    "testhost");
	assert_int_equal(qpt_reader_features(r)->nr_cpus_avail, 4);
	assert_int_equal(qpt_reader_features(r)->nr_cpus_online, 2);
	assert_int_equal(qpt_reader_auxtrace_index(r, &idx), 1);
	assert_int_equal(idx[0].file_offset, l->auxtrace_at);
	assert_int_equal(idx[0].sz, 0x30);
}

static void check_file_sideband(struct qpt_reader *r, const struct layout *l)
{
	struct qpt_record rec;

	next_ok(r, &rec, PERF_RECORD_MMAP2);
	assert_int_equal(rec.pos, l->data_at);
	assert_int_equal(rec.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(f32(&rec, 8), 100);
	assert_int_equal(f32(&rec, 12), 101);
	assert_int_equal(f64(&rec, 16), 0x400000);
	assert_int_equal(f64(&rec, 24), 0x2000);
	assert_int_equal(f64(&rec, 32), 0x1000);
	assert_int_equal(f32(&rec, 40), 8);
	assert_int_equal(f32(&rec, 44), 1);
	assert_int_equal(f64(&rec, 48), 12345);
	assert_int_equal(f64(&rec, 56), 7);
	assert_int_equal(f32(&rec, 64), 5);
	assert_int_equal(f32(&rec, 68), 2);
	assert_string_equal((const char *)rec.data + 72, "/bin/true");
	check_trailer(&rec, 1000, 7);

	next_ok(r, &rec, PERF_RECORD_ITRACE_START);
	assert_int_equal(f32(&rec, 8), 100);
	assert_int_equal(f32(&rec, 12), 101);
	check_trailer(&rec, 1001, 8);

	next_ok(r, &rec, PERF_RECORD_AUX);
	assert_int_equal(f64(&rec, 8), 0x100);
	assert_int_equal(f64(&rec, 16), 0x40);
	assert_int_equal(f64(&rec, 24), PERF_AUX_FLAG_TRUNCATED);
	check_trailer(&rec, 1002, 8);
}

static void check_file_auxtrace(struct qpt_reader *r, const struct pb *p,
				const struct layout *l)
{
	struct qpt_record rec;
	int i;

	next_ok(r, &rec, QPT_RECORD_AUXTRACE);
	assert_int_equal(rec.pos, l->auxtrace_at);
	assert_int_equal(rec.size, 0x30);
	assert_int_equal(f64(&rec, 8), 16);
	assert_int_equal(f64(&rec, 16), 0x100);
	assert_int_equal(f64(&rec, 24), 0xabc);
	assert_int_equal(f32(&rec, 32), 2);
	assert_int_equal(f32(&rec, 36), 101);
	assert_int_equal(f32(&rec, 40), 3);
	assert_int_equal(rec.aux_size, 16);
	assert_int_equal(rec.aux_pos, l->auxtrace_at + 0x30);
	/* a span of the input, not a copy */
	assert_ptr_equal(rec.aux, p->b + l->auxtrace_at + 0x30);
	for (i = 0; i < 16; i++)
		assert_int_equal(((const uint8_t *)rec.aux)[i], i);
}

static void check_file_samples(struct qpt_reader *r, const struct layout *l)
{
	struct qpt_record rec;
	struct qpt_sample s;

	next_ok(r, &rec, PERF_RECORD_SAMPLE);
	assert_int_equal(rec.pos, l->sample_at);
	assert_ptr_equal(rec.attr, qpt_reader_attr(r, 0));
	assert_int_equal(qpt_sample_parse(rec.attr, rec.data, rec.size, &s),
			 0);
	assert_int_equal(s.identifier, 8);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.pid, 100);
	assert_int_equal(s.tid, 101);
	assert_int_equal(s.time, 1003);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.period, 4000);
	assert_int_equal(s.callchain_nr, 2);
	assert_int_equal(s.callchain[0], 0x401000);
	assert_int_equal(s.callchain[1], 0x402000);
	assert_int_equal(s.raw_size, 4);
	assert_memory_equal(s.raw, "abcd", 4);
	assert_int_equal(s.branch_nr, 2);
	assert_true(s.has_hw_idx);
	assert_int_equal(s.branch_hw_idx, 5);
	assert_int_equal(s.branches[0].from, 0x10);
	assert_int_equal(s.branches[0].to, 0x20);
	assert_int_equal(s.branches[1].from, 0x30);
	assert_int_equal(s.branches[1].to, 0x40);
	{
		struct perf_branch_entry e;

		memcpy(&e, &s.branches[0], sizeof(e));
		assert_int_equal(e.mispred, 1);
		assert_int_equal(e.predicted, 0);
		assert_int_equal(e.cycles, 0x123);
		assert_int_equal(e.type, 5);
		memcpy(&e, &s.branches[1], sizeof(e));
		assert_int_equal(e.mispred, 0);
		assert_int_equal(e.predicted, 1);
		assert_int_equal(e.cycles, 7);
		assert_int_equal(e.type, 1);
	}
	assert_int_equal(s.weight, 99);
	assert_int_equal(rec.sid.identifier, 8);
	assert_int_equal(rec.sid.time, 1003);

	next_ok(r, &rec, PERF_RECORD_SAMPLE);
	assert_ptr_equal(rec.attr, qpt_reader_attr(r, 1));
	assert_int_equal(qpt_sample_parse(rec.attr, rec.data, rec.size, &s),
			 0);
	assert_int_equal(s.identifier, 9);
	assert_int_equal(s.ip, 0x999);
	assert_int_equal(s.time, 1004);
	assert_int_equal(s.period, 3);
}

/* Every record of the two-attr file, in either byte order. */
static void check_file(bool be, uint32_t asz)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	struct layout l;

	build_file(&p, be, asz, true, &l);
	r = open_pb(&p);
	check_file_header(r, &l, be, asz);
	check_file_sideband(r, &l);
	check_file_auxtrace(r, &p, &l);
	check_file_samples(r, &l);
	next_ok(r, &rec, QPT_RECORD_FINISHED_ROUND);
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
}

static void test_file_le(void **state)
{
	check_file(false, PERF_ATTR_SIZE_VER7);
}

static void test_file_be(void **state)
{
	check_file(true, PERF_ATTR_SIZE_VER7);
}

/* attrs larger than the host's struct: the known part is read */
static void test_attr_larger(void **state)
{
	check_file(false, PERF_ATTR_SIZE_VER7 + 32);
	check_file(true, PERF_ATTR_SIZE_VER7 + 32);
}

/*
 * Sized outputs (libipt's convention): a caller built against an older,
 * smaller struct gets the bytes that fit and nothing past them; one built
 * against a newer, larger struct gets zeros in the fields this library
 * does not know; one below the first version is refused.  The oracle is
 * the same record read into the library's own struct.
 */
/* Two readers' copies of one record: the same fields, the same bytes. */
static void same_record(const struct qpt_record *a, const struct qpt_record *b)
{
	assert_int_equal(a->pos, b->pos);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->misc, b->misc);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->depth, b->depth);
	assert_memory_equal(a->data, b->data, a->size);
	assert_int_equal(!a->attr, !b->attr);
	assert_memory_equal(&a->sid, &b->sid, sizeof(a->sid));
	assert_int_equal(a->aux_size, b->aux_size);
	assert_int_equal(a->aux_pos, b->aux_pos);
}

static void test_sized_outputs(void **state)
{
	static struct pb p;
	struct qpt_reader *r1, *r2;
	struct layout l;
	struct {
		struct qpt_record rec;
		uint8_t later[24];
		uint8_t guard[8];
	} big;
	struct {
		struct qpt_sample s;
		uint8_t later[16];
	} bigs;
	struct qpt_record rec;
	struct qpt_sample s;
	uint8_t small[sizeof(struct qpt_record) + 8];
	size_t cut = offsetof(struct qpt_record, aux_pos) + 8;
	int ret;

	build_file(&p, false, PERF_ATTR_SIZE_VER7, true, &l);
	r1 = open_pb(&p);
	r2 = open_pb(&p);
	assert_int_equal(qpt_reader_next_sized(r1, &rec, cut - 1),
			 -QPT_E_INVAL);
	do {
		memset(&big, 0xa5, sizeof(big));
		memset(small, 0x5a, sizeof(small));
		ret = qpt_reader_next(r1, &rec);
		assert_int_equal(qpt_reader_next_sized(
				     r2, &big.rec, sizeof(big.rec) + 24),
				 ret);
		if (ret <= 0)
			break;
		same_record(&big.rec, &rec);
		assert_true(!memcmp(big.later, (uint8_t[24]){0}, 24));
		assert_int_equal(big.guard[0], 0xa5);
		if (rec.type == PERF_RECORD_SAMPLE) {
			assert_int_equal(qpt_sample_parse(rec.attr, rec.data,
							  rec.size, &s),
					 0);
			memset(&bigs, 0xa5, sizeof(bigs));
			assert_int_equal(
			    qpt_sample_parse_sized(rec.attr, rec.data,
						   rec.size, &bigs.s,
						   sizeof(bigs)),
			    0);
			assert_int_equal(bigs.s.ip, s.ip);
			assert_int_equal(bigs.s.tid, s.tid);
			assert_int_equal(bigs.s.time, s.time);
			assert_int_equal(bigs.s.sample_type, s.sample_type);
			assert_int_equal(bigs.s.aux_size, s.aux_size);
			assert_true(!memcmp(bigs.later, (uint8_t[16]){0}, 16));
			assert_int_equal(
			    qpt_sample_parse_sized(rec.attr, rec.data,
						   rec.size, &bigs.s, 8),
			    -QPT_E_INVAL);
		}
	} while (ret > 0);
	qpt_reader_free(r1);
	qpt_reader_free(r2);
	/* the first version's size: the fields that fit, no byte past */
	r1 = open_pb(&p);
	r2 = open_pb(&p);
	while ((ret = qpt_reader_next(r1, &rec)) > 0) {
		assert_int_equal(qpt_reader_next_sized(
				     r2, (struct qpt_record *)small, cut),
				 1);
		same_record((struct qpt_record *)small, &rec);
		assert_int_equal(small[cut], 0x5a);
	}
	qpt_reader_free(r1);
	qpt_reader_free(r2);
}

/* VER0 attrs (64 bytes, size field 0): the later fields read as zero */
static void test_attr_ver0(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_sample s;
	struct qpt_reader *r;
	const struct qpt_attr *a;
	struct layout l;
	int be;

	for (be = 0; be < 2; be++) {
		build_file(&p, be, PERF_ATTR_SIZE_VER0, false, &l);
		r = open_pb(&p);
		a = qpt_reader_attr(r, 0);
		assert_int_equal(a->attr.sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID);
		assert_int_equal(a->attr.config1, 0x11); /* in VER0 */
		assert_int_equal(a->attr.config2, 0);
		assert_int_equal(a->attr.sig_data, 0);
		assert_int_equal(a->attr.sample_id_all, 1);
		assert_int_equal(a->attr.disabled, 1);
		do /* skip to the sample */
			assert_int_equal(qpt_reader_next(r, &rec), 1);
		while (rec.type != PERF_RECORD_SAMPLE);
		assert_int_equal(qpt_sample_parse(a, rec.data, rec.size, &s), 0);
		assert_int_equal(s.ip, 0x401000);
		assert_int_equal(s.pid, 100);
		assert_int_equal(s.tid, 101);
		qpt_reader_free(r);
	}
}

/* Pipe mode: attrs, features and names arrive as records. */
static void build_pipe(struct pb *p, bool be)
{
	size_t r;

	memset(p, 0, sizeof(*p));
	p->be = be;
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 16);
	r = pb_rec(p, QPT_RECORD_HEADER_ATTR, 0);
	put_attr(p, PERF_ATTR_SIZE_VER7, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_ID, 0, 1);
	pb_u64(p, 41);
	pb_u64(p, 42);
	pb_end(p, r);
	r = pb_rec(p, QPT_RECORD_HEADER_FEATURE, 0);
	pb_u64(p, QPT_FEAT_HOSTNAME);
	pb_u32(p, 8);
	pb_str(p, "pipey", 8);
	pb_end(p, r);
	r = pb_rec(p, QPT_RECORD_HEADER_FEATURE, 0);
	pb_u64(p, QPT_FEAT_CMDLINE);
	pb_u32(p, 2);
	pb_u32(p, 8);
	pb_str(p, "perf", 8);
	pb_u32(p, 8);
	pb_str(p, "record", 8);
	pb_end(p, r);
	r = pb_rec(p, QPT_RECORD_HEADER_FEATURE, 0);
	pb_u64(p, 200); /* unknown: skipped */
	pb_u64(p, 0);
	pb_end(p, r);
	r = pb_rec(p, QPT_RECORD_EVENT_UPDATE, 0);
	pb_u64(p, 2); /* PERF_EVENT_UPDATE__NAME */
	pb_u64(p, 42);
	pb_str(p, "cycles:u", 8);
	pb_end(p, r);
	r = pb_rec(p, PERF_RECORD_SAMPLE, 0);
	pb_u64(p, 0x1234);
	pb_u32(p, 5);
	pb_u32(p, 6);
	pb_u64(p, 42);
	pb_end(p, r);
}

static void test_pipe(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_sample s;
	struct qpt_reader *r;
	const struct qpt_features *f;
	int be;

	for (be = 0; be < 2; be++) {
		build_pipe(&p, be);
		r = open_pb(&p);
		assert_true(qpt_reader_is_pipe(r));
		assert_null(qpt_reader_file_header(r));
		assert_int_equal(qpt_reader_nr_attrs(r), 0);
		next_ok(r, &rec, QPT_RECORD_HEADER_ATTR);
		assert_int_equal(qpt_reader_nr_attrs(r), 1);
		assert_int_equal(qpt_reader_attr(r, 0)->nr_ids, 2);
		assert_int_equal(qpt_reader_attr(r, 0)->ids[1], 42);
		assert_int_equal(qpt_reader_attr(r, 0)->attr.sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					 PERF_SAMPLE_ID);
		assert_false(qpt_reader_has_feature(r, QPT_FEAT_HOSTNAME));
		next_ok(r, &rec, QPT_RECORD_HEADER_FEATURE);
		assert_string_equal(
			qpt_reader_feature_string(r, QPT_FEAT_HOSTNAME),
			"pipey");
		next_ok(r, &rec, QPT_RECORD_HEADER_FEATURE);
		f = qpt_reader_features(r);
		assert_int_equal(f->nr_cmdline, 2);
		assert_string_equal(f->cmdline[1], "record");
		next_ok(r, &rec, QPT_RECORD_HEADER_FEATURE);
		next_ok(r, &rec, QPT_RECORD_EVENT_UPDATE);
		assert_string_equal(qpt_reader_attr(r, 0)->name, "cycles:u");
		next_ok(r, &rec, PERF_RECORD_SAMPLE);
		assert_int_equal(qpt_sample_parse(rec.attr, rec.data, rec.size,
						  &s), 0);
		assert_int_equal(s.ip, 0x1234);
		assert_int_equal(s.pid, 5);
		assert_int_equal(s.tid, 6);
		assert_int_equal(s.id, 42);
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		qpt_reader_free(r);
	}
}

/*
 * COMPRESSED: records compressed as two zstd frames split inside a record,
 * so the record straddles the two COMPRESSED records; a COMPRESSED2 with
 * padding follows.  Inner records come in order, after their COMPRESSED.
 */
static size_t build_compressed(struct pb *p, bool be)
{
	static struct pb inner;
	uint8_t z[4096];
	size_t r0, zn, split, c1;
	int k;

	memset(&inner, 0, sizeof(inner));
	inner.be = be;
	for (k = 0; k < 10; k++) {
		size_t at = pb_rec(&inner, PERF_RECORD_COMM, 0);
		char comm[16];

		pb_u32(&inner, 100 + k);
		pb_u32(&inner, 200 + k);
		snprintf(comm, sizeof(comm), "task%d", k);
		pb_str(&inner, comm, 8);
		pb_end(&inner, at);
	}
	split = inner.n / 2 + 3; /* inside a record */
	memset(p, 0, sizeof(*p));
	p->be = be;
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 16);
	r0 = pb_rec(p, QPT_RECORD_COMPRESSED, 0);
	zn = ZSTD_compress(z, sizeof(z), inner.b, split, 3);
	assert_false(ZSTD_isError(zn));
	pb_bytes(p, z, zn);
	pb_end(p, r0);
	c1 = p->n;
	r0 = pb_rec(p, QPT_RECORD_COMPRESSED2, 0);
	zn = ZSTD_compress(z, sizeof(z), inner.b + split, inner.n - split, 3);
	assert_false(ZSTD_isError(zn));
	pb_u64(p, zn);
	pb_bytes(p, z, zn);
	while (p->n % 8)
		pb_u8(p, 0);
	pb_end(p, r0);
	r0 = pb_rec(p, QPT_RECORD_FINISHED_ROUND, 0);
	pb_end(p, r0);
	return c1;
}

static void test_compressed(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	size_t c1;
	int be, k;

	for (be = 0; be < 2; be++) {
		c1 = build_compressed(&p, be);
		r = open_pb(&p);
		next_ok(r, &rec, QPT_RECORD_COMPRESSED);
		assert_int_equal(rec.depth, 0);
		for (k = 0; k < 10; k++) {
			if (k == 5) /* comm 5 is split: the 2nd record first */
				next_ok(r, &rec, QPT_RECORD_COMPRESSED2);
			next_ok(r, &rec, PERF_RECORD_COMM);
			assert_int_equal(rec.depth, 1);
			assert_int_equal(rec.pos, k < 5 ? 16 : c1);
			assert_int_equal(f32(&rec, 8), 100 + k);
			assert_int_equal(f32(&rec, 12), 200 + k);
			assert_int_equal(((const char *)rec.data)[20], '0' + k);
		}
		next_ok(r, &rec, QPT_RECORD_FINISHED_ROUND);
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		qpt_reader_free(r);
	}
}

/* Every truncation of a file-mode file fails with a position; every
 * truncation of a pipe stream ends cleanly or fails. */
static void test_truncations(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	struct layout l;
	size_t cut;
	int err, pipe;

	for (pipe = 0; pipe < 2; pipe++) {
		if (pipe)
			build_pipe(&p, false);
		else
			build_file(&p, true, PERF_ATTR_SIZE_VER7, true, &l);
		for (cut = 0; cut < p.n; cut++) {
			/* a heap copy of exactly @cut bytes, for ASan */
			uint8_t *b = malloc(cut ? cut : 1);

			memcpy(b, p.b, cut);
			r = NULL;
			err = qpt_reader_open_mem(b, cut, "t", NULL, &r);
			while (!err && (err = qpt_reader_next(r, &rec)) > 0)
				err = 0;
			if (!pipe || cut < 16)
				assert_true(err < 0);
			if (err < 0) {
				assert_non_null(r);
				assert_true(qpt_reader_errmsg(r)[0]);
				assert_true(qpt_reader_errpos(r) <= cut);
			}
			qpt_reader_free(r);
			free(b);
		}
	}
}

/* A regular file is mapped: AUXTRACE payloads and read_at() are spans of
 * the same mapping. */
static void test_file_input(void **state)
{
	static struct pb p;
	char path[] = "/tmp/qpt-test-reader-XXXXXX";
	struct qpt_record rec;
	struct qpt_reader *r;
	struct layout l;
	const void *span;
	int fd;

	build_file(&p, false, PERF_ATTR_SIZE_VER7, true, &l);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p.b, p.n), (ssize_t)p.n);
	close(fd);
	assert_int_equal(qpt_reader_open(path, NULL, &r), 0);
	unlink(path);
	do
		assert_int_equal(qpt_reader_next(r, &rec), 1);
	while (rec.type != QPT_RECORD_AUXTRACE);
	assert_int_equal(qpt_reader_read_at(r, rec.aux_pos, 16, &span), 0);
	assert_ptr_equal(span, rec.aux);
	assert_int_equal(((const uint8_t *)span)[15], 15);
	assert_int_equal(qpt_reader_read_at(r, p.n - 4, 8, &span),
			 -QPT_E_TRUNCATED);
	qpt_reader_free(r);
	assert_int_equal(qpt_reader_open("/nonexistent/x", NULL, &r), -ENOENT);
	assert_null(r);
	qpt_reader_free(NULL);
}

static uint8_t *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/*
 * The real Intel PT recordings: each AUXTRACE payload, as a span of the
 * mapped file and through the index with read_at(), equals the payload
 * extracted independently into aux/NAME.pt (sha256 in the trace's README).
 */
static void check_quipper(const char *dir, const char *file,
			  const char *prefix, bool pipe)
{
	char path[4096];
	struct qpt_record rec;
	struct qpt_reader *r;
	const struct qpt_auxtrace_index_entry *idx;
	size_t nidx, i, n = 0, len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(qpt_reader_open(path, NULL, &r), 0);
	assert_int_equal(qpt_reader_is_pipe(r), pipe);
	while ((ret = qpt_reader_next(r, &rec)) > 0) {
		uint32_t ai, cpu;
		uint8_t *want;
		const void *span;

		if (rec.type != QPT_RECORD_AUXTRACE)
			continue;
		ai = f32(&rec, 32);
		cpu = f32(&rec, 40);
		snprintf(path, sizeof(path), "%s/aux/%s-idx%u-cpu%u.pt", dir,
			 prefix, ai, cpu);
		want = slurp_file(path, &len);
		assert_non_null(want);
		assert_int_equal(rec.aux_size, len);
		assert_memory_equal(rec.aux, want, len);
		if (!pipe) {
			assert_int_equal(qpt_reader_read_at(r, rec.aux_pos, len,
							    &span), 0);
			assert_ptr_equal(span, rec.aux);
		}
		free(want);
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, 2);
	nidx = qpt_reader_auxtrace_index(r, &idx);
	assert_int_equal(nidx, pipe ? 0 : 2);
	for (i = 0; i < nidx; i++) {
		const void *hdr;
		uint32_t type;

		assert_int_equal(idx[i].sz, 0x30);
		assert_int_equal(qpt_reader_read_at(r, idx[i].file_offset,
						    idx[i].sz, &hdr), 0);
		memcpy(&type, hdr, 4);
		assert_int_equal(type, QPT_RECORD_AUXTRACE);
	}
	qpt_reader_free(r);
}

static void test_quipper_aux(void **state)
{
	char dir[4096];
	const char *shared = getenv("QPT_SHARED");

	snprintf(dir, sizeof(dir), "%s/traces/quipper-intel-pt-4.14",
		 shared ? shared : "/nonexistent");
	if (access(dir, R_OK)) {
		skip();
		return;
	}
	check_quipper(dir, "perf.data.intel_pt-4.14", "file", false);
	check_quipper(dir, "perf.data.piped.intel_pt-4.14", "piped", true);
}

/* HEADER_TRACING_DATA: its data (u32 size, padded to 8) follows the record
 * outside header.size, like an AUXTRACE payload. */
static void test_tracing_data(void **state)
{
	static struct pb p;
	struct qpt_record rec;
	struct qpt_reader *r;
	size_t at;
	int be;

	for (be = 0; be < 2; be++) {
		memset(&p, 0, sizeof(p));
		p.be = be;
		pb_u64(&p, QPT_PERF_MAGIC2);
		pb_u64(&p, 16);
		at = pb_rec(&p, QPT_RECORD_HEADER_TRACING_DATA, 0);
		pb_u32(&p, 5);
		pb_u32(&p, 0);
		pb_end(&p, at);
		pb_bytes(&p, "\x08\x00\x00\x00\x44\0\0\0", 8); /* 5 + pad */
		at = pb_rec(&p, QPT_RECORD_FINISHED_ROUND, 0);
		pb_end(&p, at);
		r = open_pb(&p);
		next_ok(r, &rec, QPT_RECORD_HEADER_TRACING_DATA);
		assert_int_equal(f32(&rec, 8), 5);
		next_ok(r, &rec, QPT_RECORD_FINISHED_ROUND);
		assert_int_equal(rec.pos, 16 + 16 + 8);
		assert_int_equal(qpt_reader_next(r, &rec), 0);
		qpt_reader_free(r);
	}
}

/* Options carry their size: unknown trailing bytes must be zero;
 * no_decompress lists COMPRESSED records without their inner records. */
static void test_opts(void **state)
{
	static struct pb p;
	struct {
		struct qpt_reader_opts o;
		uint64_t later;
	} big;
	struct qpt_reader_opts o;
	struct qpt_record rec;
	struct qpt_reader *r;

	build_compressed(&p, false);
	memset(&big, 0, sizeof(big));
	qpt_reader_opts_init(&big.o);
	big.o.size = sizeof(big);
	assert_int_equal(qpt_reader_open_mem(p.b, p.n, "t", &big.o, &r), 0);
	qpt_reader_free(r);
	big.later = 1;
	assert_int_equal(qpt_reader_open_mem(p.b, p.n, "t", &big.o, &r),
			 -QPT_E_INVAL);
	qpt_reader_opts_init(&o);
	o.size = 4;
	assert_int_equal(qpt_reader_open_mem(p.b, p.n, "t", &o, &r),
			 -QPT_E_INVAL);
	qpt_reader_opts_init(&o);
	o.no_decompress = true;
	assert_int_equal(qpt_reader_open_mem(p.b, p.n, "t", &o, &r), 0);
	next_ok(r, &rec, QPT_RECORD_COMPRESSED);
	next_ok(r, &rec, QPT_RECORD_COMPRESSED2);
	next_ok(r, &rec, QPT_RECORD_FINISHED_ROUND);
	assert_int_equal(qpt_reader_next(r, &rec), 0);
	qpt_reader_free(r);
}

static void test_names(void **state)
{
	assert_string_equal(qpt_record_type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(qpt_record_type_name(PERF_RECORD_AUX_OUTPUT_HW_ID),
			    "AUX_OUTPUT_HW_ID");
	assert_string_equal(qpt_record_type_name(QPT_RECORD_AUXTRACE_INFO),
			    "AUXTRACE_INFO");
	assert_string_equal(qpt_record_type_name(QPT_RECORD_FINISHED_ROUND),
			    "FINISHED_ROUND");
	assert_string_equal(qpt_record_type_name(QPT_RECORD_COMPRESSED2),
			    "COMPRESSED2");
	assert_null(qpt_record_type_name(PERF_RECORD_MAX));
	assert_null(qpt_record_type_name(QPT_RECORD_USER_MAX));
	assert_string_equal(qpt_feature_name(QPT_FEAT_HYBRID_TOPOLOGY),
			    "HYBRID_TOPOLOGY");
	assert_null(qpt_feature_name(QPT_FEAT_LAST));
}

static void write_pb(const char *dir, const char *name, const struct pb *p)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(p->b, 1, p->n, f);
		fclose(f);
	}
}

/* QPT_WRITE_CORPUS=DIR: write the hand-built files as fuzz seeds. */
static void write_corpus(const char *dir)
{
	static struct pb p;
	struct layout l;

	build_file(&p, false, PERF_ATTR_SIZE_VER7, true, &l);
	write_pb(dir, "hand-file-le.data", &p);
	build_file(&p, true, PERF_ATTR_SIZE_VER7 + 32, true, &l);
	write_pb(dir, "hand-file-be-big-attr.data", &p);
	build_file(&p, true, PERF_ATTR_SIZE_VER0, false, &l);
	write_pb(dir, "hand-file-be-ver0.data", &p);
	build_pipe(&p, true);
	write_pb(dir, "hand-pipe-be.data", &p);
	build_compressed(&p, true);
	write_pb(dir, "hand-compressed-be.data", &p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_le),
		cmocka_unit_test(test_file_be),
		cmocka_unit_test(test_attr_larger),
		cmocka_unit_test(test_attr_ver0),
		cmocka_unit_test(test_sized_outputs),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_file_input),
		cmocka_unit_test(test_quipper_aux),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_tracing_data),
		cmocka_unit_test(test_names),
	};
	if (getenv("QPT_WRITE_CORPUS")) {
		write_corpus(getenv("QPT_WRITE_CORPUS"));
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
