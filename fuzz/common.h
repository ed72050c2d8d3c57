/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share (fuzz/common.c): inputs as files without a
 * file system, the decoder over the code of fuzz/sysroot, every string of
 * the parsed features touched, and the one way a target reports a broken
 * invariant.
 */
#ifndef QPT_FUZZ_COMMON_H
#define QPT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "qpt/decode.h"
#include "qpt/reader.h"

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * @size bytes of @data in a memfd, named "/proc/self/fd/N" in @path (@len
 * bytes): returns the fd (the caller closes it), or -1.
 */
int fz_memfd(const uint8_t *data, size_t size, char *path, size_t len);

/* In a want of the functions below: decode with libipt's block decoder
 * alone (opts.libipt_only), not qpt's fast one. */
#define FZ_LIBIPT (1u << 31)

/*
 * A decoder that wants @want and finds the recordings' files under
 * fuzz/sysroot (and nowhere else: no build-id cache, no host file), with
 * the sysroot's program also added by hand at its link address for raw
 * streams.  NULL when out of memory.
 */
struct qpt_decoder *fz_decoder(unsigned want);

/*
 * A decoder for recordings that wants @want, as fz_decoder() makes it but
 * without the image added by hand, kept across inputs (its 1 MiB cache of
 * decoded instructions and libipt's section cache are made once) and
 * made anew every 4096 calls (libipt's section cache only grows).  Give
 * it back with fz_file_done() at the end of each input.  NULL when out of
 * memory.
 */
struct qpt_decoder *fz_file_decoder(unsigned want);

/*
 * The end of an input's use of fz_file_decoder()'s @dec (NULL: none): its
 * results (a profile adds up every run's) and its files are emptied, so
 * that the next input finds it as new.  In the input, not at the next
 * one: libFuzzer runs an input again under a leak check (a scan of the
 * whole heap) when it allocated more than it freed.
 */
void fz_file_done(struct qpt_decoder *dec);

/*
 * An item callback that reads every field and string of the item.  @ctx
 * is NULL, or a size_t budget of items: the run stops (the callback
 * returns -1) once that many have come.  A stream of a few bytes can say
 * millions of instructions (a loop's TNTs); past the first hundreds the
 * decoder runs the code it has already run, and a target that decodes
 * them all runs a fraction of the inputs it could.
 */
int fz_item_sink(const struct qpt_item *it, void *ctx);

/* Read every string and array of the reader's features (ASan sees any
 * byte out of bounds); returns a sum that means nothing. */
size_t fz_touch_features(const struct qpt_reader *r);

/* A string's bytes summed (every byte read); NULL is 0. */
size_t fz_str(const char *s);

/* A broken invariant: say which and abort (libFuzzer keeps the input). */
void fz_fail(const char *what) __attribute__((noreturn));

#endif
