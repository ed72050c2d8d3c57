/* SPDX-License-Identifier: MIT */
/* auxfmt/perfmon*.c: the reader object shared by the codec and the file
 * input. */
#ifndef QPT_AUXFMT_PERFMON_PRIV_H
#define QPT_AUXFMT_PERFMON_PRIV_H

#include "qpt/perfmon.h"

struct qpt_perfmon {
	const uint8_t *buf;
	size_t len;
	void *map;	/* a mapped file (munmap at free) */
	size_t map_len;
	uint8_t *own;	/* a file read into memory (free at free) */
	struct qpt_perfmon_header hdr;
	uint64_t pos;	/* the next record */
	int err;	/* sticky */
	uint64_t errpos;
	char errmsg[192];
};

/* Check the header and start at the first record; 0 or the error. */
int qpt_perfmon_start(struct qpt_perfmon *pm);
int qpt_perfmon_fail(struct qpt_perfmon *pm, uint64_t pos, int err,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
