// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the decoder.  Bytes that start like a perf.data
 * file (file or pipe mode, either byte order) go through
 * qpt_decoder_run_file (a memfd) with a decoder that finds the files of
 * fuzz/sysroot, kept across inputs but with no file looked up yet (as
 * new: fz_file_decoder); other bytes are a bare PT stream for
 * qpt_decoder_run_raw over the sysroot's program, on one decoder kept for
 * every input (a raw run depends on nothing but its bytes and the image).
 * Seeds: fuzz/seeds/fuzz_decode (see fuzz/seeds/README.md).
 */
#include <string.h>
#include <unistd.h>

#include "fuzz/common.h"

#define WANT                                                                   \
	(QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT | QPT_WANT_SYMBOLS | \
	 QPT_WANT_CYCLES)

static void run_file(const uint8_t *data, size_t size)
{
	struct qpt_decoder *dec = fz_file_decoder(WANT);
	const struct qpt_missing_image *m;
	struct qpt_decode_stats st;
	char path[64];
	size_t i, n;
	int fd;

	if (!dec)
		return;
	fd = fz_memfd(data, size, path, sizeof(path));
	if (fd >= 0) {
		if (qpt_decoder_run_file(dec, path, fz_item_sink, NULL) < 0)
			fz_str(qpt_decoder_errmsg(dec));
		close(fd);
	}
	n = qpt_decoder_missing(dec, &m);
	for (i = 0; i < n; i++)
		fz_str(m[i].path);
	qpt_decoder_stats(dec, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct qpt_decoder *raw; /* made once for every input */

	if (size >= 8 &&
	    (!memcmp(data, "PERFILE2", 8) || !memcmp(data, "2ELIFREP", 8))) {
		run_file(data, size);
		return 0;
	}
	if (!raw && !(raw = fz_decoder(WANT)))
		return 0;
	qpt_decoder_run_raw(raw, data, size, fz_item_sink, NULL);
	return 0;
}
