// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the decoder.  Bytes that start like a perf.data
 * file (file or pipe mode, either byte order) go through
 * qpt_decoder_run_file (a memfd) with a decoder that finds the files of
 * fuzz/sysroot, kept across inputs but with no file looked up yet (as
 * new: fz_file_decoder); other bytes are a bare PT stream for
 * qpt_decoder_run_raw over the sysroot's program, on one decoder kept for
 * every input (a raw run depends on nothing but its bytes and the image).
 * Each engine and mode (wants[]) decodes a quarter of the inputs, up to a
 * budget of items (RAW_ITEMS, FILE_ITEMS: the run stops there).  Seeds:
 * fuzz/seeds/fuzz_decode (see fuzz/seeds/README.md).
 */
#include <string.h>
#include <unistd.h>

#include "decode/decoder.h"
#include "fuzz/common.h"

#define WANT                                                                   \
	(QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT | QPT_WANT_SYMBOLS)

/* What an input is decoded with, by its size: qpt's fast block decoder;
 * libipt's alone; libipt's with cycles (the fast one counts none); the
 * profile of --stats. */
static const unsigned wants[4] = {
    WANT,
    WANT | FZ_LIBIPT,
    WANT | QPT_WANT_CYCLES,
    QPT_WANT_PROFILE | QPT_WANT_EVENT,
};

/* The items a run may give (fz_item_sink): a bare stream's, and a
 * recording's (which also has its records to read after them). */
#define RAW_ITEMS 256
#define FILE_ITEMS 16384
/* The profile tells no instructions: a budget of a bare stream's bytes
 * instead (its runs took 1.6 ms on average on the campaign's corpus, 5
 * times the others', and most of the target's time) */
#define PROFILE_BYTES 1024

/* Read the profile (QPT_WANT_PROFILE) of @dec's last run. */
static void profile(const struct qpt_decoder *dec)
{
	const struct qpt_profile_thread *t;
	const struct qpt_profile_func *f;
	size_t i, n, sum = 0;

	n = qpt_decoder_profile_threads(dec, &t);
	for (i = 0; i < n; i++)
		sum += t[i].insns + t[i].branches;
	n = qpt_decoder_profile_funcs(dec, &f);
	for (i = 0; i < n; i++)
		sum += fz_str(f[i].name) + fz_str(f[i].image) + f[i].calls;
	fz_str(sum ? "" : NULL);
}

static void run_file(const uint8_t *data, size_t size, unsigned want)
{
	struct qpt_decoder *dec = fz_file_decoder(want);
	const struct qpt_missing_image *m;
	struct qpt_decode_stats st;
	size_t left = FILE_ITEMS;
	char path[64];
	size_t i, n;
	int fd;

	if (!dec)
		return;
	fd = fz_memfd(data, size, path, sizeof(path));
	if (fd >= 0) {
		if (qpt_decoder_run_file(dec, path, fz_item_sink, &left) < 0)
			fz_str(qpt_decoder_errmsg(dec));
		close(fd);
	}
	n = qpt_decoder_missing(dec, &m);
	for (i = 0; i < n; i++)
		fz_str(m[i].path);
	qpt_decoder_stats(dec, &st);
	profile(dec);
	fz_file_done(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct qpt_decoder *raw[4]; /* made once for every input */
	unsigned v = size % 4;
	struct qpt_decoder *dec;
	size_t left = RAW_ITEMS;

	if (size >= 8 &&
	    (!memcmp(data, "PERFILE2", 8) || !memcmp(data, "2ELIFREP", 8))) {
		run_file(data, size, wants[v]);
		return 0;
	}
	if (!raw[v] && !(raw[v] = fz_decoder(wants[v])))
		return 0;
	dec = raw[v];
	qd_decoder_reset_results(dec); /* a profile adds up every run's */
	qpt_decoder_run_raw(dec, data,
			    v == 3 && size > PROFILE_BYTES ? PROFILE_BYTES : size,
			    fz_item_sink, &left);
	if (v == 3)
		profile(dec);
	return 0;
}
