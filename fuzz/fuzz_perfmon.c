// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the perfmon buffer codec: every input is read
 * record by record; each record read is encoded again and must read back
 * the same; the LAST_BRANCH records are converted to perf.data in memory
 * (/dev/null).  Its corpus replays as a regression test.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qpt/perfmon.h"
#include "qpt/writer.h"

static void roundtrip(const struct qpt_perfmon_record *r)
{
	uint8_t buf[24 + 16 + 24 * QPT_PERFMON_MAX_BRANCHES];
	struct qpt_perfmon_header h = { 0, 0, 0, 1, 0 };
	struct qpt_perfmon_record back;
	struct qpt_perfmon *pm;
	int n;

	n = qpt_perfmon_encode_record(r, buf + 24, sizeof(buf) - 24);
	if (n <= 0)
		abort();
	h.capture_end = 24 + (uint64_t)n;
	qpt_perfmon_encode_header(&h, buf);
	if (qpt_perfmon_open_mem(buf, h.capture_end, &pm) ||
	    qpt_perfmon_next(pm, &back, NULL) != 1 ||
	    memcmp(r, &back, sizeof(back)))
		abort();
	qpt_perfmon_free(pm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qpt_perfmon_record r;
	struct qpt_perfmon *pm = NULL;
	struct qpt_writer *w = NULL;
	uint64_t skipped;

	if (!qpt_perfmon_open_mem(data, size, &pm))
		while (qpt_perfmon_next(pm, &r, NULL) == 1)
			roundtrip(&r);
	qpt_perfmon_free(pm);
	pm = NULL;
	if (!qpt_perfmon_open_mem(data, size, &pm) &&
	    !qpt_writer_open("/dev/null", NULL, &w)) {
		qpt_perfmon_to_perf(pm, w, &skipped);
		qpt_writer_close(w);
	}
	qpt_writer_free(w);
	qpt_perfmon_free(pm);
	return 0;
}
