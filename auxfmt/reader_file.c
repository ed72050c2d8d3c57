// SPDX-License-Identifier: MIT
/* File mode (PERFILE2): the header, the attrs with their ids, the data
 * section and the feature section table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"

static int section_ok(struct qpt_reader *r, const struct qpt_file_section *s,
		      uint64_t where, const char *what)
{
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

static int read_header(struct qpt_reader *r)
{
	struct qpt_file_header *h = &r->hdr;
	size_t i;
	int err;

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
	if ((err = section_ok(r, &h->attrs, 24, "attrs")) ||
	    (err = section_ok(r, &h->data, 40, "data")))
		return err;
	r->data_begin = h->data.offset;
	r->data_end = h->data.offset + h->data.size;
	r->pos = r->data_begin;
	return 0;
}

static int read_attrs(struct qpt_reader *r)
{
	const struct qpt_file_header *h = &r->hdr;
	uint64_t asz = h->attr_size, off, n, i;
	struct qpt_file_section ids;
	int err;

	if (!h->attrs.size)
		return 0;
	if (asz < PERF_ATTR_SIZE_VER0 + sizeof(ids) || asz > h->attrs.size ||
	    h->attrs.size % asz)
		return qpt_reader_fail(r, 16, -QPT_E_FORMAT,
				       "bad attr size %llu for an attrs"
				       " section of %llu bytes",
				       (unsigned long long)asz,
				       (unsigned long long)h->attrs.size);
	n = h->attrs.size / asz;
	for (i = 0; i < n; i++) {
		off = h->attrs.offset + i * asz;
		/* struct perf_file_attr: the attr, then its ids section */
		memcpy(&ids, r->buf + off + asz - sizeof(ids), sizeof(ids));
		if (r->swap)
			swap_section(&ids);
		if ((err = section_ok(r, &ids, off + asz - sizeof(ids),
				      "attr ids")))
			return err;
		if (ids.size % 8)
			return qpt_reader_fail(r, off + asz - 8, -QPT_E_FORMAT,
					       "attr ids size %llu is not a"
					       " multiple of 8",
					       (unsigned long long)ids.size);
		err = qpt_reader_add_attr(r, r->buf + off, asz - sizeof(ids),
					  r->swap, (const void *)(r->buf +
								  ids.offset),
					  (uint32_t)(ids.size / 8), r->swap,
					  off);
		if (err)
			return err;
	}
	return 0;
}

static int read_feature_table(struct qpt_reader *r)
{
	const struct qpt_file_header *h = &r->hdr;
	struct qpt_file_section s;
	uint64_t off = r->data_end;
	unsigned bit;

	for (bit = 0; bit < QPT_HEADER_FEAT_BITS; bit++) {
		if (!(h->adds_features[bit / 64] & (1ull << (bit % 64))))
			continue;
		if (off > r->len || r->len - off < sizeof(s))
			return qpt_reader_fail(r, off, -QPT_E_TRUNCATED,
					       "feature section table past the"
					       " end of the file");
		memcpy(&s, r->buf + off, sizeof(s));
		if (r->swap)
			swap_section(&s);
		if (section_ok(r, &s, off, qpt_feature_name(bit) ?
						   qpt_feature_name(bit) :
						   "feature"))
			return -QPT_E_TRUNCATED;
		r->feat[bit].offset = s.offset;
		r->feat[bit].size = s.size;
		r->feat[bit].data = r->buf + s.offset;
		off += sizeof(s);
	}
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

int qpt_reader_open_file(struct qpt_reader *r)
{
	int err;

	if ((err = read_header(r)) || (err = read_attrs(r)) ||
	    (err = read_feature_table(r)) || (err = qpt_features_parse(r)))
		return err;
	return name_attrs(r);
}
