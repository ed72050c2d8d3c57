/* SPDX-License-Identifier: MIT */
/*
 * A real perf mmap: the control page and data ring of 1 + 2^n pages, then
 * the AUX area (aux_offset/aux_size set in the control page before the
 * second mmap; read-write in full-trace mode, read-only in snapshot mode),
 * described as a struct qpt_ring whose ops are the enable/disable ioctls
 * on the AUX event.
 */
#ifndef QPT_CAPTURE_SYSRING_H
#define QPT_CAPTURE_SYSRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/ring.h"

struct qpt_sysring {
	int fd; /* the event that owns the buffer (borrowed) */
	/* The AUX events writing here, for enable/disable (borrowed; set
	 * after mapping; default: @fd alone when there is an AUX area). */
	const int *ctl_fds;
	size_t nr_ctl;
	void *base; /* control page + data ring */
	size_t base_len;
	void *aux;
	size_t aux_len;
	struct qpt_ring_ops ops;
	struct qpt_ring ring; /* filled by qpt_sysring_map */
};

/*
 * Map @fd's buffers: @data_pages (a power of two) data pages and, if
 * @aux_pages (a power of two), the AUX area.  @reference: the AUXTRACE
 * reference clock (may be NULL).  Returns 0, -QPT_E_INVAL, or the mmap's
 * -errno (-EPERM/-ENOMEM: over perf_event_mlock_kb and RLIMIT_MEMLOCK).
 * On failure nothing stays mapped.
 */
int qpt_sysring_map(struct qpt_sysring *sr, int fd, uint64_t data_pages,
		    uint64_t aux_pages, bool aux_overwrite,
		    uint64_t (*reference)(void *ctx));
void qpt_sysring_unmap(struct qpt_sysring *sr);

#endif /* QPT_CAPTURE_SYSRING_H */
