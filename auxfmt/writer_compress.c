// SPDX-License-Identifier: MIT
/*
 * zstd compression of records into COMPRESSED records, as `perf record -z`
 * makes them: one zstd stream over the whole recording, flushed (not ended)
 * at each batch, its bytes cut into COMPRESSED records (type 81) of at most
 * 0xffff bytes, header included.  perf decompresses each record's bytes
 * with one stream context and joins a record that straddles two.
 *
 * Records are staged up to STAGE_CAP bytes, which keeps the compressed
 * bytes of a batch within one COMPRESSED record unless the batch does not
 * compress, and keeps what one COMPRESSED record decompresses to well under
 * the mmap_len (528384) the COMPRESSED feature announces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "auxfmt/writer_priv.h"

#define STAGE_CAP 65000
#define COMP_HEADER sizeof(struct perf_event_header)
#define COMP_PAYLOAD_MAX (QPT_RECORD_MAX - COMP_HEADER)

struct qpt_wzstd {
	ZSTD_CCtx *cctx;
	uint8_t *stage;
	size_t len;
};

int qpt_wzstd_new(int level, struct qpt_wzstd **zp)
{
	struct qpt_wzstd *z;
	size_t r;

	*zp = NULL;
	if (level < 1 || level > ZSTD_maxCLevel())
		return -QPT_E_INVAL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->cctx = ZSTD_createCCtx();
	z->stage = malloc(STAGE_CAP);
	if (!z->cctx || !z->stage) {
		qpt_wzstd_free(z);
		return -ENOMEM;
	}
	r = ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(r)) {
		qpt_wzstd_free(z);
		return -QPT_E_INVAL;
	}
	*zp = z;
	return 0;
}

void qpt_wzstd_free(struct qpt_wzstd *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->stage);
	free(z);
}

/* Compress @len bytes at @src and flush them into COMPRESSED records. */
static int compress_out(struct qpt_writer *w, const void *src, size_t len)
{
	ZSTD_inBuffer in = {.src = src, .size = len, .pos = 0};
	struct perf_event_header h;
	ZSTD_outBuffer out;
	uint8_t *p;
	size_t r;
	int err;

	do {
		err = qpt_writer_out_reserve(w, QPT_RECORD_MAX, &p);
		if (err)
			return err;
		out.dst = p + COMP_HEADER;
		out.size = COMP_PAYLOAD_MAX;
		out.pos = 0;
		r = ZSTD_compressStream2(w->z->cctx, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(r)) {
			qpt_writer_logf(w, QPT_LOG_WARN, "zstd: %s",
					ZSTD_getErrorName(r));
			if (!w->err)
				w->err = -ENOMEM;
			return -ENOMEM;
		}
		if (out.pos) {
			h.type = QPT_RECORD_COMPRESSED;
			h.misc = 0;
			h.size = (uint16_t)(COMP_HEADER + out.pos);
			memcpy(p, &h, sizeof(h));
			qpt_writer_out_commit(w, h.size);
			w->z_out += h.size;
		}
	} while (r != 0 || in.pos < in.size);
	w->z_in += len;
	return 0;
}

int qpt_wzstd_flush(struct qpt_writer *w)
{
	struct qpt_wzstd *z = w->z;
	int err;

	if (!z || !z->len)
		return 0;
	err = compress_out(w, z->stage, z->len);
	if (!err)
		z->len = 0;
	return err;
}

int qpt_wzstd_add(struct qpt_writer *w, const void *rec, size_t len)
{
	struct qpt_wzstd *z = w->z;
	int err;

	if (z->len + len > STAGE_CAP) {
		err = qpt_wzstd_flush(w);
		if (err)
			return err;
	}
	if (len > STAGE_CAP)
		return compress_out(w, rec, len);
	memcpy(z->stage + z->len, rec, len);
	z->len += len;
	return 0;
}
