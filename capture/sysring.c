// SPDX-License-Identifier: MIT
/* A real perf mmap described for the ring consumer (see sysring.h). */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "capture/sysring.h"

static int sys_ioctl_all(struct qpt_sysring *sr, unsigned long req)
{
	size_t i;
	int err = 0;

	for (i = 0; i < sr->nr_ctl; i++)
		if (ioctl(sr->ctl_fds[i], req, 0) < 0 && !err)
			err = -errno;
	return err;
}

static int sys_enable(void *ctx)
{
	return sys_ioctl_all(ctx, PERF_EVENT_IOC_ENABLE);
}

static int sys_disable(void *ctx)
{
	return sys_ioctl_all(ctx, PERF_EVENT_IOC_DISABLE);
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

int qpt_sysring_map(struct qpt_sysring *sr, int fd, uint64_t data_pages,
		    uint64_t aux_pages, bool aux_overwrite,
		    uint64_t (*reference)(void *ctx))
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;
	int err;

	memset(sr, 0, sizeof(*sr));
	sr->fd = fd;
	if (!is_pow2(data_pages) || (aux_pages && !is_pow2(aux_pages)) ||
	    data_pages > (SIZE_MAX / page) - 1 || aux_pages > SIZE_MAX / page)
		return -QPT_E_INVAL;
	sr->base_len = (1 + data_pages) * page;
	sr->base =
	    mmap(NULL, sr->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sr->base == MAP_FAILED) {
		sr->base = NULL;
		return -errno;
	}
	pg = sr->base;
	if (aux_pages) {
		sr->aux_len = aux_pages * page;
		pg->aux_offset = sr->base_len;
		pg->aux_size = sr->aux_len;
		sr->aux = mmap(NULL, sr->aux_len,
			       PROT_READ | (aux_overwrite ? 0 : PROT_WRITE),
			       MAP_SHARED, fd, (off_t)sr->base_len);
		if (sr->aux == MAP_FAILED) {
			err = -errno;
			sr->aux = NULL;
			qpt_sysring_unmap(sr);
			return err;
		}
	}
	if (aux_pages) {
		sr->ctl_fds = &sr->fd;
		sr->nr_ctl = 1;
	}
	sr->ops.enable = sys_enable;
	sr->ops.disable = sys_disable;
	sr->ops.reference = reference;
	sr->ring.page = pg;
	sr->ring.data = (uint8_t *)sr->base + page;
	sr->ring.data_size = data_pages * page;
	sr->ring.aux = sr->aux;
	sr->ring.aux_size = sr->aux_len;
	sr->ring.aux_overwrite = aux_overwrite;
	sr->ring.ops = &sr->ops;
	sr->ring.ops_ctx = sr;
	return 0;
}

void qpt_sysring_unmap(struct qpt_sysring *sr)
{
	if (sr->aux)
		munmap(sr->aux, sr->aux_len);
	if (sr->base)
		munmap(sr->base, sr->base_len);
	sr->aux = NULL;
	sr->base = NULL;
}
