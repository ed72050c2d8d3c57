// SPDX-License-Identifier: MIT
/*
 * A producer faster than its consumer, on the simulated kernel: qpt's
 * recorder (the PMU source over sim_sys.h's simulated kernel, -C 0,1: two
 * rings) drains while a thread writes Intel PT units (sim_unit.h) into
 * every AUX area as fast as it can, in transactions of random sizes (a
 * fixed seed), some flagged COLLISION or PARTIAL by the "hardware", with
 * a context-switch record after each; the AUX and switch records overrun
 * the small data ring.  The recorder polls every -w milliseconds (the
 * slower consumer); in snapshot mode (-S) it takes a snapshot every fifth
 * poll, of -s bytes when given.  After -t seconds the producer stops and
 * one more record per ring carries the losses not yet told (the kernel
 * tells them with the next record that fits); the command (cat, its stdin
 * closed then) ends.
 *
 * Usage: sim_load [-S] [-s BYTES] [-t SECONDS] [-w MS] OUT SYSFS -- CMD
 *
 * Prints the truth, summed over the rings:
 *   made W records R    bytes the simulated PMU wrote into the AUX areas
 *       (what their heads advanced by), records it made (AUX, switch)
 *   dropped D pending P truncated T    records it dropped for want of
 *       room, of them not yet told by a LOST record; transactions it
 *       truncated (a full area)
 *   flagged C Q         records it made with COLLISION, PARTIAL
 *   offered O lost L    bytes given to it, of them lost (area full or the
 *       event disabled: never written)
 * then qpt's figures (qpt_recorder_stats) as "qpt NAME VALUE" lines, every
 * ten seconds "sample SECONDS RSS_KB FDS" (this process: /proc), and qpt
 * record's summary (cli/record_summary.c) on stderr.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/record_summary.h"
#include "sim_sys.h"
#include "sim_unit.h"

#define MAX_UNITS 64 /* per transaction */
#define SNAPSHOT_EVERY 5

static atomic_bool stop;
static uint64_t switches, flagged_c, flagged_q; /* the producer's */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One transaction into @sk of random size and flags, and a switch. */
static void transaction(struct qpt_simkern *sk, uint8_t *buf, uint64_t *n,
			unsigned int *seed)
{
	unsigned int k = 1 + (unsigned)rand_r(seed) % MAX_UNITS, i;
	unsigned int r = (unsigned)rand_r(seed) % 16;
	uint64_t flags = r == 0	  ? PERF_AUX_FLAG_COLLISION
			 : r == 1 ? PERF_AUX_FLAG_PARTIAL
				  : 0;

	for (i = 0; i < k; i++)
		sim_unit_fill(buf + i * SIM_UNIT, (*n)++);
	qpt_simkern_set_time(sk, now_ns());
	if (qpt_simkern_aux_write(sk, buf, k * SIM_UNIT, flags) > 0) {
		flagged_c += r == 0;
		flagged_q += r == 1;
	}
	qpt_simkern_output_body(sk, PERF_RECORD_SWITCH, 0, NULL, 0);
	switches++;
}

static void *producer(void *arg)
{
	static uint8_t buf[MAX_UNITS * SIM_UNIT];
	unsigned int seed = 20;
	uint64_t n = 0;
	size_t j;

	(void)arg;
	while (!atomic_load(&stop))
		for (j = 0; j < sim.nr; j++)
			if (sim.fds[j].sk)
				transaction(sim.fds[j].sk, buf, &n, &seed);
	return NULL;
}

static void warn(const char *fmt, ...)
{
	va_list ap;

	fputs("qpt: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "sample SECONDS RSS_KB FDS" of this process. */
static void sample(uint64_t secs)
{
	uint8_t set[1024 / 8];
	char line[256];
	long rss = -1;
	int fds = 0, i;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			rss = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	sim_open_fds(set);
	for (i = 0; i < 1024; i++)
		fds += set[i / 8] >> i % 8 & 1;
	printf("sample %" PRIu64 " %ld %d\n", secs, rss, fds);
}

/* Poll every @wait_ms for @secs seconds (a snapshot every fifth poll in
 * snapshot mode), the producer running. */
static int run(struct qpt_recorder *rec, bool snapshot, unsigned secs,
	       unsigned wait_ms)
{
	struct timespec nap = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
	uint64_t t0 = now_ns(), next = 0, el;
	unsigned long polls = 0;
	int64_t n;
	int ret;

	while ((el = (now_ns() - t0) / 1000000000ull) < secs) {
		if (el >= next) {
			sample(el);
			next = el + 10;
		}
		ret = qpt_recorder_poll(rec, 100);
		if (ret)
			return ret < 0 ? ret : -QPT_E_STATE; /* ended early */
		if (snapshot && ++polls % SNAPSHOT_EVERY == 0) {
			n = qpt_recorder_snapshot(rec);
			if (n < 0)
				return (int)n;
		}
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* The producer stopped: every ring's losses told by one more record, the
 * command's stdin closed, polls until it ends. */
static int finish(struct qpt_recorder *rec, int stdin_w)
{
	size_t j;
	int ret;

	ret = qpt_recorder_poll(rec, 0); /* room in every data ring */
	for (j = 0; !ret && j < sim.nr; j++)
		if (sim.fds[j].sk) {
			qpt_simkern_output_body(sim.fds[j].sk,
						PERF_RECORD_SWITCH, 0, NULL, 0);
			switches++;
		}
	close(stdin_w);
	while (!ret)
		ret = qpt_recorder_poll(rec, 100);
	return ret < 0 ? ret : 0;
}

static void print_truth(void)
{
	struct qpt_simkern_stats t, s;
	size_t j;

	memset(&t, 0, sizeof(t));
	for (j = 0; j < sim.nr; j++) {
		if (!sim.fds[j].sk)
			continue;
		qpt_simkern_stats(sim.fds[j].sk, &s);
		t.aux_written += s.aux_written;
		t.aux_offered += s.aux_offered;
		t.aux_lost += s.aux_lost;
		t.aux_records += s.aux_records;
		t.aux_truncated += s.aux_truncated;
		t.records_lost += s.records_lost;
		t.records_lost_pending += s.records_lost_pending;
	}
	printf("made %" PRIu64 " records %" PRIu64 "\n", t.aux_written,
	       t.aux_records + switches);
	printf("dropped %" PRIu64 " pending %" PRIu64 " truncated %" PRIu64
	       "\n",
	       t.records_lost, t.records_lost_pending, t.aux_truncated);
	printf("flagged %" PRIu64 " %" PRIu64 "\n", flagged_c, flagged_q);
	printf("offered %" PRIu64 " lost %" PRIu64 "\n", t.aux_offered,
	       t.aux_lost);
}

static void print_qpt(const struct qpt_capture_stats *st)
{
	static const char *const names[] = {
	    "records",	       "data_bytes",
	    "aux_bytes",       "aux_buffers",
	    "aux_records",     "aux_record_bytes",
	    "aux_truncated",   "aux_partial",
	    "aux_collision",   "aux_overwrite",
	    "itrace_start",    "lost_events",
	    "lost_records",    "lost_samples",
	    "snapshots",       "snapshot_wrapped",
	    "aux_overwritten", "insns",
	    "threads",	       "lost_traps",
	    "trace_gaps",      "stops",
	    "loops",	       "loop_trips",
	    "aux_skipped"};
	const uint64_t *v = (const uint64_t *)st;
	size_t i;

	_Static_assert(sizeof(names) / sizeof(names[0]) * 8 == sizeof(*st),
		       "a name for every field of the stats");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("qpt %s %" PRIu64 "\n", names[i], v[i]);
}

static int record(struct qpt_recorder_opts *o, unsigned secs, unsigned wait_ms,
		  int stdin_w)
{
	struct qpt_capture_stats st;
	struct qpt_recorder *rec;
	pthread_t thr;
	int ret, err;

	sim.always_ready = true; /* the consumer paces itself */
	ret = rec_pmu_new(o, &sim_sys, &rec);
	if (ret < 0)
		return ret;
	sim.pid = qpt_recorder_pid(rec);
	ret = qpt_recorder_start(rec);
	if (!ret && pthread_create(&thr, NULL, producer, NULL))
		ret = -QPT_E_STATE;
	else if (!ret) {
		ret = run(rec, o->snapshot, secs, wait_ms);
		atomic_store(&stop, true);
		pthread_join(thr, NULL);
		if (!ret)
			ret = finish(rec, stdin_w);
	}
	err = qpt_recorder_stop(rec);
	if (!ret)
		ret = err;
	print_truth();
	qpt_recorder_stats(rec, &st);
	print_qpt(&st);
	record_summary(stderr, &st, qpt_recorder_output_bytes(rec), o->output,
		       "", warn);
	qpt_recorder_free(rec);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *events[] = {"intel_pt//u"};
	unsigned secs = 3, wait_ms = 10;
	struct qpt_recorder_opts o;
	char err[256] = "";
	int c, ret, p[2];

	qpt_recorder_opts_init(&o);
	while ((c = getopt(argc, argv, "+Ss:t:w:")) != -1) {
		if (c == 'S')
			o.snapshot = true;
		else if (c == 's')
			o.snapshot_size = strtoull(optarg, NULL, 0);
		else if (c == 't')
			secs = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'w')
			wait_ms = (unsigned)strtoul(optarg, NULL, 0);
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
	o.cpu_list = "0,1";
	o.data_pages = 2;
	o.aux_pages = 8;
	o.errbuf = err;
	o.errlen = sizeof(err);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the command's stdin: a pipe closed once the producer stopped */
	if (pipe2(p, O_CLOEXEC) < 0 || dup2(p[0], 0) < 0)
		return 1;
	close(p[0]);
	ret = record(&o, secs, wait_ms, p[1]);
	sim_close();
	if (ret < 0) {
		fprintf(stderr, "qpt: %s\n", err[0] ? err : qpt_strerror(ret));
		return 1;
	}
	return 0;
}
