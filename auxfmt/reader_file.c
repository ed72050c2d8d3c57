// SPDX-License-Identifier: MIT
/* File mode (PERFILE2): the header, the attrs with their ids, the data
 * section and the feature section table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"

/* Over a pipe, read on until [0, @off + @size) is in (no further). */
static int need(struct qpt_reader *r, uint64_t off, uint64_t size)
{
	uint64_t end = off + size < off ? UINT64_MAX : off + size;

	return r->stream ? qpt_stream_need(r, end) : 0;
}

static int section_ok(struct qpt_reader *r, const struct qpt_file_section *s,
		      uint64_t where, const char *what)
{
	int err = need(r, s->offset, s->size);

	if (err)
		return err;
	if (s->offset > r->len || s->size > r->len - s->offset)
		return qpt_reader_fail(r, where, -QPT_E_TRUNCATED,
				       "%s section [0x%llx, +0x%llx) past the"
				       " end of the file (0x%llx bytes)",
				       what, (unsigned long long)s->offset,
				       (unsigned long long)s->size,
				       (unsigned long long)r->len);
	return 0;
}

static void swap_section(struct qpt_file_section *s)
{
	s->offset = qpt_bswap64(s->offset);
	s->size = qpt_bswap64(s->size);
}

static unsigned nr_features(const struct qpt_file_header *h)
{
	unsigned i, n = 0;

	for (i = 0; i < QPT_HEADER_FEAT_BITS / 64; i++)
		n += (unsigned)__builtin_popcountll(h->adds_features[i]);
	return n;
}

/* The end of [@off, +@size), or 0 where it wraps or lies past 2^48 (no
 * file is that large: the section is told bad later). */
static uint64_t section_end(uint64_t off, uint64_t size)
{
	return off + size < off || off + size > 1ull << 48 ? 0 : off + size;
}

/* *@end moved to the end of the section whose entry is at @at of the
 * copy, where that is further. */
static void spool_section(struct qpt_reader *r, uint64_t at, uint64_t *end)
{
	struct qpt_file_section s;

	if (qpt_stream_spool_read(r, at, &s, sizeof(s)))
		return;
	if (r->swap)
		swap_section(&s);
	if (section_end(s.offset, s.size) > *end)
		*end = section_end(s.offset, s.size);
}

/*
 * A finished file on a pipe: copied into a temporary file as far as its
 * sections go, no further (the writer may keep the pipe open), and mapped:
 * the header's, the attrs' ids sections and the feature table's (read
 * from the copy once it holds the table).  Where no temporary file can
 * be made, it is read into memory as it is parsed (0).
 */
static int spool_file(struct qpt_reader *r)
{
	const struct qpt_file_header *h = &r->hdr;
	uint64_t table = section_end(h->data.offset, h->data.size), end, i, n;
	int err;

	end = section_end(h->attrs.offset, h->attrs.size);
	if (table && table + 16ull * nr_features(h) > end)
		end = table + 16ull * nr_features(h);
	if ((err = qpt_stream_spool(r, end)))
		return err < 0 ? err : 0;
	/* each attr's ids section: the last 16 bytes of its entry */
	n = h->attr_size >= 16 && h->attrs.size % h->attr_size == 0
		    ? h->attrs.size / h->attr_size
		    : 0;
	for (i = 0; i < n && i < 65536; i++)
		spool_section(r, h->attrs.offset + (i + 1) * h->attr_size - 16,
			      &end);
	for (i = 0; table && i < nr_features(h); i++)
		spool_section(r, table + 16 * i, &end);
	if ((err = qpt_stream_spool(r, end)) < 0)
		return err;
	return qpt_stream_spool_map(r);
}

/*
 * Data size 0: perf record and qpt's writer leave it so until they finish,
 * and write the feature section table and the features at the end.  The
 * file is finished (with no records) only when a table is there: its first
 * entry names a section after the table and inside the file.  Records read
 * as an entry give offsets of 2^51 or more (the record size is in the top
 * 16 bits), so an unfinished file is told without reading on.
 */
static int is_unfinished(struct qpt_reader *r, bool *unfinished)
{
	const struct qpt_file_header *h = &r->hdr;
	uint64_t table = h->data.offset, end;
	struct qpt_file_section s;
	unsigned n = nr_features(h);
	int err;

	*unfinished = !h->data.size;
	if (h->data.size || !n)
		return 0;
	end = table + 16ull * n;
	if ((err = need(r, table, 16ull * n)))
		return err;
	if (end < table || end > r->len)
		return 0;
	memcpy(&s, r->buf + table, sizeof(s));
	if (r->swap)
		swap_section(&s);
	if (s.offset < end || s.offset >= 1ull << 48 || s.size >= 1ull << 48)
		return 0;
	if ((err = need(r, s.offset, s.size)))
		return err;
	*unfinished = s.offset + s.size > r->len;
	return 0;
}

static int read_header(struct qpt_reader *r)
{
	struct qpt_file_header *h = &r->hdr;
	size_t i;
	int err;

	if ((err = need(r, 0, sizeof(*h))))
		return err;
	if (r->len < sizeof(*h))
		return qpt_reader_fail(r, r->len, -QPT_E_TRUNCATED,
				       "file too short for the perf.data"
				       " header (%llu bytes)",
				       (unsigned long long)r->len);
	memcpy(h, r->buf, sizeof(*h));
	if (r->swap) {
		h->magic = qpt_bswap64(h->magic);
		h->size = qpt_bswap64(h->size);
		h->attr_size = qpt_bswap64(h->attr_size);
		swap_section(&h->attrs);
		swap_section(&h->data);
		swap_section(&h->event_types);
		for (i = 0; i < QPT_HEADER_FEAT_BITS / 64; i++)
			h->adds_features[i] = qpt_bswap64(h->adds_features[i]);
	}
	if (h->size != sizeof(*h))
		return qpt_reader_fail(r, 8, -QPT_E_UNSUPPORTED,
				       "header size %llu (expected %zu)",
				       (unsigned long long)h->size, sizeof(*h));
	/* a finished file on a pipe: read from a copy on disk */
	if (r->stream && h->data.size && (err = spool_file(r)))
		return err;
	if ((err = section_ok(r, &h->attrs, 24, "attrs")) ||
	    (err = section_ok(r, &h->data, 40, "data")) ||
	    (err = is_unfinished(r, &r->unfinished)))
		return err;
	r->data_begin = h->data.offset;
	r->data_end = h->data.offset + h->data.size;
	r->pos = r->data_begin;
	return 0;
}

/* The ids section of each attr, as it is named in the file. */
struct ids_ref {
	uint64_t offset, size;
	size_t idx;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ids_ref *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ids of each attr and the same sorted, one copy per ids section. */
struct attr_ids {
	const uint64_t *ids, *sorted;
	uint32_t nr;
};

static bool same_section(const struct ids_ref *a, const struct ids_ref *b)
{
	return a->offset == b->offset && a->size == b->size;
}

/*
 * Read each distinct ids section once: attrs that name the same section
 * share one array (the table stays as large as the file, however many
 * attrs point at one block).  Distinct sections that hold more ids than
 * the file has bytes for overlap, which no writer does: an error.
 * @refs is sorted here; the sorted copies go to @tmp, to free.
 */
static int share_ids(struct qpt_reader *r, struct ids_ref *refs, size_t n,
		     struct attr_ids *out, uint64_t **tmp)
{
	uint64_t total = 0, *ids, *sorted;
	size_t i, g, nr_tmp = 0;

	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (i = 0; i < n; i++)
		if (!i || !same_section(&refs[i - 1], &refs[i]))
			total += refs[i].size;
	if (total > r->len)
		return qpt_reader_fail(r, r->hdr.attrs.offset, -QPT_E_FORMAT,
				       "the attrs' ids sections overlap (%llu"
				       " bytes of ids in a file of %llu)",
				       (unsigned long long)total,
				       (unsigned long long)r->len);
	for (i = 0; i < n; i = g) {
		size_t nr = (size_t)(refs[i].size / 8);

		ids = qpt_reader_id_block(r, r->buf + refs[i].offset, nr,
					  r->swap);
		sorted = malloc(nr ? nr * sizeof(*sorted) : 1);
		if (!ids || !sorted) {
			free(sorted);
			return -ENOMEM;
		}
		memcpy(sorted, ids, nr * sizeof(*sorted));
		qsort(sorted, nr, sizeof(*sorted), u64_cmp);
		tmp[nr_tmp++] = sorted;
		for (g = i; g < n && same_section(&refs[g], &refs[i]); g++) {
			out[refs[g].idx].ids = ids;
			out[refs[g].idx].sorted = sorted;
			out[refs[g].idx].nr = (uint32_t)nr;
		}
	}
	return 0;
}

/* Check each attr's ids section; fill @refs in attr order. */
static int ids_sections(struct qpt_reader *r, struct ids_ref *refs, size_t n)
{
	const struct qpt_file_header *h = &r->hdr;
	struct qpt_file_section ids;
	uint64_t off;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		off = h->attrs.offset + i * h->attr_size + h->attr_size -
		      sizeof(ids);
		/* struct perf_file_attr: the attr, then its ids section */
		memcpy(&ids, r->buf + off, sizeof(ids));
		if (r->swap)
			swap_section(&ids);
		if ((err = section_ok(r, &ids, off, "attr ids")))
			return err;
		if (ids.size % 8 || ids.size / 8 > UINT32_MAX)
			return qpt_reader_fail(r, off + 8, -QPT_E_FORMAT,
					       "attr ids size %llu is not a"
					       " multiple of 8 below 2^35",
					       (unsigned long long)ids.size);
		refs[i] = (struct ids_ref){ids.offset, ids.size, i};
	}
	return 0;
}

static int add_attrs(struct qpt_reader *r, size_t n)
{
	const struct qpt_file_header *h = &r->hdr;
	struct ids_ref *refs = calloc(n, sizeof(*refs));
	struct attr_ids *ai = calloc(n, sizeof(*ai));
	uint64_t **tmp = calloc(n, sizeof(*tmp)), off;
	size_t i;
	int err = -ENOMEM;

	if (!refs || !ai || !tmp)
		goto out;
	/* every read over a pipe is done before pointers into it are taken */
	if ((err = ids_sections(r, refs, n)) ||
	    (err = share_ids(r, refs, n, ai, tmp)))
		goto out;
	for (i = 0; i < n && !err; i++) {
		off = h->attrs.offset + i * h->attr_size;
		err = qpt_reader_add_attr(r, r->buf + off, h->attr_size - 16,
					  r->swap, ai[i].ids, ai[i].nr,
					  ai[i].sorted, off);
	}
	if (!err)
		err = qpt_idmap_flatten(&r->idmap);
out:
	for (i = 0; tmp && i < n; i++)
		free(tmp[i]);
	free(tmp);
	free(ai);
	free(refs);
	return err;
}

static int read_attrs(struct qpt_reader *r)
{
	const struct qpt_file_header *h = &r->hdr;
	uint64_t asz = h->attr_size;

	if (!h->attrs.size)
		return 0;
	if (asz < PERF_ATTR_SIZE_VER0 + sizeof(struct qpt_file_section) ||
	    asz > h->attrs.size || h->attrs.size % asz)
		return qpt_reader_fail(r, 16, -QPT_E_FORMAT,
				       "bad attr size %llu for an attrs"
				       " section of %llu bytes",
				       (unsigned long long)asz,
				       (unsigned long long)h->attrs.size);
	return add_attrs(r, (size_t)(h->attrs.size / asz));
}

static int read_feature_table(struct qpt_reader *r)
{
	const struct qpt_file_header *h = &r->hdr;
	struct qpt_file_section s;
	uint64_t off = r->data_end;
	unsigned bit;
	int err;

	for (bit = 0; bit < QPT_HEADER_FEAT_BITS; bit++) {
		if (!(h->adds_features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if ((err = need(r, off, sizeof(s))))
			return err;
		if (off > r->len || r->len - off < sizeof(s))
			return qpt_reader_fail(r, off, -QPT_E_TRUNCATED,
					       "feature section table past the"
					       " end of the file");
		memcpy(&s, r->buf + off, sizeof(s));
		if (r->swap)
			swap_section(&s);
		if ((err = section_ok(r, &s, off,
				      qpt_feature_name(bit)
					  ? qpt_feature_name(bit)
					  : "feature")))
			return err;
		r->feat[bit].offset = s.offset;
		r->feat[bit].size = s.size;
		off += sizeof(s);
	}
	/* the input is all in now: point at it */
	for (bit = 0; bit < QPT_HEADER_FEAT_BITS; bit++)
		if (h->adds_features[bit / 64] & (1ull << (bit % 64)))
			r->feat[bit].data = r->buf + r->feat[bit].offset;
	return 0;
}

/* EVENT_DESC names the attrs: by the first id, else by position. */
static int name_attrs(struct qpt_reader *r)
{
	const struct qpt_features *f = r->features;
	size_t i;
	int err;

	for (i = 0; i < f->nr_event_desc; i++) {
		const struct qpt_event_desc *d = &f->event_desc[i];
		struct qpt_attr *a = NULL;

		if (d->nr_ids)
			a = (struct qpt_attr *)qpt_reader_attr_by_id(r,
								     d->ids[0]);
		else if (f->nr_event_desc == r->nr_attrs)
			a = r->attrs[i];
		if (!a || a->name)
			continue;
		if (d->nr_ids)
			err = qpt_reader_set_name(r, d->ids[0], d->name,
						  strlen(d->name));
		else
			err = (a->name = strdup(d->name)) ? 0 : -ENOMEM;
		if (err)
			return err;
	}
	return 0;
}

/*
 * An unfinished file has no features; its records run to the end of the
 * input, read incrementally over a pipe as in pipe mode, and a last record
 * cut short ends them (reader_next.c).
 */
static int start_unfinished(struct qpt_reader *r)
{
	r->data_end = r->stream ? UINT64_MAX : r->len;
	qpt_reader_warn(r,
			"data size 0 in the header: its writer did not"
			" finish (killed?); reading the records up to the end"
			" of the input");
	return 0;
}

int qpt_reader_open_file(struct qpt_reader *r)
{
	int err;

	if ((err = read_header(r)) || (err = read_attrs(r)))
		return err;
	if (r->unfinished)
		return start_unfinished(r);
	if ((err = read_feature_table(r)) || (err = qpt_features_parse(r)))
		return err;
	/* all that is needed is in memory */
	r->stream = false;
	r->random_access = true;
	return name_attrs(r);
}
