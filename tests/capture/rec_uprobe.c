// SPDX-License-Identifier: MIT
/*
 * --snapshot-on on the PMU source with the real kernel's uprobe: qpt's
 * recorder (snapshot mode, intel_pt from a fake sysfs, every CPU) runs a
 * real command (or records -p's process); every event is opened on the real
 * kernel (the uprobe, the sideband dummy) except the AUX event, which a real
 * dummy stands in for, its AUX area in memory (Intel PT is absent here).  The
 * stand-in area gets sim_unit.h's numbered units: before the command starts
 * (the area wraps) and a chunk after each poll.
 *
 * Prints for the shell test (rec_uprobe.sh):
 *   uprobe PATH OFFSET    the uprobe as opened (config1, config2)
 *   snapshot WHEN END     each snapshot (each disable of the first ring's
 *       AUX event): WHEN "running" (a hit's) or "stopping" (the last),
 *       END the number of units written before it
 *   started               the events enabled (-p: the process may go on)
 *   status STATUS         the command's wait status
 *
 * Usage: rec_uprobe [-S SIZE] OUT SYSFS SYMBOL -- CMD ARGS
 *        rec_uprobe [-S SIZE] -p PID OUT SYSFS SYMBOL
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture/recorder.h"
#include "sim_unit.h"

#define UNIT SIM_UNIT
#define CHUNK_UNITS 16
#define FAKE_PT_TYPE 48 /* the fake sysfs's intel_pt */
#define MAX_RINGS 64

struct area {
	struct qpt_sysring *sr;
	uint8_t *mem;
};

static struct sim {
	struct area areas[MAX_RINGS];
	size_t nr;
	uint64_t units;
	bool stopping;
} sim;

/* @n units into every stand-in AUX area (sim_unit.h), its head moved. */
static void produce(unsigned int n)
{
	struct perf_event_mmap_page *pg;
	uint64_t head, size;
	size_t j;

	for (; n; n--, sim.units++) {
		for (j = 0; j < sim.nr; j++) {
			pg = sim.areas[j].sr->ring.page;
			size = sim.areas[j].sr->ring.aux_size;
			head = atomic_load_explicit(
			    (_Atomic uint64_t *)&pg->aux_head,
			    memory_order_relaxed);
			sim_unit_fill(sim.areas[j].mem + head % size,
				      sim.units);
			atomic_store_explicit((_Atomic uint64_t *)&pg->aux_head,
					      head + UNIT,
					      memory_order_release);
		}
	}
}

static int area_disable(void *ctx)
{
	if (ctx != sim.areas[0].sr) /* one line per snapshot: ring 0's */
		return 0;
	printf("snapshot %s %llu\n", sim.stopping ? "stopping" : "running",
	       (unsigned long long)sim.units);
	return 0;
}

static int area_enable(void *ctx)
{
	return 0;
}

static int real_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu)
{
	struct perf_event_attr a = *attr;
	int fd;

	if (a.type == FAKE_PT_TYPE) { /* a real dummy stands in */
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.config1 = a.config2 = 0;
		a.aux_watermark = 0;
	} else if (a.config1 && a.type != PERF_TYPE_SOFTWARE) {
		printf("uprobe %s %llu\n", (const char *)(uintptr_t)a.config1,
		       (unsigned long long)a.config2);
	}
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int real_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/* The real data ring; the AUX area in memory, its head written here. */
static int real_map(void *ctx, struct qpt_sysring *sr, int fd,
		    uint64_t data_pages, uint64_t aux_pages, bool aux_overwrite,
		    uint64_t (*reference)(void *ctx))
{
	uint64_t size = aux_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	struct area *a;
	int err;

	if (sim.nr == MAX_RINGS)
		return -EMFILE;
	err = qpt_sysring_map(sr, fd, data_pages, 0, false, NULL);
	if (err < 0)
		return err;
	a = &sim.areas[sim.nr];
	a->mem = calloc(1, size);
	if (!a->mem) {
		qpt_sysring_unmap(sr);
		return -ENOMEM;
	}
	a->sr = sr;
	sr->ring.aux = a->mem;
	sr->ring.aux_size = size;
	sr->ring.aux_overwrite = aux_overwrite;
	sr->ops.enable = area_enable;
	sr->ops.disable = area_disable;
	sim.nr++;
	return 0;
}

static void real_unmap(void *ctx, struct qpt_sysring *sr)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.areas[i].sr == sr) {
			free(sim.areas[i].mem);
			sim.areas[i].mem = NULL;
		}
	qpt_sysring_unmap(sr);
}

static const struct rec_pmu_sys real_sys = {
    .open = real_open,
    .ioctl = real_ioctl,
    .map = real_map,
    .unmap = real_unmap,
};

int main(int argc, char **argv)
{
	static const char *events[] = {"intel_pt//u"};
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	char err[256] = "";
	int c, ret, ret2;

	qpt_recorder_opts_init(&o);
	while ((c = getopt(argc, argv, "+S:p:")) != -1) {
		if (c == 'S')
			o.snapshot_size = strtoull(optarg, NULL, 0);
		else if (c == 'p')
			o.pid = atoi(optarg);
		else
			return 2;
	}
	if (o.pid ? argc - optind != 3
		  : argc - optind < 5 || strcmp(argv[optind + 3], "--"))
		return 2;
	o.output = argv[optind];
	o.sysfs_root = argv[optind + 1];
	o.snapshot_on = argv[optind + 2];
	o.argv = o.pid ? NULL : argv + optind + 4;
	o.events = events;
	o.nr_events = 1;
	o.snapshot = true;
	o.data_pages = 16;
	o.aux_pages = 16;
	o.errbuf = err;
	o.errlen = sizeof(err);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rec_pmu_new(&o, &real_sys, &rec);
	if (ret < 0) {
		fprintf(stderr, "rec_uprobe: %s (%s)\n", err,
			qpt_strerror(ret));
		return ret == -EACCES || ret == -EPERM || ret == -QPT_E_NOPMU
			   ? 77
			   : 1;
	}
	/* the history before the command runs: the area wraps */
	produce(3 * 16 * (uint32_t)sysconf(_SC_PAGESIZE) / UNIT);
	ret = qpt_recorder_start(rec);
	printf("started\n");
	while (!ret && (ret = qpt_recorder_poll(rec, 100)) == 0)
		produce(CHUNK_UNITS);
	sim.stopping = true;
	ret2 = qpt_recorder_stop(rec);
	printf("status %d\n", qpt_recorder_status(rec));
	qpt_recorder_free(rec);
	if (ret < 0 || ret2 < 0) {
		fprintf(stderr, "rec_uprobe: %s (%s)\n", err,
			qpt_strerror(ret < 0 ? ret : ret2));
		return 1;
	}
	return 0;
}
