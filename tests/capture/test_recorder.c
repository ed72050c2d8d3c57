// SPDX-License-Identifier: MIT
/*
 * The qpt_recorder_* contract on the real kernel with a software event:
 * argument and state errors, the held command, its exit status, the
 * counters, and the file read back by the auxfmt reader (record counts
 * against the recorder's own stats and the command's pid).  Skips (77)
 * where the kernel does not let us open task-clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <cmocka.h>

#include "qpt/capture.h"
#include "qpt/reader.h"

static char out[256];
static int have_task_clock; /* else the PMU source's tests skip */

static void opts_for(struct qpt_recorder_opts *o, char **argv,
		     const char **events, char *err, size_t errlen)
{
	qpt_recorder_opts_init(o);
	o->output = out;
	o->events = events;
	o->nr_events = 1;
	o->argv = argv;
	o->errbuf = err;
	o->errlen = errlen;
}

static void test_bad_args(void **state)
{
	static const char *events[] = {"task-clock:u"};
	static const char *bad_events[] = {"no-such-event"};
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec = (void *)1;
	char *argv[] = {"true", NULL};
	char err[256];

	/* fd 0 open: a recorder that fails must not close it (a PMU
	 * source's fds are -1 until it opens them) */
	if (fcntl(0, F_GETFD) < 0)
		assert_int_equal(open("/dev/null", O_RDONLY), 0);
	assert_int_equal(qpt_recorder_new(NULL, &rec), -QPT_E_INVAL);
	assert_null(rec);
	assert_int_equal(qpt_recorder_new(NULL, NULL), -QPT_E_INVAL);
	opts_for(&o, argv, events, err, sizeof(err));
	o.size = 8;
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	/* No target. */
	opts_for(&o, NULL, events, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "nothing to record"));
	/* An event that does not parse; -S without an AUX event. */
	opts_for(&o, argv, bad_events, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "no-such-event"));
	opts_for(&o, argv, events, err, sizeof(err));
	o.snapshot = true;
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	/* Buffer sizes must be powers of two. */
	opts_for(&o, argv, events, err, sizeof(err));
	o.data_pages = 3;
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "powers of two"));
	assert_true(fcntl(0, F_GETFD) >= 0);
	qpt_recorder_free(NULL);
}

/*
 * The options' defaults go into the caller's size only (an older caller's
 * smaller struct keeps the bytes after it; a newer one's unknown tail is
 * zeroed), and a struct smaller than the library's is refused, not read
 * past.  The oracle: guard bytes around the caller's struct.
 */
static void emulate_opts(struct qpt_recorder_opts *o, char **argv,
			 const char **events, char *err, size_t errlen);

static void test_opts_sized(void **state)
{
	size_t old = offsetof(struct qpt_recorder_opts, argv);
	union {
		struct qpt_recorder_opts o;
		unsigned char b[sizeof(struct qpt_recorder_opts) + 8];
	} u;
	union {
		struct qpt_event_opts o;
		unsigned char b[sizeof(struct qpt_event_opts) + 8];
	} e;
	static const char *task_clock[] = {"task-clock:u"};
	struct qpt_recorder *rec = (void *)1;
	char *argv[] = {"true", NULL};
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	qpt_recorder_opts_init_sized(&u.o, old);
	assert_int_equal(u.o.size, old);
	assert_string_equal(u.o.output, "perf.data");
	for (i = old; i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0xa5);
	assert_int_equal(qpt_recorder_new(&u.o, &rec), -QPT_E_INVAL);
	assert_null(rec);
	memset(&u, 0xa5, sizeof(u));
	qpt_recorder_opts_init_sized(&u.o, sizeof(u));
	assert_int_equal(u.o.size, sizeof(u));
	for (i = sizeof(u.o); i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0);
	/* a newer caller's struct: taken when what it adds is zero,
	 * refused when not */
	emulate_opts(&u.o, argv, NULL, NULL, 0);
	u.o.size = sizeof(u);
	memset(u.b + sizeof(u.o), 0, sizeof(u) - sizeof(u.o));
	assert_int_equal(qpt_recorder_new(&u.o, &rec), 0);
	qpt_recorder_free(rec);
	u.b[sizeof(u) - 1] = 1;
	assert_int_equal(qpt_recorder_new(&u.o, &rec), -QPT_E_INVAL);
	assert_null(rec);
	/* an older one, up to errlen: the rest keeps its defaults (the PMU
	 * source, which needs a software event to open here) */
	if (have_task_clock) {
		opts_for(&u.o, argv, task_clock, NULL, 0);
		u.o.size = offsetof(struct qpt_recorder_opts, errlen) +
			   sizeof(size_t);
		memset(u.b + u.o.size, 0xa5, sizeof(u) - u.o.size);
		assert_int_equal(qpt_recorder_new(&u.o, &rec), 0);
		qpt_recorder_free(rec);
	}
	memset(&e, 0xa5, sizeof(e));
	qpt_event_opts_init_sized(&e.o, offsetof(struct qpt_event_opts, errbuf));
	assert_int_equal(e.o.size, offsetof(struct qpt_event_opts, errbuf));
	for (i = offsetof(struct qpt_event_opts, errbuf); i < sizeof(e); i++)
		assert_int_equal(e.b[i], 0xa5);
}

/* A caller built with the first version of the stats (up to trace_gaps)
 * gets them, and no byte past its struct is written; a smaller one is
 * refused. */
static void check_stats_sized(const struct qpt_recorder *rec,
			      const struct qpt_capture_stats *st)
{
	const size_t v1 = offsetof(struct qpt_capture_stats, trace_gaps) + 8;
	union {
		struct qpt_capture_stats s;
		uint8_t b[sizeof(struct qpt_capture_stats)];
	} u;
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	assert_int_equal(qpt_recorder_stats_sized(rec, &u.s, v1), 0);
	assert_memory_equal(&u.s, st, v1);
	for (i = v1; i < sizeof(u); i++)
		assert_int_equal(u.b[i], 0xa5);
	assert_int_equal(qpt_recorder_stats_sized(rec, &u.s, v1 - 1),
			 -QPT_E_INVAL);
	assert_int_equal(qpt_recorder_stats_sized(rec, NULL, sizeof(u)),
			 -QPT_E_INVAL);
}

static void test_record_command(void **state)
{
	static const char *events[] = {"task-clock:u"};
	char *argv[] = {"sh", "-c",
			"i=0; while [ $i -lt 20000 ]; do "
			"i=$((i+1)); done; exit 7",
			NULL};
	struct qpt_capture_stats st;
	struct qpt_recorder_opts o;
	struct qpt_reader *r;
	struct qpt_record rr;
	struct qpt_recorder *rec;
	uint64_t samples = 0, comm_exec = 0, total = 0;
	char err[256] = "";
	int ret, pid, status;

	if (!have_task_clock)
		skip();
	opts_for(&o, argv, events, err, sizeof(err));
	o.sample_period = 100000;
	ret = qpt_recorder_new(&o, &rec);
	assert_int_equal(ret, 0);
	pid = qpt_recorder_pid(rec);
	assert_true(pid > 0);
	assert_int_equal(qpt_recorder_status(rec), -1);
	/* Not in snapshot mode. */
	assert_int_equal(qpt_recorder_snapshot(rec), -QPT_E_STATE);
	assert_int_equal(qpt_recorder_start(rec), 0);
	assert_false(qpt_recorder_exec_failed(rec));
	assert_int_equal(qpt_recorder_start(rec), -QPT_E_STATE);
	while ((ret = qpt_recorder_poll(rec, 100)) == 0)
		;
	assert_int_equal(ret, 1);
	status = qpt_recorder_status(rec);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	assert_int_equal(qpt_recorder_stop(rec), 0);
	assert_int_equal(qpt_recorder_stop(rec), -QPT_E_STATE);
	assert_int_equal(qpt_recorder_stats(rec, &st), 0);
	check_stats_sized(rec, &st);
	assert_true(qpt_recorder_output_bytes(rec) > 0);
	qpt_recorder_free(rec);

	/* The file, read back: every ring record is there. */
	assert_int_equal(qpt_reader_open(out, NULL, &r), 0);
	while ((ret = qpt_reader_next(r, &rr)) > 0) {
		const uint32_t *w = (const uint32_t *)rr.data + 2;

		if (rr.type < PERF_RECORD_MAX)
			total++;
		if (rr.type == PERF_RECORD_SAMPLE)
			samples++;
		if (rr.type == PERF_RECORD_COMM &&
		    (rr.misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    w[0] == (uint32_t)pid)
			comm_exec++;
	}
	assert_int_equal(ret, 0);
	qpt_reader_free(r);
	assert_int_equal(total, st.records);
	assert_true(samples > 0);
	assert_int_equal(comm_exec, 1);
	assert_int_equal(st.aux_bytes, 0);
	assert_int_equal(st.lost_records, 0);
}

/* A command that cannot be exec'd: start says so, exec_failed is set. */
static void test_exec_fails(void **state)
{
	static const char *events[] = {"task-clock:u"};
	char *argv[] = {"/proc/self/status", NULL}; /* exists, not runnable */
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	char err[256] = "";

	if (!have_task_clock)
		skip();
	opts_for(&o, argv, events, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), 0);
	assert_int_equal(qpt_recorder_start(rec), -EACCES);
	assert_true(qpt_recorder_exec_failed(rec));
	assert_non_null(strstr(err, "/proc/self/status"));
	assert_int_equal(qpt_recorder_stop(rec), 0);
	qpt_recorder_free(rec);
}

/* The emulated source behind the same recorder: its options checked, a
 * command run to its end (exit status, the counters against the file
 * read back), and a recording stopped while the command runs (the stop
 * signal goes on to it). */
static void emulate_opts(struct qpt_recorder_opts *o, char **argv,
			 const char **events, char *err, size_t errlen)
{
	opts_for(o, argv, events, err, errlen);
	o->nr_events = events ? 1 : 0;
	o->source = QPT_SOURCE_EMULATE;
}

static void test_emulate_bad_args(void **state)
{
	static const char *task_clock[] = {"task-clock:u"};
	static const char *kernel[] = {"intel_pt//k"};
	static const char *ptw[] = {"intel_pt/ptw/u"};
	char *argv[] = {"true", NULL};
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	char err[256];

	emulate_opts(&o, argv, NULL, err, sizeof(err));
	o.pid = 1;
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "runs a command"));
	emulate_opts(&o, argv, task_clock, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "intel_pt"));
	emulate_opts(&o, argv, kernel, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	assert_non_null(strstr(err, "user space"));
	emulate_opts(&o, argv, ptw, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
	emulate_opts(&o, argv, NULL, err, sizeof(err));
	o.source = (enum qpt_source)7;
	assert_int_equal(qpt_recorder_new(&o, &rec), -QPT_E_INVAL);
}

static void test_emulate_command(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "exit 7", NULL};
	struct qpt_capture_stats st;
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	struct qpt_reader *r;
	struct qpt_record rr;
	uint64_t aux = 0, total = 0;
	char err[256] = "";
	int ret, status;

	emulate_opts(&o, argv, NULL, err, sizeof(err));
	assert_int_equal(qpt_recorder_new(&o, &rec), 0);
	assert_int_equal(qpt_recorder_poll(rec, 10), -QPT_E_STATE);
	assert_int_equal(qpt_recorder_snapshot(rec), -QPT_E_STATE);
	assert_int_equal(qpt_recorder_start(rec), 0);
	assert_true(qpt_recorder_pid(rec) > 0);
	while ((ret = qpt_recorder_poll(rec, 100)) == 0)
		;
	assert_int_equal(ret, 1);
	status = qpt_recorder_status(rec);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
	assert_int_equal(qpt_recorder_stop(rec), 0);
	qpt_recorder_stats(rec, &st);
	qpt_recorder_free(rec);
	assert_int_equal(st.threads, 1);
	assert_true(st.insns > 1000);
	assert_true(st.aux_bytes > 0);

	assert_int_equal(qpt_reader_open(out, NULL, &r), 0);
	while ((ret = qpt_reader_next(r, &rr)) > 0) {
		if (rr.type < PERF_RECORD_MAX)
			total++;
		if (rr.type == QPT_RECORD_AUXTRACE)
			aux += rr.aux_size;
		if (rr.type == PERF_RECORD_ITRACE_START)
			assert_string_equal(rr.attr->name,
					    "intel_pt//u" QPT_EMULATE_EVENT_MARK);
	}
	assert_int_equal(ret, 0);
	qpt_reader_free(r);
	assert_int_equal(total, st.records);
	assert_int_equal(aux, (st.aux_bytes + 7) & ~7ULL); /* padded */
}

static void test_emulate_stop(void **state)
{
	char *argv[] = {"/bin/sh", "-c", "while :; do :; done", NULL};
	volatile int stop = SIGINT;
	struct qpt_recorder_opts o;
	struct qpt_recorder *rec;
	char err[256] = "";
	int status;

	emulate_opts(&o, argv, NULL, err, sizeof(err));
	o.stop_request = &stop;
	o.stop_grace_ms = 5000;
	assert_int_equal(qpt_recorder_new(&o, &rec), 0);
	assert_int_equal(qpt_recorder_start(rec), 0);
	assert_int_equal(qpt_recorder_stop(rec), 0);
	status = qpt_recorder_status(rec);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	qpt_recorder_free(rec);
}

static int can_open_task_clock(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_args),
	    cmocka_unit_test(test_opts_sized),
	    cmocka_unit_test(test_record_command),
	    cmocka_unit_test(test_exec_fails),
	    cmocka_unit_test(test_emulate_bad_args),
	    cmocka_unit_test(test_emulate_command),
	    cmocka_unit_test(test_emulate_stop),
	};
	int ret;

	have_task_clock = can_open_task_clock();
	snprintf(out, sizeof(out), "/tmp/qpt-test-recorder-%d.data",
		 (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(out);
	return ret;
}
