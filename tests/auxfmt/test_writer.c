// SPDX-License-Identifier: MIT
/*
 * Byte tables of what the writer puts on disk, against perf's layout
 * (util/header.c and a file `perf record` made here: header 104 bytes,
 * ids at 104, attrs at 120 with attr_size 144, data at 264 for one attr
 * with two ids; strings as u32 64 + 64 bytes; AUXTRACE index entries
 * {offset, 0x30}), and zstd's own decoder as the oracle of COMPRESSED
 * records.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "auxfmt/writer_priv.h"
#include "qpt/writer.h"

struct fixture {
	char path[64];
	uint8_t *buf;
	size_t len;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return -1;
	snprintf(f->path, sizeof(f->path), "/tmp/qpt-writer-XXXXXX");
	fd = mkstemp(f->path);
	if (fd < 0)
		return -1;
	close(fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	free(f->buf);
	free(f);
	return 0;
}

static void slurp(struct fixture *f)
{
	FILE *fp = fopen(f->path, "rb");
	long n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	free(f->buf);
	f->buf = malloc((size_t)n + 1);
	assert_non_null(f->buf);
	f->len = fread(f->buf, 1, (size_t)n, fp);
	assert_int_equal(f->len, (size_t)n);
	fclose(fp);
}

static uint64_t u64_at(const struct fixture *f, uint64_t off)
{
	uint64_t v;

	assert_true(off + 8 <= f->len);
	memcpy(&v, f->buf + off, 8);
	return v;
}

static uint32_t u32_at(const struct fixture *f, uint64_t off)
{
	uint32_t v;

	assert_true(off + 4 <= f->len);
	memcpy(&v, f->buf + off, 4);
	return v;
}

static void task_clock_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = sizeof(*attr);
	attr->config = PERF_COUNT_SW_TASK_CLOCK;
	attr->sample_period = 4000;
	attr->freq = 1;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	attr->sample_id_all = 1;
	attr->comm = 1;
	attr->mmap = 1;
}

/* A SAMPLE of task_clock_attr: ip, pid/tid, time, period. */
struct sample_rec {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t period;
};

static void make_sample(struct sample_rec *s, uint64_t i)
{
	memset(s, 0, sizeof(*s));
	s->header.type = PERF_RECORD_SAMPLE;
	s->header.misc = PERF_RECORD_MISC_USER;
	s->header.size = sizeof(*s);
	s->ip = 0x400000 + i * 0x10 + (i * 2654435761u % 4096);
	s->pid = 100;
	s->tid = 101;
	s->time = 1000000 + i;
	s->period = 1;
}

static struct qpt_writer *open_writer(const char *path, bool pipe, int level)
{
	struct qpt_writer_opts o;
	struct qpt_writer *w = NULL;
	struct perf_event_attr attr;
	uint64_t ids[2] = {0x11, 0x22};

	qpt_writer_opts_init(&o);
	o.pipe = pipe;
	o.compress = level;
	assert_int_equal(qpt_writer_open(path, &o, &w), 0);
	task_clock_attr(&attr);
	assert_int_equal(qpt_writer_add_attr(w, &attr, ids, 2, "task-clock"),
			 0);
	return w;
}

/* Offset of feature @feat's section in a file-mode file, or 0. */
static uint64_t feat_section(const struct fixture *f, int feat, uint64_t *size)
{
	uint64_t bits[4], tab = u64_at(f, 40) + u64_at(f, 48);
	int i, slot = 0;

	memcpy(bits, f->buf + 72, sizeof(bits));
	for (i = 0; i < 256; i++) {
		if (!(bits[i / 64] & (1ULL << (i % 64))))
			continue;
		if (i == feat) {
			*size = u64_at(f, tab + 16 * slot + 8);
			return u64_at(f, tab + 16 * slot);
		}
		slot++;
	}
	return 0;
}

static void test_header_and_attr(void **state)
{
	struct fixture *f = *state;
	struct perf_event_attr attr;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	struct sample_rec s;

	make_sample(&s, 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);

	assert_memory_equal(f->buf, "PERFILE2", 8);
	assert_int_equal(u64_at(f, 8), 104);  /* header size */
	assert_int_equal(u64_at(f, 16), 144); /* attr_size */
	assert_int_equal(u64_at(f, 24), 120); /* attrs.offset */
	assert_int_equal(u64_at(f, 32), 144); /* attrs.size */
	assert_int_equal(u64_at(f, 40), 264); /* data.offset */
	assert_int_equal(u64_at(f, 48), 40);  /* data.size */
	assert_int_equal(u64_at(f, 56), 0);   /* event_types */
	assert_int_equal(u64_at(f, 64), 0);
	/* the ids, then the attr entry pointing at them */
	assert_int_equal(u64_at(f, 104), 0x11);
	assert_int_equal(u64_at(f, 112), 0x22);
	task_clock_attr(&attr);
	assert_memory_equal(f->buf + 120, &attr, 128);
	assert_int_equal(u64_at(f, 248), 104);
	assert_int_equal(u64_at(f, 256), 16);
	assert_memory_equal(f->buf + 264, &s, sizeof(s));
	/* only EVENT_DESC (12) was asked for */
	assert_int_equal(u64_at(f, 72), 1ULL << QPT_FEAT_EVENT_DESC);
}

static void test_attr_older_and_newer(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	unsigned char big[sizeof(struct perf_event_attr) + 8];
	struct perf_event_attr attr;

	/* a VER0 attr is widened; unknown trailing bytes must be zero */
	task_clock_attr(&attr);
	attr.size = PERF_ATTR_SIZE_VER0;
	assert_int_equal(qpt_writer_add_attr(w, &attr, NULL, 0, NULL), 0);
	memset(big, 0, sizeof(big));
	memcpy(big, &attr, sizeof(attr));
	((struct perf_event_attr *)big)->size = sizeof(big);
	assert_int_equal(qpt_writer_add_attr(w, (void *)big, NULL, 0, NULL), 0);
	big[sizeof(big) - 1] = 1;
	assert_int_equal(qpt_writer_add_attr(w, (void *)big, NULL, 0, NULL),
			 -QPT_E_UNSUPPORTED);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	assert_int_equal(u64_at(f, 32), 3 * 144);
	/* the VER0 attr now says 128 and has zeroes past 64 bytes */
	assert_int_equal(u32_at(f, u64_at(f, 24) + 144 + 4), 128);
	assert_int_equal(u64_at(f, u64_at(f, 24) + 144 + 64), 0);
}

static void test_feature_string(void **state)
{
	static const uint8_t want[68] = {0x40, 0, 0, 0, 'v', 'm'};
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	uint64_t off, size = 0;

	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "vm"), 0);
	assert_int_equal(qpt_writer_set_feature_string(w, QPT_FEAT_NRCPUS, "2"),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	assert_int_equal(u64_at(f, 72), (1ULL << QPT_FEAT_HOSTNAME) |
					    (1ULL << QPT_FEAT_EVENT_DESC));
	/* data is empty: the section table follows the attrs directly */
	assert_int_equal(u64_at(f, 48), 0);
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_int_equal(off, 264 + 2 * 16);
	assert_int_equal(size, 68);
	assert_memory_equal(f->buf + off, want, sizeof(want));
}

static void test_string_lengths(void **state)
{
	struct qpt_wbuf b = {0};
	char s[65];

	/* 63 characters and the NUL fill 64 bytes exactly */
	memset(s, 'x', 63);
	s[63] = '\0';
	assert_int_equal(qpt_wbuf_add_string(&b, s), 0);
	assert_int_equal(b.len, 4 + 64);
	assert_int_equal(b.data[0], 64);
	assert_int_equal(b.data[4 + 63], 0);
	/* 64 characters need a second block */
	b.len = 0;
	memset(s, 'z', 64);
	s[64] = '\0';
	assert_int_equal(qpt_wbuf_add_string(&b, s), 0);
	assert_int_equal(b.len, 4 + 128);
	assert_int_equal(b.data[0], 128);
	assert_int_equal(b.data[4 + 64], 0);
	/* the empty string still takes a block */
	b.len = 0;
	assert_int_equal(qpt_wbuf_add_string(&b, ""), 0);
	assert_int_equal(b.len, 4 + 64);
	qpt_wbuf_release(&b);
}

static void test_nrcpus_cmdline_build_id(void **state)
{
	static const uint8_t nrcpus[8] = {4, 0, 0, 0, 2, 0, 0, 0};
	static const uint8_t bid[20] = {0xde, 0xad, 0xbe, 0xef};
	const char *argv[] = {"record", "-o", "x"};
	struct qpt_wbuf b = {0};

	assert_int_equal(qpt_feat_encode_nrcpus(&b, 4, 2), 0);
	assert_memory_equal(b.data, nrcpus, 8);
	b.len = 0;
	/* count = argc + 1 (the executable), then strings */
	assert_int_equal(qpt_feat_encode_cmdline(&b, "/usr/bin/qpt", 3, argv),
			 0);
	assert_int_equal(b.len, 4 + 4 * 68);
	assert_int_equal(b.data[0], 4);
	assert_string_equal((char *)b.data + 8, "/usr/bin/qpt");
	assert_string_equal((char *)b.data + 8 + 68, "record");
	assert_string_equal((char *)b.data + 8 + 3 * 68, "x");
	b.len = 0;
	/* build_id_event: header, pid, 20 id bytes, size byte, padding,
	 * then the name padded to 64 */
	assert_int_equal(qpt_feat_encode_build_id(&b, -1, bid, 4, "/bin/ls",
						  PERF_RECORD_MISC_USER),
			 0);
	assert_int_equal(b.len, 36 + 64);
	assert_int_equal(b.data[0], QPT_RECORD_HEADER_BUILD_ID);
	assert_int_equal(b.data[4] | b.data[5] << 8,
			 PERF_RECORD_MISC_USER | (1 << 15));
	assert_int_equal(b.data[6] | b.data[7] << 8, 100);
	assert_int_equal(b.data[8], 0xff);
	assert_memory_equal(b.data + 12, bid, 4);
	assert_int_equal(b.data[32], 4);
	assert_string_equal((char *)b.data + 36, "/bin/ls");
	qpt_wbuf_release(&b);
}

static void test_auxtrace_record_and_index(void **state)
{
	static const uint8_t payload[5] = {1, 2, 3, 4, 5};
	static const uint8_t want[48 + 8] = {
	    0x47, 0,	0, 0, 0,   0, 0x30, 0, /* AUXTRACE, size */
	    8,	  0,	0, 0, 0,   0, 0,    0, /* size (padded) */
	    0,	  0x10, 0, 0, 0,   0, 0,    0, /* offset */
	    7,	  0,	0, 0, 0,   0, 0,    0, /* reference */
	    1,	  0,	0, 0, 100, 0, 0,    0, /* idx, tid */
	    2,	  0,	0, 0, 0,   0, 0,    0, /* cpu, reserved */
	    1,	  2,	3, 4, 5,   0, 0,    0, /* payload, padding */
	};
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	struct qpt_record_auxtrace hdr;
	struct iovec iov[2] = {{(void *)payload, 2},
			       {(void *)(payload + 2), 3}};
	struct sample_rec s;
	uint64_t off, size = 0;

	memset(&hdr, 0, sizeof(hdr));
	hdr.size = 5;
	hdr.offset = 0x1000;
	hdr.reference = 7;
	hdr.idx = 1;
	hdr.tid = 100;
	hdr.cpu = 2;
	make_sample(&s, 1);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, iov, 2), 0);
	hdr.size = 3; /* neither the payload size nor its padded size */
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, iov, 2),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	assert_int_equal(u64_at(f, 48), 40 + sizeof(want));
	assert_memory_equal(f->buf + 264 + 40, want, sizeof(want));
	off = feat_section(f, QPT_FEAT_AUXTRACE, &size);
	assert_int_not_equal(off, 0);
	assert_int_equal(size, 8 + 16);
	assert_int_equal(u64_at(f, off), 1);
	assert_int_equal(u64_at(f, off + 8), 264 + 40);
	assert_int_equal(u64_at(f, off + 16), 0x30);
}

static void test_big_auxtrace(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	struct qpt_record_auxtrace hdr;
	size_t n = 3 * 1024 * 1024 + 3, i;
	uint8_t *p = malloc(n);
	struct iovec iov = {p, n};

	assert_non_null(p);
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7);
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1), 0);
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1), 0);
	assert_int_equal(qpt_writer_bytes(w), 264 + 2 * (48 + n + 5));
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	assert_int_equal(u64_at(f, 264 + 8), n + 5);
	assert_memory_equal(f->buf + 264 + 48, p, n);
	assert_memory_equal(f->buf + 264 + 2 * 48 + n + 5, p, n);
	free(p);
}

static void test_rejects(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	struct perf_event_attr attr;
	struct perf_event_header h = {QPT_RECORD_AUXTRACE, 0, 48};
	struct sample_rec s;
	uint8_t raw[16] = {0};

	assert_int_equal(qpt_writer_write(w, &h), -QPT_E_INVAL);
	h.type = QPT_RECORD_COMPRESSED;
	assert_int_equal(qpt_writer_write(w, &h), -QPT_E_INVAL);
	h.type = PERF_RECORD_SAMPLE;
	h.size = 4;
	assert_int_equal(qpt_writer_write(w, &h), -QPT_E_INVAL);
	assert_int_equal(
	    qpt_writer_set_feature_raw(w, QPT_FEAT_AUXTRACE, raw, 16),
	    -QPT_E_INVAL);
	assert_int_equal(qpt_writer_set_feature_raw(w, QPT_FEAT_LAST, raw, 16),
			 -QPT_E_INVAL);
	/* a build-id run whose record runs past its end */
	raw[6] = 200;
	assert_int_equal(
	    qpt_writer_set_feature_raw(w, QPT_FEAT_BUILD_ID, raw, 16),
	    -QPT_E_FORMAT);
	make_sample(&s, 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	task_clock_attr(&attr);
	assert_int_equal(qpt_writer_add_attr(w, &attr, NULL, 0, NULL),
			 -QPT_E_STATE);
	assert_int_equal(qpt_writer_close(w), 0);
	assert_int_equal(qpt_writer_write(w, &s), -QPT_E_STATE);
	qpt_writer_free(w);
	qpt_writer_free(NULL);
}

static void test_opts_size(void **state)
{
	struct fixture *f = *state;
	struct {
		struct qpt_writer_opts o;
		uint64_t more;
	} big;
	struct qpt_writer *w = (void *)1;

	qpt_writer_opts_init(&big.o);
	big.o.size = sizeof(big);
	big.more = 1;
	assert_int_equal(qpt_writer_open(f->path, &big.o, &w), -QPT_E_INVAL);
	assert_null(w);
	big.more = 0;
	big.o.compress = 23;
	assert_int_equal(qpt_writer_open(f->path, &big.o, &w), -QPT_E_INVAL);
	big.o.compress = 0;
	assert_int_equal(qpt_writer_open(f->path, &big.o, &w), 0);
	qpt_writer_free(w);
	assert_int_equal(qpt_writer_open("/nonexistent/dir/x", NULL, &w),
			 -ENOENT);
}

/* Decompress the COMPRESSED records in [p, end) with one zstd stream. */
static size_t inflate_records(const uint8_t *p, const uint8_t *end,
			      uint8_t *out, size_t cap, size_t *nr_comp,
			      size_t *nr_full)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	struct perf_event_header h;
	size_t len = 0;

	assert_non_null(d);
	*nr_comp = 0;
	*nr_full = 0;
	while (p < end) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer o;

		memcpy(&h, p, sizeof(h));
		assert_true(h.size > 8 && p + h.size <= end);
		if (h.type != QPT_RECORD_COMPRESSED) {
			/* an uncompressed record: copied as is */
			memcpy(out + len, p, h.size);
			len += h.size;
			p += h.size;
			continue;
		}
		(*nr_comp)++;
		if (h.size == 0xffff)
			(*nr_full)++;
		in.src = p + 8;
		in.size = h.size - 8u;
		in.pos = 0;
		while (in.pos < in.size) {
			o.dst = out + len;
			o.size = cap - len;
			o.pos = 0;
			assert_false(
			    ZSTD_isError(ZSTD_decompressStream(d, &o, &in)));
			len += o.pos;
		}
		p += h.size;
	}
	ZSTD_freeDCtx(d);
	return len;
}

static void test_compressed(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 3);
	size_t n = 20000, i, got, nr_comp, nr_full, cap = n * 40 + 70000;
	uint8_t *want = malloc(cap), *out = malloc(cap), *big;
	struct perf_event_header *bh;
	uint64_t off, size = 0, x;
	size_t wlen = 0;

	assert_non_null(want);
	assert_non_null(out);
	for (i = 0; i < n; i++) {
		struct sample_rec s;

		make_sample(&s, i);
		assert_int_equal(qpt_writer_write(w, &s), 0);
		memcpy(want + wlen, &s, sizeof(s));
		wlen += sizeof(s);
	}
	/* a record that does not compress and is bigger than a batch */
	big = want + wlen;
	bh = (void *)big;
	bh->type = 63; /* a kernel type unknown to perf: opaque */
	bh->misc = 0;
	bh->size = 65535;
	for (i = 8, x = 88172645463325252ULL; i < bh->size; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		big[i] = (uint8_t)x;
	}
	assert_int_equal(qpt_writer_write(w, big), 0);
	wlen += bh->size;
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	got = inflate_records(f->buf + u64_at(f, 40),
			      f->buf + u64_at(f, 40) + u64_at(f, 48), out, cap,
			      &nr_comp, &nr_full);
	assert_int_equal(got, wlen);
	assert_memory_equal(out, want, wlen);
	/* several records; the incompressible one filled one to 0xffff and
	 * went on in the next */
	assert_true(nr_comp > 3);
	assert_int_equal(nr_full, 1);
	off = feat_section(f, QPT_FEAT_COMPRESSED, &size);
	assert_int_not_equal(off, 0);
	assert_int_equal(size, 20);
	assert_int_equal(u32_at(f, off), 0);	 /* version, as perf */
	assert_int_equal(u32_at(f, off + 4), 1); /* zstd */
	assert_int_equal(u32_at(f, off + 8), 3); /* level */
	assert_true(u32_at(f, off + 12) >= 1);	 /* ratio */
	assert_int_equal(u32_at(f, off + 16), 528384);
	free(want);
	free(out);
}

static void test_compressed_keeps_aux_apart(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 1);
	struct qpt_record_auxtrace hdr;
	uint8_t payload[16] = {0xaa};
	struct iovec iov = {payload, sizeof(payload)};
	struct perf_event_header h;
	struct sample_rec s;
	uint64_t off, size = 0, p;

	make_sample(&s, 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1), 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	/* COMPRESSED, AUXTRACE + payload, COMPRESSED */
	p = u64_at(f, 40);
	memcpy(&h, f->buf + p, sizeof(h));
	assert_int_equal(h.type, QPT_RECORD_COMPRESSED);
	p += h.size;
	memcpy(&h, f->buf + p, sizeof(h));
	assert_int_equal(h.type, QPT_RECORD_AUXTRACE);
	off = feat_section(f, QPT_FEAT_AUXTRACE, &size);
	assert_int_equal(u64_at(f, off + 8), p);
	assert_int_equal(f->buf[p + 48], 0xaa);
	p += 48 + 16;
	memcpy(&h, f->buf + p, sizeof(h));
	assert_int_equal(h.type, QPT_RECORD_COMPRESSED);
	assert_int_equal(p + h.size, u64_at(f, 40) + u64_at(f, 48));
}

/* perf's own types (AUXTRACE_INFO, FINISHED_ROUND) stay out of COMPRESSED
 * records, behind what was queued, as perf record writes them: perf
 * inject passes COMPRESSED records on unread. */
static void test_compressed_keeps_perf_types_apart(void **state)
{
	static const uint32_t want[] = {
	    QPT_RECORD_COMPRESSED, QPT_RECORD_AUXTRACE_INFO,
	    QPT_RECORD_FINISHED_ROUND, QPT_RECORD_COMPRESSED};
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 1);
	struct perf_event_header info[4] = {{QPT_RECORD_AUXTRACE_INFO, 0, 32}};
	struct perf_event_header round = {QPT_RECORD_FINISHED_ROUND, 0, 8};
	struct perf_event_header h;
	struct sample_rec s;
	uint64_t p;
	size_t i;

	make_sample(&s, 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	assert_int_equal(qpt_writer_write(w, info), 0);
	assert_int_equal(qpt_writer_write(w, &round), 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	p = u64_at(f, 40);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		memcpy(&h, f->buf + p, sizeof(h));
		assert_int_equal(h.type, want[i]);
		p += h.size;
	}
	assert_int_equal(p, u64_at(f, 40) + u64_at(f, 48));
}

static void write_samples(struct qpt_writer *w, uint64_t from, uint64_t to)
{
	struct sample_rec s;

	for (; from < to; from++) {
		make_sample(&s, from);
		assert_int_equal(qpt_writer_write(w, &s), 0);
	}
}

static void assert_sample_at(struct fixture *f, uint64_t off, uint64_t i)
{
	struct sample_rec s;

	make_sample(&s, i);
	assert_memory_equal(f->buf + off, &s, sizeof(s));
}

/* Much data since the last flush: its features stay, later data goes past
 * them, and the next flush covers them with an EVENT_TYPE record. */
static void test_interrupted_gap(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	uint64_t off, size = 0, gap, n = 5000;

	write_samples(w, 0, n);
	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "h1"), 0);
	assert_int_equal(qpt_writer_flush(w), 0);
	slurp(f);
	assert_int_equal(u64_at(f, 48), n * 40);
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_string_equal((char *)f->buf + off + 4, "h1");
	/* the table, EVENT_DESC and HOSTNAME, padded to 8 */
	gap = f->len - (264 + n * 40);
	assert_int_equal(gap % 8, 0);
	assert_int_equal(qpt_writer_bytes(w), 264 + n * 40 + gap);

	/* more than the output buffer holds reaches the disk, past the
	 * features: the file still reads as the flush left it */
	write_samples(w, n, 2 * n + 5000);
	slurp(f);
	assert_true(f->len > 264 + n * 40 + gap + 100 * 40);
	assert_int_equal(u64_at(f, 48), n * 40);
	assert_int_equal(u64_at(f, 72), (1ULL << QPT_FEAT_HOSTNAME) |
					    (1ULL << QPT_FEAT_EVENT_DESC));
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_string_equal((char *)f->buf + off + 4, "h1");
	assert_sample_at(f, 264 + n * 40 + gap, n);

	/* the next flush covers the gap and everything written */
	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "h2"), 0);
	assert_int_equal(qpt_writer_flush(w), 0);
	qpt_writer_free(w); /* interrupted: no close */
	slurp(f);
	assert_int_equal(u64_at(f, 48), (2 * n + 5000) * 40 + gap);
	assert_int_equal(u32_at(f, 264 + n * 40), QPT_RECORD_HEADER_EVENT_TYPE);
	assert_int_equal(u32_at(f, 264 + n * 40 + 4), gap << 16);
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_string_equal((char *)f->buf + off + 4, "h2");
	assert_sample_at(f, 264 + gap + (2 * n + 4999) * 40, 2 * n + 4999);
}

/* Little data since the last flush: later data overwrites its features,
 * after the header has let go of them. */
static void test_interrupted_overwrite(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 0);
	uint64_t off, size = 0;

	write_samples(w, 0, 10);
	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "h1"), 0);
	assert_int_equal(qpt_writer_flush(w), 0);
	assert_int_equal(qpt_writer_bytes(w), 264 + 400);
	slurp(f);
	assert_int_equal(u64_at(f, 48), 400);
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_string_equal((char *)f->buf + off + 4, "h1");

	write_samples(w, 10, 10000);
	slurp(f);
	assert_true(f->len > 264 + 400 + 100 * 40);
	assert_int_equal(u64_at(f, 48), 400);
	assert_int_equal(u64_at(f, 72), 0);
	assert_int_equal(u64_at(f, 80), 0);
	assert_sample_at(f, 264 + 400, 10);
	/* a flush again covers everything, without a gap */
	assert_int_equal(qpt_writer_flush(w), 0);
	qpt_writer_free(w);
	slurp(f);
	assert_int_equal(u64_at(f, 48), 10000 * 40);
	assert_sample_at(f, 264 + 9999 * 40, 9999);
	off = feat_section(f, QPT_FEAT_HOSTNAME, &size);
	assert_string_equal((char *)f->buf + off + 4, "h1");
}

/* Compressing: the features always stay (perf needs COMPRESSED). */
static void test_interrupted_z_keeps(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, false, 1);
	uint64_t size = 0, end;

	write_samples(w, 0, 10);
	assert_int_equal(qpt_writer_flush(w), 0);
	end = qpt_writer_bytes(w);
	write_samples(w, 10, 100000);
	assert_true(qpt_writer_bytes(w) > end + 300 * 1024);
	qpt_writer_free(w);
	slurp(f);
	assert_int_not_equal(feat_section(f, QPT_FEAT_COMPRESSED, &size), 0);
	assert_int_equal(size, 20);
}

static void test_pipe(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w = open_writer(f->path, true, 0);
	struct perf_event_attr attr;
	struct qpt_record_auxtrace hdr;
	uint8_t payload[8] = {9};
	struct iovec iov = {payload, 8};
	struct sample_rec s;
	size_t p;

	assert_int_equal(
	    qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME, "vm"), 0);
	make_sample(&s, 0);
	assert_int_equal(qpt_writer_write(w, &s), 0);
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(qpt_writer_write_auxtrace(w, &hdr, &iov, 1), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	slurp(f);
	/* pipe header */
	assert_memory_equal(f->buf, "PERFILE2", 8);
	assert_int_equal(u64_at(f, 8), 16);
	/* HEADER_ATTR: header, attr, ids */
	assert_int_equal(u32_at(f, 16), QPT_RECORD_HEADER_ATTR);
	assert_int_equal(u32_at(f, 20) >> 16, 8 + 128 + 16);
	task_clock_attr(&attr);
	assert_memory_equal(f->buf + 24, &attr, 128);
	assert_int_equal(u64_at(f, 152), 0x11);
	assert_int_equal(u64_at(f, 160), 0x22);
	/* HEADER_FEATURE HOSTNAME: header, feat id, the string */
	p = 168;
	assert_int_equal(u32_at(f, p), QPT_RECORD_HEADER_FEATURE);
	assert_int_equal(u32_at(f, p + 4) >> 16, 16 + 68);
	assert_int_equal(u64_at(f, p + 8), QPT_FEAT_HOSTNAME);
	assert_int_equal(u32_at(f, p + 16), 64);
	assert_string_equal((char *)f->buf + p + 20, "vm");
	p += 84;
	/* EVENT_DESC, then the end-of-features mark perf sends */
	assert_int_equal(u64_at(f, p + 8), QPT_FEAT_EVENT_DESC);
	p += u32_at(f, p + 4) >> 16;
	assert_int_equal(u32_at(f, p), QPT_RECORD_HEADER_FEATURE);
	assert_int_equal(u32_at(f, p + 4) >> 16, 16);
	assert_int_equal(u64_at(f, p + 8), QPT_FEAT_LAST);
	p += 16;
	assert_memory_equal(f->buf + p, &s, sizeof(s));
	p += sizeof(s);
	/* AUXTRACE in line, no index */
	assert_int_equal(u32_at(f, p), QPT_RECORD_AUXTRACE);
	assert_int_equal(f->buf[p + 48], 9);
	assert_int_equal(f->len, p + 56);
}

static void count_warn(enum qpt_log_level level, const char *msg, void *ctx)
{
	if (level == QPT_LOG_WARN)
		(*(int *)ctx)++;
}

/* A feature too big for one HEADER_FEATURE record: pipe mode leaves it out
 * with a warning, file mode writes it. */
static void test_big_feature(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer_opts o;
	struct qpt_writer *w;
	size_t n = 70000, p;
	uint8_t *big = calloc(1, n);
	uint64_t size = 0;
	int pipe, warned;

	assert_non_null(big);
	for (pipe = 0; pipe < 2; pipe++) {
		warned = 0;
		qpt_writer_opts_init(&o);
		o.pipe = pipe;
		o.log = count_warn;
		o.log_ctx = &warned;
		assert_int_equal(qpt_writer_open(f->path, &o, &w), 0);
		assert_int_equal(qpt_writer_set_feature_raw(
				     w, QPT_FEAT_PMU_MAPPINGS, big, n),
				 0);
		assert_int_equal(qpt_writer_close(w), 0);
		qpt_writer_free(w);
		slurp(f);
		if (!pipe) {
			assert_int_not_equal(
			    feat_section(f, QPT_FEAT_PMU_MAPPINGS, &size), 0);
			assert_int_equal(size, n);
			assert_int_equal(warned, 0);
			continue;
		}
		assert_int_equal(warned, 1);
		/* the records: EVENT_DESC (no attrs: none) and the end mark */
		for (p = 16; p < f->len; p += u32_at(f, p + 4) >> 16) {
			assert_int_equal(u32_at(f, p),
					 QPT_RECORD_HEADER_FEATURE);
			assert_int_not_equal(u64_at(f, p + 8),
					     QPT_FEAT_PMU_MAPPINGS);
		}
		assert_int_equal(p, f->len);
	}
	free(big);
}

/* A descriptor that cannot take pwrite at offsets gets pipe mode. */
static void test_fd_pipe_and_append(void **state)
{
	struct fixture *f = *state;
	struct qpt_writer *w;
	int fds[2], fd;
	uint64_t head[2];

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(qpt_writer_open_fd(fds[1], "pipe", NULL, &w), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	close(fds[1]);
	assert_int_equal(read(fds[0], head, sizeof(head)), sizeof(head));
	assert_int_equal(head[1], 16); /* the pipe header */
	close(fds[0]);

	fd = open(f->path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(qpt_writer_open_fd(fd, f->path, NULL, &w), 0);
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
	close(fd);
	slurp(f);
	assert_int_equal(u64_at(f, 8), 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_header_and_attr, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_attr_older_and_newer, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_feature_string, setup,
					    teardown),
	    cmocka_unit_test(test_string_lengths),
	    cmocka_unit_test(test_nrcpus_cmdline_build_id),
	    cmocka_unit_test_setup_teardown(test_auxtrace_record_and_index,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_big_auxtrace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_opts_size, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compressed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compressed_keeps_aux_apart,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_compressed_keeps_perf_types_apart,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted_gap, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted_overwrite, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted_z_keeps, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pipe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_big_feature, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fd_pipe_and_append, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
