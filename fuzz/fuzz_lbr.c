// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what reads a perf.data beyond the decoder itself:
 * the LBR sample reader (decode/lbr_reader.c: samples with branch stacks,
 * symbolized from the file's mappings, stitched or not), the call-stack
 * LBR injector (decode/lbr_inject.c: a PT recording decoded and written
 * out again with samples, to /dev/null) and the crash walk over a whole
 * recording (qpt_crash_walk_run_file), one of them an input (by its size
 * modulo 4).  The files they name are those of fuzz/sysroot.  Seeds:
 * fuzz/seeds/fuzz_lbr (see fuzz/seeds/README.md).
 */
#include <string.h>
#include <unistd.h>

#include "fuzz/common.h"
#include "qpt/crash_walk.h"
#include "qpt/lbr.h"
#include "qpt/writer.h"

static volatile size_t sink;

static int on_sample(const struct qpt_lbr_sample *s, void *ctx)
{
	size_t i, n = s->pid + s->time + s->ip + s->hw_idx + fz_str(s->comm) +
		      fz_str(s->event);

	if (s->stitched > s->nr_calls)
		fz_fail("more call sites stitched than a sample has");
	for (i = 0; i < s->nr_frames; i++) {
		const struct qpt_lbr_frame *f = qpt_lbr_sample_frame(s, i);

		n += f->addr + f->source + fz_str(f->sym) + fz_str(f->dso) +
		     f->dso_addr;
	}
	for (i = 0; i < s->nr_calls; i++)
		n += s->calls[i];
	sink += n;
	return 0;
}

static void lbr_read(const char *path, bool stitch)
{
	struct qpt_lbr_reader_opts o;
	struct qpt_lbr_reader *r;

	qpt_lbr_reader_opts_init(&o);
	o.stitch = stitch;
	o.sysroot = QPT_FUZZ_SYSROOT;
	o.buildid_dir = QPT_FUZZ_SYSROOT;
	if (qpt_lbr_reader_new(&o, &r))
		return;
	if (qpt_lbr_reader_run(r, path, on_sample, NULL) < 0)
		sink +=
		    qpt_lbr_reader_errpos(r) + fz_str(qpt_lbr_reader_errmsg(r));
	qpt_lbr_reader_free(r);
}

static void inject(const char *path, unsigned depth)
{
	struct qpt_decoder *dec =
	    fz_file_decoder(QPT_WANT_INSN | QPT_WANT_BRANCH);
	struct qpt_lbr_inject_opts o;
	struct qpt_writer *w = NULL;

	if (!dec)
		return;
	qpt_lbr_inject_opts_init(&o);
	o.depth = depth;
	o.period = 7;
	if (!qpt_writer_open("/dev/null", NULL, &w)) {
		qpt_lbr_inject(dec, path, w, &o);
		qpt_writer_close(w);
	}
	qpt_writer_free(w);
	fz_file_done(dec);
}

static void crash_walk(const char *path)
{
	struct qpt_decoder *dec =
	    fz_file_decoder(QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_SYMBOLS);
	struct qpt_crash_walk *w = NULL;
	struct qpt_crash_thread t;
	size_t i;

	if (dec && !qpt_crash_walk_new(NULL, &w) &&
	    !qpt_crash_walk_run_file(w, dec, path))
		for (i = 0; i < qpt_crash_walk_nr_threads(w); i++)
			if (!qpt_crash_walk_thread(w, i, &t))
				sink += fz_str(t.end_sym) + t.nr_frames;
	qpt_crash_walk_free(w);
	fz_file_done(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (size < 8 ||
	    (memcmp(data, "PERFILE2", 8) && memcmp(data, "2ELIFREP", 8)))
		return 0;
	fd = fz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	switch (size % 4) { /* one reader an input: each costs a pass */
	case 0:
		lbr_read(path, false);
		break;
	case 1:
		lbr_read(path, true);
		break;
	case 2:
		inject(path, 1 + data[size - 1] % 8);
		break;
	default:
		crash_walk(path);
		break;
	}
	close(fd);
	return 0;
}
