// SPDX-License-Identifier: MIT
/*
 * The ring consumer against the simulated kernel producer.  The oracle is
 * the input itself (the bytes and records the test fed the producer) and
 * hand-computed ring arithmetic (CIRC_SPACE leaves size - 1 bytes usable).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/ring.h"
#include "capture/simkern.h"

#define MAX_RECS 4096

/* An in-memory sink: records copied out, AUXTRACE payloads concatenated. */
struct memsink {
	uint8_t *recs[MAX_RECS];
	int nr_recs;
	struct qpt_record_auxtrace aux[MAX_RECS];
	int aux_iovcnt[MAX_RECS];
	int nr_aux;
	uint8_t *payload;
	size_t payload_len, payload_cap;
};

static int mem_record(void *ctx, const struct perf_event_header *rec)
{
	struct memsink *m = ctx;
	uint8_t *p;

	assert_true(m->nr_recs < MAX_RECS);
	p = malloc(rec->size);
	assert_non_null(p);
	memcpy(p, rec, rec->size);
	m->recs[m->nr_recs++] = p;
	return 0;
}

static int mem_auxtrace(void *ctx, const struct qpt_record_auxtrace *hdr,
			const struct iovec *iov, int iovcnt)
{
	struct memsink *m = ctx;
	size_t len = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	assert_int_equal(hdr->size, (len + 7) & ~(size_t)7);
	assert_int_equal(hdr->header.type, QPT_RECORD_AUXTRACE);
	assert_int_equal(hdr->header.size, sizeof(*hdr));
	assert_true(m->nr_aux < MAX_RECS);
	m->aux[m->nr_aux] = *hdr;
	m->aux_iovcnt[m->nr_aux++] = iovcnt;
	if (m->payload_len + len > m->payload_cap) {
		m->payload_cap = (m->payload_len + len) * 2;
		m->payload = realloc(m->payload, m->payload_cap);
		assert_non_null(m->payload);
	}
	for (i = 0; i < iovcnt; i++) {
		memcpy(m->payload + m->payload_len, iov[i].iov_base,
		       iov[i].iov_len);
		m->payload_len += iov[i].iov_len;
	}
	return 0;
}

static void memsink_reset(struct memsink *m)
{
	int i;

	for (i = 0; i < m->nr_recs; i++)
		free(m->recs[i]);
	free(m->payload);
	memset(m, 0, sizeof(*m));
}

struct fixture {
	struct qpt_simkern *sk;
	struct qpt_consumer *c;
	struct memsink m;
	struct qpt_sink sink;
};

static void fixture_open(struct fixture *f, uint64_t data_size,
			 uint64_t aux_size, bool overwrite)
{
	struct qpt_simkern_opts o;
	struct qpt_ring ring;

	memset(f, 0, sizeof(*f));
	qpt_simkern_opts_init(&o);
	o.data_size = data_size;
	o.aux_size = aux_size;
	o.aux_overwrite = overwrite;
	assert_int_equal(qpt_simkern_new(&o, &f->sk), 0);
	qpt_simkern_ring(f->sk, &ring);
	f->sink.record = mem_record;
	f->sink.auxtrace = mem_auxtrace;
	f->sink.ctx = &f->m;
	assert_int_equal(qpt_consumer_new(&ring, &f->sink, &f->c), 0);
}

static void fixture_close(struct fixture *f)
{
	qpt_consumer_free(f->c);
	qpt_simkern_free(f->sk);
	memsink_reset(&f->m);
}

/* A record of @size bytes whose body is a pattern of @seed. */
static void make_record(uint64_t *buf, uint16_t size, uint32_t seed)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	size_t i;

	h->type = PERF_RECORD_COMM;
	h->misc = (uint16_t)seed;
	h->size = size;
	for (i = 0; i < size - sizeof(*h); i++)
		p[i] = (uint8_t)(seed * 31 + i);
}

static uint8_t pat(uint64_t pos)
{
	return (uint8_t)((pos * 2654435761u) >> 13) | 1;
}

static void test_new_rejects(void **state)
{
	struct qpt_consumer *c = (void *)1;
	struct qpt_sink sink = {mem_record, mem_auxtrace, NULL};
	struct perf_event_mmap_page page;
	uint8_t data[64];
	struct qpt_ring ring = {.page = &page, .data = data, .data_size = 48};

	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), -QPT_E_INVAL);
	assert_null(c);
	ring.data_size = 64;
	ring.aux_size = 64; /* no aux memory */
	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), -QPT_E_INVAL);
	ring.aux_size = 0;
	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), 0);
	qpt_consumer_free(c);
	qpt_consumer_free(NULL);
}

/* Records straddling the end of the ring, starting at every offset. */
static void test_data_wrap_every_offset(void **state)
{
	uint64_t buf[64], hdr[1];
	static const uint16_t sizes[] = {8, 16, 40, 24, 72, 8, 32, 8};
	uint64_t off;
	size_t i;
	int nr;

	for (off = 0; off < 256; off += 8) {
		struct fixture f;

		fixture_open(&f, 256, 0, false);
		/* Move head and tail to @off with 8-byte records. */
		for (i = 0; i < off / 8; i++) {
			make_record(hdr, 8, 0);
			assert_int_equal(qpt_simkern_output(f.sk, (void *)hdr),
					 1);
		}
		assert_int_equal(qpt_consumer_read_data(f.c), (int)(off / 8));
		memsink_reset(&f.m);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			make_record(buf, sizes[i], (uint32_t)(off + i));
			assert_int_equal(qpt_simkern_output(f.sk, (void *)buf),
					 1);
		}
		nr = qpt_consumer_read_data(f.c);
		assert_int_equal(nr, (int)i);
		for (i = 0; i < (size_t)nr; i++) {
			make_record(buf, sizes[i], (uint32_t)(off + i));
			assert_memory_equal(f.m.recs[i], buf, sizes[i]);
		}
		assert_int_equal(qpt_simkern_page(f.sk)->data_tail, off + 208);
		assert_int_equal(qpt_consumer_read_data(f.c), 0);
		fixture_close(&f);
	}
}

/* A full data ring drops records and then says so with PERF_RECORD_LOST. */
static void test_data_full_lost(void **state)
{
	struct qpt_capture_stats st;
	struct fixture f;
	uint64_t buf[8];
	const uint64_t *w;
	int i, ok = 0;

	fixture_open(&f, 256, 0, false);
	/* 255 usable bytes: seven 32-byte records fit, the rest are lost. */
	for (i = 0; i < 10; i++) {
		make_record(buf, 32, (uint32_t)i);
		ok += qpt_simkern_output(f.sk, (void *)buf);
	}
	assert_int_equal(ok, 7);
	assert_int_equal(qpt_consumer_read_data(f.c), 7);
	make_record(buf, 32, 99);
	assert_int_equal(qpt_simkern_output(f.sk, (void *)buf), 1);
	assert_int_equal(qpt_consumer_read_data(f.c), 2);
	w = (const uint64_t *)(f.m.recs[7] + 8);
	assert_int_equal(((struct perf_event_header *)f.m.recs[7])->type,
			 PERF_RECORD_LOST);
	assert_int_equal(w[1], 3);
	assert_memory_equal(f.m.recs[8], buf, 32);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(f.c, &st);
	assert_int_equal(st.lost_events, 1);
	assert_int_equal(st.lost_records, 3);
	assert_int_equal(st.records, 9);
	fixture_close(&f);
}

/* Corrupt ring contents are reported, never followed. */
static void test_data_corrupt(void **state)
{
	struct fixture f;
	struct perf_event_mmap_page *pg;
	uint64_t buf[4];

	fixture_open(&f, 256, 0, false);
	make_record(buf, 32, 1);
	assert_int_equal(qpt_simkern_output(f.sk, (void *)buf), 1);
	pg = qpt_simkern_page(f.sk);
	/* A header claiming more than was written. */
	pg->data_head = 16;
	assert_int_equal(qpt_consumer_read_data(f.c), -QPT_E_FORMAT);
	/* A head that overran the tail. */
	pg->data_head = 1024;
	assert_int_equal(qpt_consumer_read_data(f.c), -QPT_E_LOST);
	fixture_close(&f);
}

static int fail_second(void *ctx, const struct perf_event_header *rec)
{
	int *n = ctx;

	return ++*n == 2 ? -EIO : 0;
}

static int fail_aux(void *ctx, const struct qpt_record_auxtrace *hdr,
		    const struct iovec *iov, int iovcnt)
{
	return -ENOSPC;
}

/* A failing sink stops the drain; the tails stay before what it refused. */
static void test_sink_errors(void **state)
{
	struct qpt_simkern_opts o;
	struct qpt_simkern *sk;
	struct qpt_consumer *c;
	struct qpt_ring ring;
	int n = 0;
	struct qpt_sink sink = {fail_second, fail_aux, &n};
	uint64_t buf[4];

	qpt_simkern_opts_init(&o);
	o.aux_size = 64;
	assert_int_equal(qpt_simkern_new(&o, &sk), 0);
	qpt_simkern_ring(sk, &ring);
	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), 0);
	make_record(buf, 16, 1);
	qpt_simkern_output(sk, (void *)buf);
	qpt_simkern_output(sk, (void *)buf);
	qpt_simkern_output(sk, (void *)buf);
	assert_int_equal(qpt_consumer_read_data(c), -EIO);
	assert_int_equal(qpt_simkern_page(sk)->data_tail, 16);
	assert_int_equal(qpt_simkern_aux_write(sk, "abcdefgh", 8, 0), 8);
	assert_int_equal(qpt_consumer_read_aux(c), -ENOSPC);
	assert_int_equal(qpt_simkern_page(sk)->aux_tail, 0);
	qpt_consumer_free(c);
	qpt_simkern_free(sk);
}

/* ITRACE_START, LOST_SAMPLES and the sample_id trailer of the records the
 * simulator makes (perf_event.h: pid/tid, time, id, stream_id, cpu/res,
 * id). */
static void test_records_counted(void **state)
{
	struct qpt_simkern_opts o;
	struct qpt_capture_stats st;
	struct fixture f;
	struct qpt_ring ring;
	const uint32_t *w32;
	const uint64_t *w;

	memset(&f, 0, sizeof(f));
	qpt_simkern_opts_init(&o);
	o.sample_id_all = true;
	o.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	o.pid = 10;
	o.tid = 11;
	o.cpu = 3;
	o.id = 77;
	assert_int_equal(qpt_simkern_new(&o, &f.sk), 0);
	qpt_simkern_ring(f.sk, &ring);
	f.sink.record = mem_record;
	f.sink.auxtrace = mem_auxtrace;
	f.sink.ctx = &f.m;
	assert_int_equal(qpt_consumer_new(&ring, &f.sink, &f.c), 0);
	assert_int_equal(qpt_simkern_sample_id_size(f.sk), 48);
	qpt_simkern_set_time(f.sk, 12345);
	assert_int_equal(qpt_simkern_itrace_start(f.sk, 10, 11), 1);
	assert_int_equal(qpt_simkern_lost_samples(f.sk, 5), 1);
	assert_int_equal(qpt_consumer_read_data(f.c), 2);
	assert_int_equal(((struct perf_event_header *)f.m.recs[0])->size,
			 8 + 8 + 48);
	w32 = (const uint32_t *)(f.m.recs[0] + 8);
	assert_int_equal(w32[0], 10);
	assert_int_equal(w32[1], 11);
	w = (const uint64_t *)(f.m.recs[0] + 16);
	assert_int_equal(w[0], 10 | 11ULL << 32);
	assert_int_equal(w[1], 12345);
	assert_int_equal(w[2], 77);
	assert_int_equal(w[3], 77);
	assert_int_equal(w[4], 3);
	assert_int_equal(w[5], 77);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(f.c, &st);
	assert_int_equal(st.itrace_start, 1);
	assert_int_equal(st.lost_samples, 5);
	fixture_close(&f);
}

/* AUX transactions crossing the end of the area at every offset. */
static void test_aux_wrap_every_offset(void **state)
{
	uint8_t in[64];
	uint64_t off;
	size_t i;

	for (off = 0; off < 64; off++) {
		struct fixture f;
		const uint64_t *w;

		fixture_open(&f, 4096, 64, false);
		if (off) {
			memset(in, 0xee, off);
			assert_int_equal(
			    qpt_simkern_aux_write(f.sk, in, off, 0),
			    (int64_t)off);
			assert_int_equal(qpt_consumer_drain(f.c), 0);
			memsink_reset(&f.m);
		}
		for (i = 0; i < 41; i++)
			in[i] = pat(off + i);
		assert_int_equal(qpt_simkern_aux_write(f.sk, in, 41, 0), 41);
		assert_int_equal(qpt_consumer_drain(f.c), 0);
		assert_int_equal(f.m.nr_aux, 1);
		assert_int_equal(f.m.aux[0].offset, off);
		assert_int_equal(f.m.aux[0].size, 48);
		assert_int_equal(f.m.aux_iovcnt[0], off + 41 > 64 ? 2 : 1);
		assert_int_equal(f.m.payload_len, 41);
		assert_memory_equal(f.m.payload, in, 41);
		/* PERF_RECORD_AUX {offset, size, flags}. */
		assert_int_equal(f.m.nr_recs, 1);
		w = (const uint64_t *)(f.m.recs[0] + 8);
		assert_int_equal(w[0], off);
		assert_int_equal(w[1], 41);
		assert_int_equal(w[2], 0);
		assert_int_equal(qpt_simkern_page(f.sk)->aux_tail, off + 41);
		fixture_close(&f);
	}
}

/* Full-trace mode with a full area: TRUNCATED, disabled, re-enabled. */
static void test_aux_full_truncated(void **state)
{
	struct qpt_capture_stats st;
	struct qpt_simkern_stats ss;
	struct fixture f;
	uint8_t in[200];
	const uint64_t *w;
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = pat(i);
	fixture_open(&f, 4096, 128, false);
	/* 127 usable bytes. */
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 100, 0), 100);
	assert_int_equal(
	    qpt_simkern_aux_write(f.sk, in + 100, 50, PERF_AUX_FLAG_PARTIAL),
	    27);
	assert_false(qpt_simkern_enabled(f.sk));
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 10, 0), 0);
	assert_int_equal(qpt_consumer_drain(f.c), 0);
	assert_true(qpt_simkern_enabled(f.sk));
	assert_int_equal(f.m.payload_len, 127);
	assert_memory_equal(f.m.payload, in, 127);
	assert_int_equal(f.m.nr_recs, 2);
	w = (const uint64_t *)(f.m.recs[1] + 8);
	assert_int_equal(w[0], 100);
	assert_int_equal(w[1], 27);
	assert_int_equal(w[2], PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL);
	/* Writing resumes where it stopped. */
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 20, 0), 20);
	assert_int_equal(qpt_consumer_drain(f.c), 0);
	assert_int_equal(f.m.aux[1].offset, 127);
	assert_int_equal(f.m.payload_len, 147);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(f.c, &st);
	qpt_simkern_stats(f.sk, &ss);
	assert_int_equal(st.aux_truncated, 1);
	assert_int_equal(st.aux_partial, 1);
	assert_int_equal(st.aux_bytes, 147);
	assert_int_equal(ss.aux_lost, 23 + 10);
	assert_int_equal(ss.aux_offered, st.aux_bytes + ss.aux_lost);
	fixture_close(&f);
}

/* An exactly full area: the next transaction is dropped without a record
 * and the event disabled; the consumer notices the full area. */
static void test_aux_exactly_full(void **state)
{
	struct fixture f;
	uint8_t in[64];

	memset(in, 7, sizeof(in));
	fixture_open(&f, 4096, 64, false);
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 63, 0), 63);
	assert_true(qpt_simkern_enabled(f.sk));
	assert_int_equal(
	    qpt_simkern_aux_write(f.sk, in, 5, PERF_AUX_FLAG_COLLISION), 0);
	assert_false(qpt_simkern_enabled(f.sk));
	assert_int_equal(qpt_consumer_drain(f.c), 0);
	assert_true(qpt_simkern_enabled(f.sk));
	assert_int_equal(f.m.nr_recs, 1);
	assert_int_equal(f.m.payload_len, 63);
	fixture_close(&f);
}

static void test_aux_read_states(void **state)
{
	struct fixture f;

	fixture_open(&f, 4096, 0, false);
	assert_int_equal(qpt_consumer_read_aux(f.c), -QPT_E_STATE);
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), -QPT_E_STATE);
	assert_int_equal(qpt_simkern_aux_write(f.sk, "x", 1, 0), -QPT_E_STATE);
	fixture_close(&f);
	fixture_open(&f, 4096, 64, true);
	assert_int_equal(qpt_consumer_read_aux(f.c), -QPT_E_STATE);
	fixture_close(&f);
}

/* Snapshot of an area that has not wrapped: only what was written. */
static void test_snapshot_nowrap(void **state)
{
	struct qpt_capture_stats st;
	struct fixture f;
	uint8_t in[256];
	const uint64_t *w;
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = pat(i);
	fixture_open(&f, 4096, 256, true);
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 100, 0), 100);
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), 100);
	assert_true(qpt_simkern_enabled(f.sk));
	assert_int_equal(f.m.aux[0].offset, 0);
	assert_memory_equal(f.m.payload, in, 100);
	/* Only the new bytes the second time. */
	assert_int_equal(qpt_simkern_aux_write(f.sk, in + 100, 50, 0), 50);
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), 50);
	assert_int_equal(f.m.aux[1].offset, 100);
	assert_memory_equal(f.m.payload, in, 150);
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), 0);
	assert_int_equal(qpt_consumer_read_data(f.c), 2);
	w = (const uint64_t *)(f.m.recs[1] + 8);
	assert_int_equal(w[0], 150); /* overwrite mode: the new head */
	assert_int_equal(w[1], 50);
	assert_int_equal(w[2], PERF_AUX_FLAG_OVERWRITE);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(f.c, &st);
	assert_int_equal(st.snapshots, 3);
	assert_int_equal(st.snapshot_wrapped, 0);
	assert_int_equal(st.aux_overwrite, 2);
	fixture_close(&f);
}

/* Snapshot of a wrapped area: the newest bytes, in order, and a size cap
 * (what it leaves out is counted). */
static void test_snapshot_wrap(void **state)
{
	struct qpt_capture_stats st;
	struct fixture f;
	uint8_t in[1000];
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = pat(i);
	fixture_open(&f, 4096, 256, true);
	for (i = 0; i < 600; i += 75)
		assert_int_equal(qpt_simkern_aux_write(f.sk, in + i, 75, 0),
				 75);
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), 256);
	assert_int_equal(f.m.aux[0].offset, 600 - 256);
	assert_int_equal(f.m.aux_iovcnt[0], 2);
	assert_memory_equal(f.m.payload, in + 600 - 256, 256);
	/* Bytes written while disabled for the snapshot would be lost;
	 * after it, tracing goes on. */
	assert_int_equal(qpt_simkern_aux_write(f.sk, in + 600, 300, 0), 300);
	assert_int_equal(qpt_consumer_snapshot(f.c, 64), 64);
	assert_int_equal(f.m.aux[1].offset, 900 - 64);
	assert_memory_equal(f.m.payload + 256, in + 900 - 64, 64);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(f.c, &st);
	assert_int_equal(st.snapshots, 2);
	assert_int_equal(st.snapshot_wrapped, 2);
	assert_int_equal(st.aux_overwritten, 344 + 44);
	/* the size left out the older 192 of the 256 bytes the area held:
	 * every byte written is captured, overwritten or skipped */
	assert_int_equal(st.aux_skipped, 256 - 64);
	assert_int_equal(st.aux_bytes + st.aux_overwritten + st.aux_skipped,
			 900);
	fixture_close(&f);
}

/* A driver that reports its head modulo the size: the data after the head
 * tells that the area wrapped. */
static void test_snapshot_head_modulo(void **state)
{
	struct fixture f;
	uint8_t in[300];
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = pat(i);
	fixture_open(&f, 4096, 256, true);
	assert_int_equal(qpt_simkern_aux_write(f.sk, in, 300, 0), 300);
	qpt_simkern_page(f.sk)->aux_head = 300 - 256;
	assert_int_equal(qpt_consumer_snapshot(f.c, 0), 256);
	assert_memory_equal(f.m.payload, in + 44, 256);
	fixture_close(&f);
}

/* An Intel PT-like head kept modulo the size: snapshots before and after
 * the first wrap. */
static void test_snapshot_sim_modulo(void **state)
{
	struct qpt_simkern_opts o;
	struct qpt_simkern *sk;
	struct qpt_consumer *c;
	struct qpt_ring ring;
	struct memsink m;
	struct qpt_sink sink = {mem_record, mem_auxtrace, &m};
	uint8_t in[600];
	size_t i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = pat(i);
	memset(&m, 0, sizeof(m));
	qpt_simkern_opts_init(&o);
	o.aux_size = 256;
	o.aux_overwrite = true;
	o.aux_head_modulo = true;
	assert_int_equal(qpt_simkern_new(&o, &sk), 0);
	qpt_simkern_ring(sk, &ring);
	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), 0);
	assert_int_equal(qpt_simkern_aux_write(sk, in, 100, 0), 100);
	assert_int_equal(qpt_consumer_snapshot(c, 0), 100);
	assert_memory_equal(m.payload, in, 100);
	assert_int_equal(qpt_simkern_aux_write(sk, in + 100, 200, 0), 200);
	assert_int_equal(qpt_simkern_page(sk)->aux_head, 300 - 256);
	/* Wrapped: the whole area, oldest byte at the head. */
	assert_int_equal(qpt_consumer_snapshot(c, 0), 256);
	assert_memory_equal(m.payload + 100, in + 44, 256);
	assert_int_equal(qpt_simkern_aux_write(sk, in + 300, 10, 0), 10);
	assert_int_equal(qpt_consumer_snapshot(c, 64), 64);
	assert_memory_equal(m.payload + 356, in + 310 - 64, 64);
	qpt_consumer_free(c);
	qpt_simkern_free(sk);
	memsink_reset(&m);
}

/* The sustained run: a producer thread, a consumer thread, real atomics. */
struct sustained {
	struct qpt_simkern *sk;
	int done;
	uint64_t offered, records_made;
	/* consumer side */
	uint64_t next_offset, captured, seq_seen, records_seen, lost_records;
	int errors;
};

static int sus_record(void *ctx, const struct perf_event_header *rec)
{
	struct sustained *s = ctx;
	const uint64_t *w = (const uint64_t *)(rec + 1);

	if (rec->type == PERF_RECORD_COMM) {
		if (w[0] <= s->seq_seen && s->records_seen)
			s->errors++;
		s->seq_seen = w[0];
		s->records_seen++;
	} else if (rec->type == PERF_RECORD_LOST) {
		s->lost_records += w[1];
	}
	return 0;
}

static int sus_auxtrace(void *ctx, const struct qpt_record_auxtrace *hdr,
			const struct iovec *iov, int iovcnt)
{
	struct sustained *s = ctx;
	uint64_t pos = hdr->offset;
	int i;
	size_t j;

	if (hdr->offset != s->next_offset)
		s->errors++;
	for (i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;

		for (j = 0; j < iov[i].iov_len; j++, pos++)
			if (p[j] != pat(pos))
				s->errors++;
	}
	s->captured += pos - hdr->offset;
	s->next_offset = pos;
	return 0;
}

static uint32_t xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void *producer(void *arg)
{
	struct sustained *s = arg;
	uint8_t buf[4096];
	uint64_t rec[4];
	uint32_t rnd = 12345;
	int iter;
	size_t i, len;

	for (iter = 0; iter < 20000; iter++) {
		uint64_t head = qpt_simkern_aux_head(s->sk);

		len = 1 + xorshift(&rnd) % sizeof(buf);
		for (i = 0; i < len; i++)
			buf[i] = pat(head + i);
		qpt_simkern_aux_write(s->sk, buf, len, 0);
		s->offered += len;
		if (xorshift(&rnd) % 4 == 0) {
			rec[0] = (uint64_t)PERF_RECORD_COMM | 16ULL << 48;
			rec[1] = ++s->records_made;
			qpt_simkern_output(s->sk, (void *)rec);
		}
		if (iter % 64 == 0)
			sched_yield();
	}
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_sustained_threads(void **state)
{
	struct qpt_simkern_opts o;
	struct qpt_simkern_stats ss;
	struct qpt_capture_stats st;
	struct sustained s;
	struct qpt_consumer *c;
	struct qpt_ring ring;
	struct qpt_sink sink = {sus_record, sus_auxtrace, &s};
	pthread_t t;

	memset(&s, 0, sizeof(s));
	qpt_simkern_opts_init(&o);
	o.data_size = 512;
	o.aux_size = 16384;
	o.sample_id_all = true;
	o.sample_type =
	    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	assert_int_equal(qpt_simkern_new(&o, &s.sk), 0);
	qpt_simkern_ring(s.sk, &ring);
	assert_int_equal(qpt_consumer_new(&ring, &sink, &c), 0);
	assert_int_equal(pthread_create(&t, NULL, producer, &s), 0);
	while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE))
		assert_int_equal(qpt_consumer_drain(c), 0);
	pthread_join(t, NULL);
	assert_int_equal(qpt_consumer_drain(c), 0);
	/* A last record flushes a pending LOST. */
	{
		uint64_t rec[2] = {(uint64_t)PERF_RECORD_COMM | 16ULL << 48,
				   ++s.records_made};

		assert_int_equal(qpt_simkern_output(s.sk, (void *)rec), 1);
	}
	assert_int_equal(qpt_consumer_drain(c), 0);
	qpt_simkern_stats(s.sk, &ss);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(c, &st);
	assert_int_equal(s.errors, 0);
	/* Nothing lost silently: produced == captured + reported lost. */
	assert_int_equal(s.offered, ss.aux_offered);
	assert_int_equal(s.offered, s.captured + ss.aux_lost);
	assert_int_equal(st.aux_bytes, s.captured);
	/* Every record made (ours and the AUX records) was seen or counted
	 * by a PERF_RECORD_LOST. */
	assert_int_equal(s.records_made + ss.aux_records,
			 s.records_seen + st.aux_records + s.lost_records);
	assert_int_equal(ss.records_lost, st.lost_records);
	assert_int_equal(ss.records_lost_pending, 0);
	/* Every truncation that reached the ring was seen. */
	assert_true(st.aux_truncated <= ss.aux_truncated);
	if (!st.lost_records)
		assert_int_equal(st.aux_truncated, ss.aux_truncated);
	print_message("sustained: %llu bytes, %llu captured, %llu lost, "
		      "%llu truncations, %llu records lost\n",
		      (unsigned long long)s.offered,
		      (unsigned long long)s.captured,
		      (unsigned long long)ss.aux_lost,
		      (unsigned long long)ss.aux_truncated,
		      (unsigned long long)st.lost_records);
	qpt_consumer_free(c);
	qpt_simkern_free(s.sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_rejects),
	    cmocka_unit_test(test_data_wrap_every_offset),
	    cmocka_unit_test(test_data_full_lost),
	    cmocka_unit_test(test_data_corrupt),
	    cmocka_unit_test(test_sink_errors),
	    cmocka_unit_test(test_records_counted),
	    cmocka_unit_test(test_aux_wrap_every_offset),
	    cmocka_unit_test(test_aux_full_truncated),
	    cmocka_unit_test(test_aux_exactly_full),
	    cmocka_unit_test(test_aux_read_states),
	    cmocka_unit_test(test_snapshot_nowrap),
	    cmocka_unit_test(test_snapshot_wrap),
	    cmocka_unit_test(test_snapshot_head_modulo),
	    cmocka_unit_test(test_snapshot_sim_modulo),
	    cmocka_unit_test(test_sustained_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
