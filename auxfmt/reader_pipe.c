// SPDX-License-Identifier: MIT
/*
 * Pipe mode: a 16-byte header and then records, with the event
 * descriptions and features in-band (HEADER_ATTR, HEADER_FEATURE,
 * EVENT_UPDATE).  The in-band records are also delivered to the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"

int qpt_reader_open_pipe(struct qpt_reader *r)
{
	r->pipe = true;
	r->data_begin = sizeof(struct qpt_pipe_header);
	r->data_end = r->stream ? UINT64_MAX : r->len;
	r->pos = r->data_begin;
	return 0;
}

static int header_attr(struct qpt_reader *r, const uint8_t *rec,
		       uint32_t size, uint64_t pos)
{
	const uint64_t *ids;
	uint32_t asz;

	if (size < 8 + PERF_ATTR_SIZE_VER0)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "HEADER_ATTR of %u bytes is too short",
				       size);
	memcpy(&asz, rec + 8 + 4, 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8 || (size - 8 - asz) % 8)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "HEADER_ATTR attr size %u does not fit"
				       " its record of %u bytes",
				       asz, size);
	/* the record is host order already */
	ids =
	    qpt_reader_id_block(r, rec + 8 + asz, (size - 8 - asz) / 8, false);
	if (!ids)
		return -ENOMEM;
	return qpt_reader_add_attr(r, rec + 8, asz, false, ids,
				   (size - 8 - asz) / 8, NULL, pos);
}

static int header_feature(struct qpt_reader *r, const uint8_t *rec,
			  uint32_t size, uint64_t pos)
{
	struct qpt_feat_sect *s;
	uint64_t feat;
	uint8_t *copy;

	if (size < 16)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "HEADER_FEATURE of %u bytes is too"
				       " short", size);
	memcpy(&feat, rec + 8, 8);
	if (feat >= QPT_HEADER_FEAT_BITS)
		return 0; /* unknown: skipped, as perf does */
	/*
	 * The features' own (freed with them): an earlier record of this
	 * feature stays, as its parsed strings point into it, whether or not
	 * this one parses.
	 */
	copy = qpt_reader_alloc(r, size - 16, 1);
	if (!copy)
		return -ENOMEM;
	/* the feature bytes keep the stream's byte order (the cursor swaps) */
	memcpy(copy, rec + 16, size - 16);
	s = &r->feat[feat];
	s->data = copy;
	s->size = size - 16;
	s->offset = pos + 16;
	return qpt_feature_parse_one(r, (unsigned)feat);
}

/* struct perf_record_event_update: u64 type, u64 id, then by type. */
static int event_update(struct qpt_reader *r, const uint8_t *rec,
			uint32_t size, uint64_t pos)
{
	uint64_t type, id;
	const uint8_t *name, *nul;

	if (size < 24)
		return qpt_reader_fail(r, pos, -QPT_E_FORMAT,
				       "EVENT_UPDATE of %u bytes is too short",
				       size);
	memcpy(&type, rec + 8, 8);
	memcpy(&id, rec + 16, 8);
	if (type != 2) /* PERF_EVENT_UPDATE__NAME */
		return 0;
	name = rec + 24;
	nul = memchr(name, 0, size - 24);
	return qpt_reader_set_name(r, id, (const char *)name,
				   nul ? (size_t)(nul - name) : size - 24u);
}

int qpt_reader_pipe_record(struct qpt_reader *r, const uint8_t *rec,
			   uint32_t size, uint64_t pos)
{
	uint32_t type;

	memcpy(&type, rec, 4);
	switch (type) {
	case QPT_RECORD_HEADER_ATTR:
		return r->pipe ? header_attr(r, rec, size, pos) : 0;
	case QPT_RECORD_HEADER_FEATURE:
		return r->pipe ? header_feature(r, rec, size, pos) : 0;
	case QPT_RECORD_EVENT_UPDATE:
		return event_update(r, rec, size, pos);
	}
	return 0;
}
