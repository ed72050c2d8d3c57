// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the perf.data reader: open any bytes, walk every
 * record, parse samples, touch the features and the AUXTRACE index; in
 * memory, with COMPRESSED records not unpacked, or through a pipe (the
 * incremental reader), by the input's size modulo 3.  Its seeds and
 * corpus replay as the test fuzz_reader_replay (fuzz/replay.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz/common.h"

/* The features and the AUXTRACE index's first entries' data. */
static void touch_features(struct qpt_reader *r)
{
	const struct qpt_auxtrace_index_entry *e;
	const void *span;
	size_t i, n;
	volatile size_t sink = fz_touch_features(r);

	n = qpt_reader_auxtrace_index(r, &e);
	for (i = 0; i < n && i < 16; i++) /* (an empty span has no byte) */
		if (e[i].sz &&
		    !qpt_reader_read_at(r, e[i].file_offset, e[i].sz, &span))
			sink += *(const uint8_t *)span;
	(void)sink;
}

static void walk(struct qpt_reader *r, int err)
{
	struct qpt_record rec;
	struct qpt_sample s;
	volatile uint64_t sink = 0;

	if (!err)
		touch_features(r);
	while (!err && (err = qpt_reader_next(r, &rec)) > 0) {
		err = 0;
		if (rec.type == PERF_RECORD_SAMPLE && rec.attr &&
		    !qpt_sample_parse(rec.attr, rec.data, rec.size, &s)) {
			uint64_t i;

			for (i = 0; i < s.callchain_nr; i++)
				sink += s.callchain[i];
			for (i = 0; i < s.branch_nr; i++)
				sink += s.branches[i].to;
		}
		if (rec.aux_size)
			sink += ((const uint8_t *)rec.aux)[rec.aux_size - 1];
	}
	if (r && err < 0)
		sink += qpt_reader_errpos(r) + (uint8_t)qpt_reader_errmsg(r)[0];
	if (r && qpt_reader_is_pipe(r)) /* its features came as records */
		touch_features(r);
	qpt_reader_free(r);
	(void)sink;
}

/* The same bytes through a pipe: the incremental reader.  Only inputs
 * that fit the pipe's buffer, so one thread can write them all first. */
static void via_pipe(const uint8_t *data, size_t size)
{
	struct qpt_reader *r = NULL;
	int fd[2], err;

	if (size > 60000 || pipe(fd) < 0)
		return;
	if (write(fd[1], data, size) != (ssize_t)size) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	close(fd[1]);
	err = qpt_reader_open_fd(fd[0], "pipe", NULL, &r);
	walk(r, err);
	close(fd[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qpt_reader_opts opts;
	struct qpt_reader *r = NULL;
	int err;

	/* one way of reading an input (by its size): each costs a pass */
	if (size % 3 == 2 && size <= 60000) {
		via_pipe(data, size);
		return 0;
	}
	qpt_reader_opts_init(&opts);
	/* COMPRESSED records listed but not unpacked */
	opts.no_decompress = size % 3 == 1;
	err = qpt_reader_open_mem(data, size, "fuzz", &opts, &r);
	walk(r, err);
	return 0;
}
