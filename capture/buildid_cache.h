/* SPDX-License-Identifier: MIT */
/*
 * perf's build-id cache (~/.debug): where perf record keeps the bytes of
 * what a recording maps, found again by build-id.
 */
#ifndef QPT_CAPTURE_BUILDID_CACHE_H
#define QPT_CAPTURE_BUILDID_CACHE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Put @len bytes at @buf in the cache at @dir as perf does: the file
 * DIR/NAME/HEX/BASE (e.g. NAME "[vdso]", BASE "vdso"; HEX the build-id
 * @bid in hex) and the link DIR/.build-id/HH/REST -> ../../NAME/HEX.  An
 * entry already there is kept.  *@path (when @path is not NULL) gets the
 * file's path, to free.  Returns 0, -EINVAL or -errno.
 */
int qpt_buildid_cache_add(const char *dir, const char *name, const char *base,
			  const uint8_t *bid, size_t bid_len, const void *buf,
			  size_t len, char **path);

#endif
