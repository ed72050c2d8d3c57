// SPDX-License-Identifier: MIT
/*
 * Record iteration: bounds checks, byte swapping, attr matching, the
 * AUXTRACE and TRACING_DATA payloads that follow their records, and the
 * inner records of COMPRESSED records (one continuous zstd stream, so a
 * record may straddle two COMPRESSED records).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "auxfmt/reader_internal.h"

/* Decompressed bytes held at once: two records of the largest size. */
#define ZWINDOW (2 * QPT_RECORD_MAX)

struct hdr {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

static void load_hdr(const struct qpt_reader *r, const uint8_t *p,
		     struct hdr *h)
{
	memcpy(&h->type, p, 4);
	memcpy(&h->misc, p + 4, 2);
	memcpy(&h->size, p + 6, 2);
	if (r->swap) {
		h->type = qpt_bswap32(h->type);
		h->misc = qpt_bswap16(h->misc);
		h->size = qpt_bswap16(h->size);
	}
}

static uint64_t load_u64(const struct qpt_reader *r, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return r->swap ? qpt_bswap64(v) : v;
}

static const char *type_name(uint32_t type)
{
	const char *n = qpt_record_type_name(type);

	return n ? n : "unknown";
}

/* Copy, swap, match and check the record at @src into @rec. */
static int deliver(struct qpt_reader *r, const uint8_t *src,
		   const struct hdr *h, uint64_t pos, unsigned depth,
		   struct qpt_record *rec)
{
	uint8_t *p = (uint8_t *)r->rec;
	const struct qpt_attr *a;
	int err;

	memcpy(p, src, h->size);
	memcpy(p, &h->type, 4);
	memcpy(p + 4, &h->misc, 2);
	memcpy(p + 6, &h->size, 2);
	if (r->swap && qpt_record_swap(r, p, h->size))
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "%s record of %u bytes is malformed",
				       type_name(h->type), h->size);
	memset(rec, 0, sizeof(*rec));
	rec->pos = pos;
	rec->type = h->type;
	rec->misc = h->misc;
	rec->size = h->size;
	rec->depth = depth;
	rec->data = p;
	a = h->type < PERF_RECORD_MAX ?
		    qpt_reader_match(r, h->type, p, h->size, false) : NULL;
	rec->attr = a;
	if (a && h->type == PERF_RECORD_SAMPLE) {
		struct qpt_sample s;

		err = qpt_sample_parse(a, p, h->size, &s);
		if (err)
			return qpt_reader_fail(r, pos, err,
					       "SAMPLE of %u bytes does not"
					       " hold the fields of its"
					       " sample_type 0x%llx",
					       h->size,
					       (unsigned long long)
						       a->attr.sample_type);
		rec->sid.present = s.sample_type &
				   (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				    PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
				    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
		rec->sid.pid = s.pid;
		rec->sid.tid = s.tid;
		rec->sid.time = s.time;
		rec->sid.id = s.id;
		rec->sid.stream_id = s.stream_id;
		rec->sid.cpu = s.cpu;
		rec->sid.res = s.res;
		rec->sid.identifier = s.identifier;
	} else if (a) {
		err = qpt_sample_id_parse(&a->attr, p, h->size, &rec->sid);
		if (err)
			return qpt_reader_fail(r, pos, err,
					       "%s of %u bytes is too short for"
					       " its sample_id trailer",
					       type_name(h->type), h->size);
	}
	return qpt_reader_pipe_record(r, p, h->size, pos);
}

/* The payload size that follows an AUXTRACE or TRACING_DATA record. */
static int payload_size(struct qpt_reader *r, const uint8_t *src,
			const struct hdr *h, uint64_t pos, uint64_t *out)
{
	uint32_t v;

	*out = 0;
	if (h->type == QPT_RECORD_AUXTRACE) {
		if (h->size < sizeof(struct qpt_record_auxtrace))
			return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
					       "AUXTRACE record of %u bytes is"
					       " too short", h->size);
		*out = load_u64(r, src + 8);
	} else if (h->type == QPT_RECORD_HEADER_TRACING_DATA) {
		if (h->size < 12)
			return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
					       "TRACING_DATA record of %u bytes"
					       " is too short", h->size);
		memcpy(&v, src + 8, 4);
		*out = ((r->swap ? qpt_bswap32(v) : v) + 7ull) & ~7ull;
	}
	return 0;
}

static int start_compressed(struct qpt_reader *r, const uint8_t *src,
			    const struct hdr *h, uint64_t pos)
{
	uint64_t off = 8, len = h->size - 8u;
	int err;

	if (h->type == QPT_RECORD_COMPRESSED2) {
		if (h->size < 16)
			return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
					       "COMPRESSED2 record of %u bytes"
					       " is too short", h->size);
		len = load_u64(r, src + 8);
		off = 16;
		if (len > h->size - 16u)
			return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
					       "COMPRESSED2 data size %llu past"
					       " its record of %u bytes",
					       (unsigned long long)len, h->size);
	}
	if (!r->zstd) {
		if ((err = qpt_zstd_new(&r->zstd)))
			return err;
		r->zout = malloc(ZWINDOW);
		if (!r->zout)
			return -ENOMEM;
		r->zout_cap = ZWINDOW;
	}
	/* src points into the input, which stays mapped */
	r->zin = src + off;
	r->zin_len = (size_t)len;
	r->zin_off = 0;
	r->zpos = pos;
	r->in_compressed = true;
	return 0;
}

/*
 * The input of an unfinished file ends where its writer stopped: a record
 * cut short there ends the records, with a warning; those before it stand.
 */
static int cut_short(struct qpt_reader *r, uint64_t pos, uint64_t have,
		     uint64_t want)
{
	r->cut = true;
	if (want)
		qpt_reader_warn(r,
				"offset 0x%llx: the last record is cut short"
				" (%llu of %llu bytes), dropped",
				(unsigned long long)pos,
				(unsigned long long)have,
				(unsigned long long)want);
	else
		qpt_reader_warn(r,
				"offset 0x%llx: the last record is cut short"
				" (%llu bytes), dropped",
				(unsigned long long)pos,
				(unsigned long long)have);
	return 0;
}

static int outer_next(struct qpt_reader *r, struct qpt_record *rec)
{
	uint64_t pos = r->pos, next, psize;
	const uint8_t *src, *payload;
	struct hdr h;
	int err;

	if (r->cut)
		return 0;
	qpt_stream_consume(r, pos);
	qpt_reader_behind(r, pos);
	err = qpt_stream_view(r, pos, 8, &src);
	if (err < 0)
		return err;
	if (err && r->unfinished) {
		if (qpt_stream_avail(r, pos))
			return cut_short(r, pos, qpt_stream_avail(r, pos), 0);
		if (r->zout_end > r->zout_begin)
			return cut_short(r, r->zpos,
					 r->zout_end - r->zout_begin, 0);
		return 0;
	}
	if (err) {
		if (qpt_stream_avail(r, pos))
			return qpt_reader_fail(r, pos, -QPT_E_TRUNCATED,
					       "record header truncated (%llu"
					       " bytes left)",
					       (unsigned long long)
						       qpt_stream_avail(r, pos));
		if (r->zout_end > r->zout_begin)
			return qpt_reader_fail(r, r->zpos, -QPT_E_TRUNCATED,
					       "compressed data ends inside a"
					       " record");
		return 0;
	}
	load_hdr(r, src, &h);
	if (h.size < 8)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "record size %u is smaller than its"
				       " header", h.size);
	if ((err = qpt_stream_view(r, pos, h.size, &src)) < 0)
		return err;
	if (err && r->unfinished)
		return cut_short(r, pos, qpt_stream_avail(r, pos), h.size);
	if (err)
		return qpt_reader_fail(r, pos, -QPT_E_TRUNCATED,
				       "%s record of %u bytes past the end of"
				       " the data (%llu bytes left)",
				       type_name(h.type), h.size,
				       (unsigned long long)
					       qpt_stream_avail(r, pos));
	next = pos + h.size;
	if ((err = payload_size(r, src, &h, pos, &psize)))
		return err;
	if ((err = qpt_stream_view(r, next, psize, &payload)) < 0)
		return err;
	if (err && r->unfinished)
		return cut_short(r, pos, qpt_stream_avail(r, pos),
				 h.size + psize);
	if (err)
		return qpt_reader_fail(r, pos, -QPT_E_TRUNCATED,
				       "%s payload of %llu bytes past the end"
				       " of the data (%llu bytes left)",
				       type_name(h.type),
				       (unsigned long long)psize,
				       (unsigned long long)
					       qpt_stream_avail(r, next));
	/* the window may have moved while reading the payload */
	qpt_stream_view(r, pos, h.size, &src);
	if ((err = deliver(r, src, &h, pos, 0, rec)))
		return err;
	if (h.type == QPT_RECORD_AUXTRACE) {
		rec->aux = payload;
		rec->aux_size = psize;
		rec->aux_pos = next;
	}
	r->pos = next + psize;
	if ((h.type == QPT_RECORD_COMPRESSED ||
	     h.type == QPT_RECORD_COMPRESSED2) && !r->no_decompress)
		return (err = start_compressed(r, src, &h, pos)) ? err : 1;
	return 1;
}

/* Decompress more into the window; 0 when the stream has nothing more. */
static int refill(struct qpt_reader *r)
{
	size_t avail = r->zout_end - r->zout_begin;
	long n;

	memmove(r->zout, r->zout + r->zout_begin, avail);
	r->zout_begin = 0;
	r->zout_end = avail;
	if (avail == r->zout_cap)
		return qpt_reader_fail(r, r->zpos, -QPT_E_UNSUPPORTED,
				       "record in compressed data larger than"
				       " the decompression window");
	n = qpt_zstd_step(r->zstd, r->zin, r->zin_len, &r->zin_off,
			  r->zout + avail, r->zout_cap - avail);
	if (n < 0)
		return qpt_reader_fail(r, r->zpos, -QPT_E_FORMAT,
				       "corrupt zstd data in COMPRESSED"
				       " record");
	r->zout_end += (size_t)n;
	return n > 0;
}

static int inner_next(struct qpt_reader *r, struct qpt_record *rec)
{
	uint64_t need, psize;
	const uint8_t *src;
	struct hdr h;
	size_t avail;
	int err;

	for (;;) {
		avail = r->zout_end - r->zout_begin;
		src = r->zout + r->zout_begin;
		if (avail >= 8) {
			load_hdr(r, src, &h);
			if (h.size < 8)
				return qpt_reader_fail(r, r->zpos,
						       -QPT_E_FORMAT,
						       "record size %u in"
						       " compressed data is"
						       " smaller than its"
						       " header", h.size);
			need = h.size;
			if (avail >= h.size) {
				if ((err = payload_size(r, src, &h, r->zpos,
							&psize)))
					return err;
				if (psize > r->zout_cap)
					return qpt_reader_fail(
						r, r->zpos, -QPT_E_UNSUPPORTED,
						"%s payload of %llu bytes in"
						" compressed data",
						type_name(h.type),
						(unsigned long long)psize);
				need += psize;
			}
			if (avail >= need) {
				if ((err = deliver(r, src, &h, r->zpos, 1,
						   rec)))
					return err;
				if (h.type == QPT_RECORD_AUXTRACE) {
					rec->aux = src + h.size;
					rec->aux_size = need - h.size;
					rec->aux_pos = r->zpos;
				}
				r->zout_begin += (size_t)need;
				return 1;
			}
		}
		err = refill(r);
		if (err <= 0)
			return err;
	}
}

static int reader_next(struct qpt_reader *r, struct qpt_record *rec)
{
	int ret;

	if (r->failed)
		return r->failed;
	ret = 0;
	if (r->in_compressed) {
		ret = inner_next(r, rec);
		if (!ret)
			r->in_compressed = false;
	}
	if (!ret)
		ret = outer_next(r, rec);
	if (ret < 0)
		r->failed = ret;
	return ret;
}

/* The first version's struct qpt_record ends with aux_pos. */
#define RECORD_SIZE_V1 (offsetof(struct qpt_record, aux_pos) + 8)

int qpt_reader_next_sized(struct qpt_reader *r, struct qpt_record *rec,
			  size_t size)
{
	struct qpt_record full;
	int ret;

	if (!r || !rec || size < RECORD_SIZE_V1)
		return -QPT_E_INVAL;
	if (size == sizeof(full))
		return reader_next(r, rec);
	memset(&full, 0, sizeof(full));
	ret = reader_next(r, &full);
	qpt_sized_copy(rec, size, &full, sizeof(full));
	return ret;
}
