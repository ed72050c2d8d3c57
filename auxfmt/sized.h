/* SPDX-License-Identifier: MIT */
/*
 * Sized output structs (see qpt.h): the caller says how large its struct
 * is; the library fills what fits.  Shared by auxfmt, capture and
 * decode.  Not installed.
 */
#ifndef QPT_AUXFMT_SIZED_H
#define QPT_AUXFMT_SIZED_H

#include <stddef.h>
#include <string.h>

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

#endif /* QPT_AUXFMT_SIZED_H */
