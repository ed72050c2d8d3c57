// SPDX-License-Identifier: MIT
/*
 * The PMU source's crash path on the simulated kernel: qpt's recorder
 * (snapshot mode, intel_pt from a fake sysfs, -C 0) runs a real command
 * under its ptrace watch, while its kernel calls (rec_pmu_sys) are
 * answered by the simulated kernel (capture/simkern.c) behind eventfds.
 * The simulated Intel PT writes 32-byte units, each a PSB+ whose TSC
 * packet holds the unit's number: before the command starts (the area
 * wraps), one chunk after each poll, and one just after a snapshot taken
 * while the recording runs (the trace made after a crash's snapshot).
 *
 * Prints the ground truth for the shell test (sim_crash.sh):
 *   pid PID
 *   snapshot WHEN END HELD   one line per snapshot (each disable of the
 *       AUX event): WHEN "running" (a crash's) or "stopping" (the last),
 *       END the number of units written before it, HELD the command's
 *       threads in a ptrace stop then ("-": none)
 *   cont SENT                with -c: 1 once SIGCONT was sent to the
 *       command after it was seen stopped at two polls in a row
 *   status STATUS            the command's wait status
 * With -u SYMBOL (--snapshot-on; the fake sysfs's uprobe PMU has type 7):
 *   uprobe PATH OFFSET       the uprobe as opened (config1, config2)
 *   hit END IP               a sample of the uprobe written into the ring
 *       (one after each of the first polls, two after the second), END
 *       the number of units written before it; the command's stdin is a
 *       pipe closed once the hits are in (it may wait for its end)
 *
 * Usage: sim_crash [-S SIZE] [-s MASK] [-c] [-u SYMBOL] OUT SYSFS -- CMD ARGS
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "capture/recorder.h"
#include "capture/simkern.h"
#include "sim_unit.h"

#define UNIT SIM_UNIT
#define CHUNK_UNITS 16
#define MAX_FDS 64
#define UPROBE_TYPE 7
#define HITS 4

struct sim_fd {
	int fd;
	uint64_t id, sample_type;
	struct qpt_simkern *sk; /* the ring's owner */
	struct qpt_ring_ops ops, sk_ops;
	void *sk_ctx;
};

static struct sim {
	struct sim_fd fds[MAX_FDS];
	size_t nr;
	uint64_t next_id;
	uint64_t units;	    /* written so far */
	uint64_t uprobe_id; /* 0: none */
	unsigned hits;
	int stdin_w; /* the command's stdin, -1 once closed */
	pid_t pid;
	bool stopping, after_crash;
} sim = {.next_id = 100, .stdin_w = -1};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct sim_fd *find_fd(int fd)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.fds[i].fd == fd)
			return &sim.fds[i];
	return NULL;
}

/* @n units into every simulated AUX area (sim_unit.h). */
static void produce(unsigned int n)
{
	uint8_t buf[CHUNK_UNITS * 8 * UNIT];
	unsigned int i, k;
	size_t j;

	while (n) {
		k = n < sizeof(buf) / UNIT ? n : sizeof(buf) / UNIT;
		for (i = 0; i < k; i++)
			sim_unit_fill(buf + i * UNIT, sim.units++);
		for (j = 0; j < sim.nr; j++) {
			if (!sim.fds[j].sk)
				continue;
			qpt_simkern_set_time(sim.fds[j].sk, now_ns());
			qpt_simkern_aux_write(sim.fds[j].sk, buf, k * UNIT, 0);
		}
		n -= k;
	}
}

/* The command's threads in a stop (state t or T), as "tid,tid" or "-". */
static void held_threads(char *out, size_t len)
{
	char path[320], line[512], *p, state;
	struct dirent *de;
	size_t used = 0;
	FILE *f;
	DIR *d;

	snprintf(out, len, "-");
	snprintf(path, sizeof(path), "/proc/%d/task", (int)sim.pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat",
			 (int)sim.pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		state = p && p[1] ? p[2] : '?';
		if ((state == 't' || state == 'T') && used + 16 < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 used ? "," : "", de->d_name);
	}
	if (d)
		closedir(d);
}

static int ring_disable(void *ctx)
{
	struct sim_fd *s = ctx;
	char held[256];

	held_threads(held, sizeof(held));
	printf("snapshot %s %llu %s\n", sim.stopping ? "stopping" : "running",
	       (unsigned long long)sim.units, held);
	sim.after_crash = !sim.stopping;
	return s->sk_ops.disable(s->sk_ctx);
}

static int ring_enable(void *ctx)
{
	struct sim_fd *s = ctx;
	int err = s->sk_ops.enable(s->sk_ctx);

	if (sim.after_crash) { /* made after the crash's snapshot */
		sim.after_crash = false;
		produce(CHUNK_UNITS);
	}
	return err;
}

static int sim_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu)
{
	struct sim_fd *s;

	if (sim.nr == MAX_FDS)
		return -EMFILE;
	s = &sim.fds[sim.nr];
	s->fd = eventfd(0, EFD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	s->id = sim.next_id++;
	s->sample_type = attr->sample_type;
	if (attr->type == UPROBE_TYPE) {
		sim.uprobe_id = s->id;
		printf("uprobe %s %llu\n",
		       (const char *)(uintptr_t)attr->config1,
		       (unsigned long long)attr->config2);
	}
	sim.nr++;
	return s->fd;
}

static int sim_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct sim_fd *s = find_fd(fd);

	if (!s)
		return -EBADF;
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)arg = s->id;
	else if (s->sk && (req == PERF_EVENT_IOC_ENABLE ||
			   req == PERF_EVENT_IOC_DISABLE))
		qpt_simkern_enable(s->sk, req == PERF_EVENT_IOC_ENABLE);
	return 0;
}

static int sim_map(void *ctx, struct qpt_sysring *sr, int fd,
		   uint64_t data_pages, uint64_t aux_pages, bool aux_overwrite,
		   uint64_t (*reference)(void *ctx))
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct sim_fd *s = find_fd(fd);
	struct qpt_simkern_opts so;
	int err;

	if (!s)
		return -EBADF;
	qpt_simkern_opts_init(&so);
	so.data_size = data_pages * page;
	so.aux_size = aux_pages * page;
	so.aux_overwrite = aux_overwrite;
	so.sample_id_all = true;
	so.sample_type = s->sample_type;
	so.id = s->id;
	so.pid = so.tid = (uint32_t)sim.pid;
	err = qpt_simkern_new(&so, &s->sk);
	if (err < 0)
		return err;
	memset(sr, 0, sizeof(*sr));
	sr->fd = fd;
	qpt_simkern_ring(s->sk, &sr->ring);
	s->sk_ops = *sr->ring.ops;
	s->sk_ctx = sr->ring.ops_ctx;
	s->ops = s->sk_ops;
	s->ops.disable = ring_disable;
	s->ops.enable = ring_enable;
	s->ops.reference = NULL;
	sr->ring.ops = &s->ops;
	sr->ring.ops_ctx = s;
	return 0;
}

static void sim_unmap(void *ctx, struct qpt_sysring *sr)
{
	struct sim_fd *s = find_fd(sr->fd);

	if (s) {
		qpt_simkern_free(s->sk);
		s->sk = NULL;
	}
}

static const struct rec_pmu_sys sim_sys = {
    .open = sim_open,
    .ioctl = sim_ioctl,
    .map = sim_map,
    .unmap = sim_unmap,
};

/* A sample of the uprobe (IDENTIFIER, IP, TID, TIME, CPU) into every ring,
 * as the kernel writes it at a hit. */
static void uprobe_hit(void)
{
	struct {
		struct perf_event_header h;
		uint64_t id, ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
	} r = {
	    .h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r)},
	    .id = sim.uprobe_id,
	    .ip = 0x1000 + sim.hits,
	    .pid = (uint32_t)sim.pid,
	    .tid = (uint32_t)sim.pid,
	    .time = now_ns(),
	};
	size_t j;

	for (j = 0; j < sim.nr; j++)
		if (sim.fds[j].sk)
			qpt_simkern_output(sim.fds[j].sk, &r.h);
	printf("hit %llu %llx\n", (unsigned long long)sim.units,
	       (unsigned long long)r.ip);
	sim.hits++;
}

/* After poll @n: the uprobe's hits, the command's stdin closed after. */
static void uprobe_poll(unsigned n)
{
	if (!sim.uprobe_id)
		return;
	if (sim.hits >= HITS) {
		if (sim.stdin_w >= 0)
			close(sim.stdin_w);
		sim.stdin_w = -1;
		return;
	}
	uprobe_hit();
	if (n == 2) /* two in one drain: a snapshot each */
		uprobe_hit();
}

/* Polls until the command ends; with @cont, SIGCONT once it was seen
 * stopped after two polls in a row.  Returns the poll's error or 0. */
static int run(struct qpt_recorder *rec, bool cont)
{
	int ret, seen = 0, sent = 0;
	unsigned polls = 0;
	char held[256];

	while ((ret = qpt_recorder_poll(rec, 100)) == 0) {
		produce(CHUNK_UNITS);
		uprobe_poll(++polls);
		if (!cont || sent)
			continue;
		held_threads(held, sizeof(held));
		seen = strcmp(held, "-") ? seen + 1 : 0;
		if (seen == 2) {
			kill(sim.pid, SIGCONT);
			sent = 1;
		}
	}
	if (cont)
		printf("cont %d\n", sent);
	return ret < 0 ? ret : 0;
}

/* The command's stdin: a pipe whose write end is kept here. */
static int stdin_pipe(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0 || dup2(p[0], 0) < 0)
		return -1;
	close(p[0]);
	sim.stdin_w = p[1];
	return 0;
}

int main(int argc, char **argv)
{
	static const char *events[] = {"intel_pt//u"};
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	char err[256] = "";
	bool cont = false;
	int c, ret;

	qpt_recorder_opts_init(&o);
	while ((c = getopt(argc, argv, "+S:s:cu:")) != -1) {
		if (c == 'S')
			o.snapshot_size = strtoull(optarg, NULL, 0);
		else if (c == 's')
			o.crash_signals = strtoull(optarg, NULL, 0);
		else if (c == 'c')
			cont = true;
		else if (c == 'u')
			o.snapshot_on = optarg;
		else
			return 2;
	}
	if (argc - optind < 4 || strcmp(argv[optind + 2], "--"))
		return 2;
	o.output = argv[optind];
	o.sysfs_root = argv[optind + 1];
	o.argv = argv + optind + 3;
	o.events = events;
	o.nr_events = 1;
	o.cpu_list = "0";
	o.snapshot = true;
	o.data_pages = 16;
	o.aux_pages = 16;
	o.errbuf = err;
	o.errlen = sizeof(err);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.snapshot_on && stdin_pipe() < 0)
		return 1;
	ret = rec_pmu_new(&o, &sim_sys, &rec);
	if (ret < 0) {
		fprintf(stderr, "sim_crash: %s (%s)\n", err, qpt_strerror(ret));
		return 1;
	}
	sim.pid = qpt_recorder_pid(rec);
	printf("pid %d\n", (int)sim.pid);
	/* the history before the command runs: the area wraps */
	produce(3 * 16 * (uint32_t)sysconf(_SC_PAGESIZE) / UNIT);
	ret = qpt_recorder_start(rec);
	if (!ret)
		ret = run(rec, cont);
	sim.stopping = true;
	c = qpt_recorder_stop(rec);
	printf("status %d\n", qpt_recorder_status(rec));
	qpt_recorder_free(rec);
	if (ret < 0 || c < 0) {
		fprintf(stderr, "sim_crash: %s (%s)\n", err,
			qpt_strerror(ret < 0 ? ret : c));
		return 1;
	}
	return 0;
}
