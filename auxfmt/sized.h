/* SPDX-License-Identifier: MIT */
/*
 * Sized output structs (see qpt.h): the caller says how large its struct
 * is; the library fills what fits.  Shared by auxfmt, capture and
 * decode.  Not installed.
 */
#ifndef QPT_AUXFMT_SIZED_H
#define QPT_AUXFMT_SIZED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qpt/qpt.h"

/*
 * Hand the library's @full (@full_size bytes) to the caller's @out of
 * @out_size bytes: the bytes that fit, zeros past @full_size (fields of a
 * newer header than the library's).
 */
static inline void qpt_sized_copy(void *out, size_t out_size,
				  const void *full, size_t full_size)
{
	if (out == full)
		return;
	memcpy(out, full, out_size < full_size ? out_size : full_size);
	if (out_size > full_size)
		memset((char *)out + full_size, 0, out_size - full_size);
}

/*
 * Options structs (qpt_X_opts) begin with their size (size_t, the caller's
 * sizeof).  Hand the library's defaults @def (@full bytes) to the caller's
 * @out of @size bytes, its size member set to @size where it fits.
 */
static inline void qpt_sized_opts_init(void *out, size_t size,
				       const void *def, size_t full)
{
	qpt_sized_copy(out, size, def, full);
	if (size >= sizeof(size_t))
		memcpy(out, &size, sizeof(size));
}

/*
 * Read a caller's options @in (its size member first) over the defaults
 * in @out (@full bytes): what both know; @out's size becomes @full.
 * Returns 0, or -QPT_E_INVAL when @in is smaller than @min (the first
 * version's size) or sets bytes this version does not know.
 */
static inline int qpt_sized_opts_read(void *out, size_t full, const void *in,
				      size_t min)
{
	const uint8_t *p = in;
	size_t in_size, i;

	memcpy(&in_size, in, sizeof(in_size));
	if (in_size < min || in_size < sizeof(size_t))
		return -QPT_E_INVAL;
	for (i = full; i < in_size; i++)
		if (p[i])
			return -QPT_E_INVAL;
	memcpy(out, in, in_size < full ? in_size : full);
	memcpy(out, &full, sizeof(full));
	return 0;
}

#endif /* QPT_AUXFMT_SIZED_H */
