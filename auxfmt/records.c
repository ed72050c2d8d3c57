// SPDX-License-Identifier: MIT
/* Fields of sideband records: MMAP and MMAP2 parsed once and MMAP2 laid
 * out once (perf_event.h's layout), build-ids by file name. */
#include <errno.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

/* PERF_RECORD_MMAP2's body after the header, as perf_event.h has it: pid,
 * tid, addr, len, pgoff, then either maj, min, ino, ino_generation or
 * build_id_size, 3 reserved bytes, build_id[20]; prot, flags, filename. */
#define MMAP2_ID 32	   /* maj or build_id_size */
#define MMAP2_PROT 56	   /* prot, flags */
#define MMAP2_FILENAME 64  /* after the header */

static int mmap_parse(const struct qpt_record *rec, struct qpt_mmap_event *m)
{
	const uint8_t *d = rec->data;
	size_t fn_off;

	if (rec->type != PERF_RECORD_MMAP && rec->type != PERF_RECORD_MMAP2)
		return -QPT_E_INVAL;
	memset(m, 0, sizeof(*m));
	fn_off = rec->type == PERF_RECORD_MMAP2 ? 72 : 40;
	if (rec->size < fn_off)
		return -QPT_E_TRUNCATED;
	memcpy(&m->pid, d + 8, 4);
	memcpy(&m->tid, d + 12, 4);
	memcpy(&m->start, d + 16, 8);
	memcpy(&m->len, d + 24, 8);
	memcpy(&m->pgoff, d + 32, 8);
	if (rec->type == PERF_RECORD_MMAP2) {
		memcpy(&m->prot, d + 8 + MMAP2_PROT, 4);
		memcpy(&m->flags, d + 8 + MMAP2_PROT + 4, 4);
		m->exec = m->prot & 4; /* PROT_EXEC */
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id = d + 8 + MMAP2_ID + 4;
			m->build_id_size = d[40] <= 20 ? d[40] : 20;
		} else {
			memcpy(&m->maj, d + 8 + MMAP2_ID, 4);
			memcpy(&m->min, d + 8 + MMAP2_ID + 4, 4);
			memcpy(&m->ino, d + 8 + MMAP2_ID + 8, 8);
			memcpy(&m->ino_generation, d + 8 + MMAP2_ID + 16, 8);
		}
	} else {
		m->exec = !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	}
	m->filename = (const char *)d + fn_off;
	m->filename_len = strnlen(m->filename, rec->size - fn_off);
	return 0;
}

/* The first version's struct qpt_mmap_event ends with filename_len. */
#define MMAP_EVENT_SIZE_V1 (offsetof(struct qpt_mmap_event, filename_len) + 8)

int qpt_mmap_parse_sized(const struct qpt_record *rec,
			 struct qpt_mmap_event *m, size_t size)
{
	struct qpt_mmap_event full;
	int ret;

	if (!rec || !m || size < MMAP_EVENT_SIZE_V1)
		return -QPT_E_INVAL;
	if (size == sizeof(full))
		return mmap_parse(rec, m);
	memset(&full, 0, sizeof(full));
	ret = mmap_parse(rec, &full);
	qpt_sized_copy(m, size, &full, sizeof(full));
	return ret;
}

int qpt_mmap2_build(const struct qpt_mmap_event *m, uint16_t misc,
		    size_t trailer, void *buf, size_t cap)
{
	size_t nlen, size;
	uint8_t *d = buf;

	if (!m || !buf || (!m->filename && m->filename_len) ||
	    m->build_id_size > 20 || (m->build_id_size && !m->build_id))
		return -QPT_E_INVAL;
	nlen = m->filename ? strnlen(m->filename, m->filename_len) : 0;
	size = 8 + MMAP2_FILENAME + ((nlen + 1 + 7) & ~(size_t)7) + trailer;
	if (size > UINT16_MAX || size > INT32_MAX)
		return -QPT_E_INVAL;
	if (size > cap)
		return -ENOSPC;
	memset(d, 0, size);
	misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
	if (m->build_id_size) {
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		d[8 + MMAP2_ID] = m->build_id_size;
		memcpy(d + 8 + MMAP2_ID + 4, m->build_id, m->build_id_size);
	} else {
		memcpy(d + 8 + MMAP2_ID, &m->maj, 4);
		memcpy(d + 8 + MMAP2_ID + 4, &m->min, 4);
		memcpy(d + 8 + MMAP2_ID + 8, &m->ino, 8);
		memcpy(d + 8 + MMAP2_ID + 16, &m->ino_generation, 8);
	}
	((struct perf_event_header *)d)->type = PERF_RECORD_MMAP2;
	((struct perf_event_header *)d)->misc = misc;
	((struct perf_event_header *)d)->size = (uint16_t)size;
	memcpy(d + 8, &m->pid, 4);
	memcpy(d + 12, &m->tid, 4);
	memcpy(d + 16, &m->start, 8);
	memcpy(d + 24, &m->len, 8);
	memcpy(d + 32, &m->pgoff, 8);
	memcpy(d + 8 + MMAP2_PROT, &m->prot, 4);
	memcpy(d + 8 + MMAP2_PROT + 4, &m->flags, 4);
	if (nlen)
		memcpy(d + 8 + MMAP2_FILENAME, m->filename, nlen);
	return (int)size;
}

const struct qpt_build_id *qpt_reader_build_id(const struct qpt_reader *r,
					       const char *filename)
{
	const struct qpt_features *f = qpt_reader_features(r);
	size_t i;

	for (i = 0; f && filename && i < f->nr_build_ids; i++)
		if (f->build_ids[i].filename &&
		    !strcmp(f->build_ids[i].filename, filename))
			return &f->build_ids[i];
	return NULL;
}
