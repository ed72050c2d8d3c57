// SPDX-License-Identifier: MIT
/* Fields of sideband records for the readers of the library: MMAP and
 * MMAP2 parsed once, build-ids by file name. */
#include <string.h>

#include "auxfmt/sized.h"
#include "qpt/reader.h"

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
		memcpy(&m->prot, d + 64, 4);
		memcpy(&m->flags, d + 68, 4);
		m->exec = m->prot & 4; /* PROT_EXEC */
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id = d + 44;
			m->build_id_size = d[40] <= 20 ? d[40] : 20;
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
