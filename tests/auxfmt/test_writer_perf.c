// SPDX-License-Identifier: MIT
/*
 * perf as the oracle of what the writer writes: a synthetic recording
 * (task-clock samples of known ip/tid, a COMM, FINISHED_ROUNDs, host
 * features, a build-id) written in file and pipe mode, compressed and not,
 * and interrupted after a flush, must read back through `perf script` as
 * exactly the samples written, through `perf report -D` with the same
 * record counts, and with -z show zstd in `perf report --header-only`.
 * Skips (77) without perf.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "qpt/writer.h"

#define NR_SAMPLES 3000

static char dir[64];

struct sample_rec {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t period;
};

struct comm_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[16];
	uint32_t s_pid, s_tid; /* sample_id_all: TID and TIME */
	uint64_t s_time;
};

static uint64_t sample_ip(unsigned i)
{
	return 0x400000 + ((uint64_t)i * 2654435761u % 0x100000);
}

static void make_sample(struct sample_rec *s, unsigned i)
{
	memset(s, 0, sizeof(*s));
	s->header.type = PERF_RECORD_SAMPLE;
	s->header.misc = PERF_RECORD_MISC_USER;
	s->header.size = sizeof(*s);
	s->ip = sample_ip(i);
	s->pid = 100;
	s->tid = 101 + i % 3;
	s->time = 1000000000ULL + 1000ULL * i;
	s->period = 250000;
}

enum how {
	WHOLE,	   /* closed */
	CUT,	   /* flushed halfway, freed with the rest in the buffer */
	CUT_LATER, /* flushed halfway, freed after more reached the disk */
	FLUSHES,   /* flushed twice on the way, closed */
	CUT_EARLY, /* flushed before the samples, freed after more reached
		    * the disk (over the features of that flush) */
};

static void write_recording(const char *path, bool pipe, int level,
			    enum how how)
{
	static const uint8_t bid[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	char *argv[] = {"record", "-e", "task-clock"};
	struct qpt_host_info host = {0};
	struct perf_event_header round = {QPT_RECORD_FINISHED_ROUND, 0, 8};
	struct perf_event_attr attr;
	struct qpt_writer_opts o;
	struct qpt_writer *w;
	struct sample_rec s;
	struct comm_rec c;
	uint64_t id = 42;
	unsigned i;

	qpt_writer_opts_init(&o);
	o.pipe = pipe;
	o.compress = level;
	assert_int_equal(qpt_writer_open(path, &o, &w), 0);
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 250000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_PERIOD;
	attr.sample_id_all = 1;
	attr.comm = 1;
	assert_int_equal(qpt_writer_add_attr(w, &attr, &id, 1, "task-clock"),
			 0);
	host.size = sizeof(host);
	host.hostname = "synth-host";
	host.osrelease = "6.1.0-synth";
	host.arch = "x86_64";
	host.cpudesc = "Synthetic CPU @ 1.00GHz";
	host.cpuid = "GenuineIntel,6,85,4";
	host.nr_cpus_avail = 4;
	host.nr_cpus_online = 2;
	host.total_mem_kb = 1048576;
	host.exe = "/usr/bin/qpt";
	host.argc = 3;
	host.argv = argv;
	assert_int_equal(qpt_writer_set_host_info(w, &host), 0);
	assert_int_equal(qpt_writer_add_build_id(w, -1, bid, 20, "/bin/synth",
						 PERF_RECORD_MISC_USER),
			 0);

	for (i = 0; i < 3; i++) {
		memset(&c, 0, sizeof(c));
		c.header.type = PERF_RECORD_COMM;
		c.header.size = sizeof(c);
		c.pid = 100;
		c.tid = 101 + i;
		snprintf(c.comm, sizeof(c.comm), "synth%u", i);
		c.s_pid = 100;
		c.s_tid = 101 + i;
		c.s_time = 999999000ULL + i;
		assert_int_equal(qpt_writer_write(w, &c), 0);
	}
	if (how == CUT_EARLY)
		assert_int_equal(qpt_writer_flush(w), 0);
	for (i = 0; i < NR_SAMPLES; i++) {
		make_sample(&s, i);
		assert_int_equal(qpt_writer_write(w, &s), 0);
		if (i % 1000 == 999)
			assert_int_equal(qpt_writer_write(w, &round), 0);
		if (how != WHOLE && how != CUT_EARLY && i == NR_SAMPLES / 2 - 1)
			assert_int_equal(qpt_writer_flush(w), 0);
		if (how == FLUSHES && i == NR_SAMPLES - 2)
			assert_int_equal(qpt_writer_flush(w), 0);
	}
	if (how == CUT || how == CUT_LATER || how == CUT_EARLY) {
		/* more that is never flushed (CUT_LATER: more than the
		 * writer buffers, 256 KiB) */
		for (i = 0; i < (how == CUT ? 100u : 100000u); i++) {
			make_sample(&s, NR_SAMPLES + i);
			assert_int_equal(qpt_writer_write(w, &s), 0);
		}
		if (how != CUT)
			assert_true(qpt_writer_bytes(w) > 300 * 1024);
		qpt_writer_free(w);
		return;
	}
	assert_int_equal(qpt_writer_close(w), 0);
	qpt_writer_free(w);
}

/* Run @cmd; its output, NUL-terminated (caller frees). */
static char *run(const char *cmd)
{
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	FILE *p;
	size_t n;

	assert_non_null(out);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
	}
	out[len] = '\0';
	pclose(p);
	return out;
}

/* perf script -F tid,ip must list exactly samples [0, nr) in order. */
static void check_script(const char *path, unsigned nr)
{
	char cmd[256], *out, *line, *save = NULL;
	unsigned i = 0;

	snprintf(cmd, sizeof(cmd), "perf script -i %s -F tid,ip 2>/dev/null",
		 path);
	out = run(cmd);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), i++) {
		unsigned tid;
		uint64_t ip;

		assert_int_equal(sscanf(line, "%u %" SCNx64, &tid, &ip), 2);
		assert_true(i < nr);
		assert_int_equal(tid, 101 + i % 3);
		assert_int_equal(ip, sample_ip(i));
	}
	assert_int_equal(i, nr);
	free(out);
}

/* The count perf report -D gives for "@name events:". */
static long stat_count(const char *out, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s events:", name);
	p = strstr(strstr(out, "Aggregated stats:"), key);
	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

static void check_report(const char *path, bool pipe, bool z, unsigned nr,
			 int gaps)
{
	char cmd[256], *out;

	snprintf(cmd, sizeof(cmd), "perf report -D -i %s 2>&1", path);
	out = run(cmd);
	assert_non_null(strstr(out, "Aggregated stats:"));
	assert_int_equal(stat_count(out, "SAMPLE"), nr);
	assert_int_equal(stat_count(out, "COMM"), 3);
	assert_int_equal(stat_count(out, "FINISHED_ROUND"), nr / 1000);
	assert_int_equal(stat_count(out, "ATTR"), pipe ? 1 : 0);
	assert_int_equal(stat_count(out, "EVENT_TYPE"), gaps);
	assert_true(z ? stat_count(out, "COMPRESSED") > 0
		      : stat_count(out, "COMPRESSED") == 0);
	free(out);

	snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s 2>&1",
		 path);
	out = run(cmd);
	assert_non_null(strstr(out, "# event : name = task-clock"));
	assert_non_null(strstr(out, "# cmdline : "));
	assert_non_null(strstr(out, " record -e task-clock"));
	assert_non_null(strstr(out, "# nrcpus avail : 4"));
	assert_non_null(strstr(out, "# nrcpus online : 2"));
	assert_non_null(strstr(out, "# total memory : 1048576 kB"));
	assert_non_null(strstr(out, "# hostname : synth-host"));
	assert_non_null(strstr(out, "# os release : 6.1.0-synth"));
	assert_non_null(strstr(out, "# arch : x86_64"));
	assert_non_null(strstr(out, "# cpudesc : Synthetic CPU @ 1.00GHz"));
	assert_non_null(strstr(out, "# cpuid : GenuineIntel,6,85,4"));
	assert_non_null(
	    strstr(out, "# cmdline : /usr/bin/qpt record -e task-clock"));
	assert_int_equal(strstr(out, "# compressed : Zstd") != NULL, z);
	free(out);
	if (!pipe) {
		snprintf(cmd, sizeof(cmd),
			 "perf buildid-list -i %s 2>/dev/null", path);
		out = run(cmd);
		assert_non_null(
		    strstr(out, "0102030405060708090a00000000000000000000 "
				"/bin/synth"));
		free(out);
	}
}

static void one(const char *name, bool pipe, int level)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_recording(path, pipe, level, WHOLE);
	check_script(path, NR_SAMPLES);
	check_report(path, pipe, level > 0, NR_SAMPLES, 0);
	if (!getenv("QPT_KEEP")) /* keep the files to look at */
		unlink(path);
}

static void test_file(void **state)
{
	one("file.data", false, 0);
}

static void test_file_z(void **state)
{
	one("file-z.data", false, 1);
}

static void test_pipe(void **state)
{
	one("pipe.data", true, 0);
}

static void test_pipe_z(void **state)
{
	one("pipe-z.data", true, 5);
}

/* The file after a flush and more writes, without close. */
static void cut(const char *name, int level, enum how how)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_recording(path, false, level, how);
	/* what the flush covered, features and all */
	check_script(path, NR_SAMPLES / 2);
	check_report(path, false, level > 0, NR_SAMPLES / 2, 0);
	if (!getenv("QPT_KEEP")) /* keep the files to look at */
		unlink(path);
}

static void test_cut(void **state)
{
	cut("cut.data", 0, CUT);
}

static void test_cut_z(void **state)
{
	cut("cut-z.data", 1, CUT);
}

static void test_cut_later(void **state)
{
	cut("cut-later.data", 0, CUT_LATER);
}

static void test_cut_later_z(void **state)
{
	cut("cut-later-z.data", 1, CUT_LATER);
}

/* A flush with little data: the data after it reaches the disk over its
 * features, which the header let go of first; perf reads what it covers. */
static void test_cut_early(void **state)
{
	char path[128], cmd[256], *out;

	snprintf(path, sizeof(path), "%s/cut-early.data", dir);
	write_recording(path, false, 0, CUT_EARLY);
	check_script(path, 0);
	snprintf(cmd, sizeof(cmd), "perf report -D -i %s 2>&1", path);
	out = run(cmd);
	assert_int_equal(stat_count(out, "COMM"), 3);
	assert_int_equal(stat_count(out, "SAMPLE"), 0);
	free(out);
	if (!getenv("QPT_KEEP"))
		unlink(path);
}

/* Flushes on the way leave gaps perf reads through (EVENT_TYPE). */
static void test_flushes(void **state)
{
	char path[128];
	int level;

	for (level = 0; level < 2; level++) {
		snprintf(path, sizeof(path), "%s/flushes-%d.data", dir, level);
		write_recording(path, false, level, FLUSHES);
		check_script(path, NR_SAMPLES);
		check_report(path, false, level > 0, NR_SAMPLES, 2);
		if (!getenv("QPT_KEEP"))
			unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file),
	    cmocka_unit_test(test_file_z),
	    cmocka_unit_test(test_pipe),
	    cmocka_unit_test(test_pipe_z),
	    cmocka_unit_test(test_cut),
	    cmocka_unit_test(test_cut_z),
	    cmocka_unit_test(test_cut_later),
	    cmocka_unit_test(test_cut_later_z),
	    cmocka_unit_test(test_cut_early),
	    cmocka_unit_test(test_flushes),
	};
	int ret;

	if (system("perf version >/dev/null 2>&1")) {
		fprintf(stderr, "perf not found: skipped\n");
		return 77;
	}
	snprintf(dir, sizeof(dir), "/tmp/qpt-wperf-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	if (!getenv("QPT_KEEP"))
		rmdir(dir);
	return ret;
}
