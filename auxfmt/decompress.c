// SPDX-License-Identifier: MIT
/* zstd streaming decompression of COMPRESSED record payloads.  One stream
 * for the whole input: perf's compressed data is one continuous stream. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "auxfmt/reader_internal.h"

struct qpt_zstd {
	ZSTD_DStream *ds;
};

int qpt_zstd_new(struct qpt_zstd **out)
{
	struct qpt_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	z->ds = ZSTD_createDStream();
	if (!z->ds) {
		free(z);
		return -ENOMEM;
	}
	ZSTD_initDStream(z->ds);
	/*
	 * perf compresses each ring chunk in one call, so its frames declare
	 * windows no larger than a chunk; refuse frames asking for more than
	 * 16 MiB rather than allocate what a tiny input claims.
	 */
	ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, 24);
	*out = z;
	return 0;
}

void qpt_zstd_free(struct qpt_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z);
}

long qpt_zstd_step(struct qpt_zstd *z, const uint8_t *in, size_t in_len,
		   size_t *in_off, uint8_t *out, size_t out_cap)
{
	ZSTD_inBuffer ib = {in, in_len, *in_off};
	ZSTD_outBuffer ob = {out, out_cap, 0};
	size_t ret;

	ret = ZSTD_decompressStream(z->ds, &ob, &ib);
	if (ZSTD_isError(ret))
		return -QPT_E_FORMAT;
	*in_off = ib.pos;
	return (long)ob.pos;
}

