// SPDX-License-Identifier: MIT
/*
 * A recording's crash facts in the form qpt 0.1 wrote (qpt/crash.h): the
 * samples of the crash event become the header feature (bit 192), the
 * event and its samples are left out, the rest is copied (file mode, not
 * compressed).  For the tests of files written before the samples.
 *
 * Usage: crash_oldform IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpt/crash.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

static int fail(const char *what, int err)
{
	fprintf(stderr, "crash_oldform: %s: %s\n", what, qpt_strerror(err));
	return 1;
}

static int copy_attrs(struct qpt_reader *r, struct qpt_writer *w)
{
	size_t i;
	int err;

	for (i = 0; i < qpt_reader_nr_attrs(r); i++) {
		const struct qpt_attr *a = qpt_reader_attr(r, i);

		if (qpt_crash_is_event(a))
			continue;
		err = qpt_writer_add_attr(w, &a->attr, a->ids, a->nr_ids,
					  a->name);
		if (err)
			return err;
	}
	return 0;
}

static int copy_features(struct qpt_reader *r, struct qpt_writer *w)
{
	const void *data;
	size_t size;
	int feat, err;

	for (feat = 1; feat < QPT_FEAT_LAST; feat++) {
		if (feat == QPT_FEAT_AUXTRACE || feat == QPT_FEAT_COMPRESSED ||
		    feat == QPT_FEAT_EVENT_DESC ||
		    feat == QPT_FEAT_DIR_FORMAT ||
		    qpt_reader_feature_raw(r, feat, &data, &size))
			continue;
		err = qpt_writer_set_feature_raw(w, feat, data, size);
		if (err)
			return err;
	}
	return 0;
}

/* One record: a crash sample's fact kept, AUXTRACE rewritten, the rest
 * copied. */
static int one(struct qpt_writer *w, const struct qpt_record *rec,
	       struct qpt_crash *list, size_t *nr)
{
	struct qpt_record_auxtrace hdr;
	struct iovec iov;

	if (rec->type == PERF_RECORD_SAMPLE && qpt_crash_is_event(rec->attr)) {
		if (*nr == 64 || qpt_crash_sample_parse(rec, false, &list[*nr]))
			return -QPT_E_FORMAT;
		list[(*nr)++].stack = NULL;
		return 0;
	}
	if (rec->type != QPT_RECORD_AUXTRACE)
		return qpt_writer_write(w, rec->data);
	memcpy(&hdr, rec->data, sizeof(hdr));
	iov.iov_base = (void *)rec->aux;
	iov.iov_len = rec->aux_size;
	hdr.size = 0;
	return qpt_writer_write_auxtrace(w, &hdr, &iov, 1);
}

int main(int argc, char **argv)
{
	static struct qpt_crash list[64];
	struct qpt_reader *r;
	struct qpt_writer *w;
	struct qpt_record rec;
	size_t nr = 0, len;
	void *buf;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: crash_oldform IN OUT\n");
		return 2;
	}
	err = qpt_reader_open(argv[1], NULL, &r);
	if (err)
		return fail(argv[1], err);
	err = qpt_writer_open(argv[2], NULL, &w);
	if (err)
		return fail(argv[2], err);
	err = copy_attrs(r, w);
	if (!err)
		err = copy_features(r, w);
	while (!err && (err = qpt_reader_next(r, &rec)) > 0)
		err = one(w, &rec, list, &nr);
	if (err)
		return fail(argv[1], err);
	err = qpt_crash_encode(list, nr, &buf, &len);
	if (!err)
		err = qpt_writer_set_feature_raw(
		    w, (enum qpt_feature)QPT_FEAT_QPT_CRASH, buf, len);
	if (!err)
		err = qpt_writer_close(w);
	if (err)
		return fail(argv[2], err);
	free(buf);
	qpt_writer_free(w);
	qpt_reader_free(r);
	return 0;
}
