// SPDX-License-Identifier: MIT
/*
 * Trace buffers as libipt may read them.  libipt 2.0's search for a PSB
 * (pt_sync_forward, through the block and packet decoders' sync_forward)
 * reads the byte after a PSB pattern word that ends its buffer, the
 * word being 8-byte aligned in memory: past the end of a buffer that ends
 * a mapping, a fault.  Such a buffer is given to libipt as a copy with
 * bytes to spare; offsets into it are the same.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/internal.h"

static bool psb_word_ends(const uint8_t *buf, size_t len)
{
	uint64_t v;

	if (len < 8 || ((uintptr_t)(buf + len) & 7))
		return false;
	memcpy(&v, buf + len - 8, 8);
	return v == 0x8202820282028202ull || v == 0x0282028202820282ull;
}

const uint8_t *qd_ipt_buf(const uint8_t *buf, size_t len, uint8_t **own)
{
	*own = NULL;
	if (!psb_word_ends(buf, len))
		return buf;
	*own = malloc(len + 8);
	if (!*own)
		return NULL;
	memcpy(*own, buf, len);
	memset(*own + len, 0, 8);
	return *own;
}
