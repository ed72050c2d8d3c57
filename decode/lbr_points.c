// SPDX-License-Identifier: MIT
/* The samples of a perf.data file as LBR record points. */
#include <stdio.h>

#include "decode/lbr_priv.h"
#include "qpt/reader.h"

int qpt_lbr_add_file_samples(struct qpt_lbr *l, const char *path)
{
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	struct qpt_sample s;
	int err, n = 0;

	qd_lbr_set_error(l, 0, NULL);
	err = qpt_reader_open(path, NULL, &r);
	while (!err && (err = qpt_reader_next(r, &rec)) > 0) {
		err = 0;
		if (rec.type != PERF_RECORD_SAMPLE || !rec.attr ||
		    qpt_sample_parse(rec.attr, rec.data, rec.size, &s) ||
		    !(s.sample_type & PERF_SAMPLE_TID) ||
		    !(s.sample_type & PERF_SAMPLE_TIME))
			continue;
		err = qpt_lbr_add_point(l, (int32_t)s.tid, s.time, s.ip);
		n++;
	}
	if (err < 0 && r)
		qd_lbr_set_error(l, qpt_reader_errpos(r), qpt_reader_errmsg(r));
	qpt_reader_free(r);
	return err < 0 ? err : n;
}
