// SPDX-License-Identifier: MIT
/*
 * qpt record: run a command (or attach to a process or CPUs) under perf
 * events, an AUX-area tracer by default (intel_pt), and write perf.data.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "qpt/capture.h"

#define MAX_EVENTS 32

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t snapshot_requested;

static void on_stop(int sig)
{
	stop_requested = sig;
}

static void on_snapshot(int sig)
{
	snapshot_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: qpt record [OPTIONS] -- COMMAND [ARGS]\n"
		"       qpt record [OPTIONS] -p PID | -a | -C CPUS\n\n"
		"  -e, --event EVENT     event (repeatable): intel_pt//u "
		"(default),\n"
		"                        intel_pt/tsc,cyc,noretcomp=1/u, "
		"intel_bts//, PMU/terms/,\n"
		"                        task-clock, cycles:u, ...\n"
		"  -o, --output FILE     output file (default perf.data; - "
		"for a pipe)\n"
		"  -p, --pid PID         record a running process (all its "
		"threads)\n"
		"  -a, --all-cpus        record every CPU\n"
		"  -C, --cpu LIST        record these CPUs (0-3,5)\n"
		"      --per-thread      one buffer per thread, no "
		"inheritance\n"
		"  -m, --mmap-pages D[,A] data ring and AUX area size in "
		"pages\n"
		"                        (powers of two) or bytes with "
		"B/K/M/G\n"
		"  -S, --snapshot[=SIZE] snapshot mode: AUX kept in an "
		"overwritten buffer,\n"
		"                        written on SIGUSR2 and at the end\n"
		"      --control FIFO    read commands (snapshot, stop) from "
		"FIFO\n"
		"  -c, --count N         sample period of sampling events\n"
		"  -F, --freq N          sample frequency (default 4000)\n"
		"  -z, --compression-level[=N]  zstd-compress records "
		"(default 1)\n"
		"      --sysfs DIR       PMU directory instead of "
		"/sys/bus/event_source/devices\n"
		"  -q, --quiet           no closing summary\n");
}

static int parse_u64_arg(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* A size "123" (bytes), "4K", "16M", "1G". */
static int parse_size(const char *s, uint64_t *v)
{
	uint64_t mul = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'b': case 'B': end++; break;
	default: break;
	}
	if (*end || *v > UINT64_MAX / mul)
		return -1;
	*v *= mul;
	return 0;
}

/* One part of -m: pages (a power of two) or a size rounded up to one. */
static int parse_pages(const char *s, uint64_t *pages)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), v, p;
	size_t n = strlen(s);

	if (!n)
		return 0;
	if (strchr("bBkKmMgG", s[n - 1])) {
		if (parse_size(s, &v) < 0 || !v)
			return -1;
		v = (v + page - 1) / page;
		for (p = 1; p < v && p < (1ULL << 40); p <<= 1)
			;
		*pages = p;
		return 0;
	}
	if (parse_u64_arg(s, &v) < 0 || !v || (v & (v - 1)))
		return -1;
	*pages = v;
	return 0;
}

static int parse_mmap(const char *arg, struct qpt_recorder_opts *o)
{
	char buf[64], *comma;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	comma = strchr(buf, ',');
	if (comma) {
		*comma = '\0';
		if (parse_pages(comma + 1, &o->aux_pages) < 0)
			return -1;
	}
	return parse_pages(buf, &o->data_pages);
}

struct record_args {
	struct qpt_recorder_opts o;
	const char *events[MAX_EVENTS];
	const char *control;
	bool quiet;
};

enum {
	OPT_PER_THREAD = 256,
	OPT_CONTROL,
	OPT_SYSFS,
};

static const struct option long_opts[] = {
	{"event", required_argument, NULL, 'e'},
	{"output", required_argument, NULL, 'o'},
	{"pid", required_argument, NULL, 'p'},
	{"all-cpus", no_argument, NULL, 'a'},
	{"cpu", required_argument, NULL, 'C'},
	{"per-thread", no_argument, NULL, OPT_PER_THREAD},
	{"mmap-pages", required_argument, NULL, 'm'},
	{"snapshot", optional_argument, NULL, 'S'},
	{"control", required_argument, NULL, OPT_CONTROL},
	{"count", required_argument, NULL, 'c'},
	{"freq", required_argument, NULL, 'F'},
	{"compression-level", optional_argument, NULL, 'z'},
	{"sysfs", required_argument, NULL, OPT_SYSFS},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct record_args *a)
{
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "+e:o:p:aC:m:S::c:F:z::qh",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (a->o.nr_events == MAX_EVENTS)
				return cli_usage_error("record",
						       "too many events");
			a->events[a->o.nr_events++] = optarg;
			break;
		case 'o':
			a->o.output = optarg;
			break;
		case 'p':
			if (parse_u64_arg(optarg, &v) < 0 || !v ||
			    v > INT32_MAX)
				return cli_usage_error("record",
						       "bad pid '%s'", optarg);
			a->o.pid = (int)v;
			break;
		case 'a':
			a->o.all_cpus = true;
			break;
		case 'C':
			a->o.cpu_list = optarg;
			break;
		case OPT_PER_THREAD:
			a->o.per_thread = true;
			break;
		case 'm':
			if (parse_mmap(optarg, &a->o) < 0)
				return cli_usage_error(
					"record",
					"bad -m '%s': pages must be a power "
					"of two (or a size with B/K/M/G)",
					optarg);
			break;
		case 'S':
			a->o.snapshot = true;
			if (optarg && parse_size(optarg, &a->o.snapshot_size))
				return cli_usage_error("record",
						       "bad snapshot size '%s'",
						       optarg);
			break;
		case OPT_CONTROL:
			a->control = strncmp(optarg, "fifo:", 5) ? optarg :
								   optarg + 5;
			break;
		case 'c':
			if (parse_u64_arg(optarg, &a->o.sample_period) < 0 ||
			    !a->o.sample_period)
				return cli_usage_error("record",
						       "bad period '%s'", optarg);
			break;
		case 'F':
			if (parse_u64_arg(optarg, &a->o.sample_freq) < 0 ||
			    !a->o.sample_freq)
				return cli_usage_error("record",
						       "bad frequency '%s'",
						       optarg);
			break;
		case 'z':
			v = 1;
			if (optarg && (parse_u64_arg(optarg, &v) < 0 || !v ||
				       v > 22))
				return cli_usage_error("record",
						       "bad compression level "
						       "'%s'", optarg);
			a->o.compress = (int)v;
			break;
		case OPT_SYSFS:
			a->o.sysfs_root = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return QPT_EXIT_OK;
		default:
			return cli_usage_error("record", "bad option");
		}
	}
	if (optind < argc)
		a->o.argv = argv + optind;
	/* -C also narrows a command or process to those CPUs, as perf. */
	if (!!a->o.argv + !!a->o.pid + a->o.all_cpus +
		    (a->o.cpu_list && !a->o.argv && !a->o.pid) != 1)
		return cli_usage_error("record",
				       "give one target: -- COMMAND, -p PID, "
				       "-a or -C CPUS");
	if (a->control && !a->o.snapshot)
		return cli_usage_error("record", "--control needs -S");
	return -1;
}

/* Like a shell: is @cmd an executable file, by path or in $PATH?  0 or
 * an errno for the message. */
static int find_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	int err = ENOENT;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p,
			     cmd) < (int)sizeof(buf)) {
			if (!access(buf, X_OK))
				return 0;
			if (errno == EACCES)
				err = EACCES;
		}
		if (!*end)
			break;
	}
	return err;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_snapshot;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Commands from the control FIFO: "snapshot", "stop". */
static void read_control(int fd)
{
	char buf[256], *line, *save = NULL;
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "snapshot"))
			snapshot_requested = 1;
		else if (!strcmp(line, "stop"))
			stop_requested = SIGTERM;
		else
			cli_warn("control: unknown command '%s'", line);
	}
}

static void print_summary(struct qpt_recorder *rec, const char *out)
{
	struct qpt_capture_stats st;

	qpt_recorder_stats(rec, &st);
	if (st.aux_truncated)
		cli_warn("AUX data truncated %" PRIu64 " times out of %" PRIu64
			 ": trace was lost while the AUX area was full "
			 "(try a larger AUX area: -m ,SIZE)",
			 st.aux_truncated, st.aux_records);
	if (st.aux_partial)
		cli_warn("AUX data had gaps in it %" PRIu64 " times out of %"
			 PRIu64, st.aux_partial, st.aux_records);
	if (st.aux_collision)
		cli_warn("AUX data collided with another event's %" PRIu64
			 " times out of %" PRIu64, st.aux_collision,
			 st.aux_records);
	if (st.lost_events)
		cli_warn("%" PRIu64 " sideband/sample records lost in %" PRIu64
			 " overruns of the data ring (try -m DATA)",
			 st.lost_records, st.lost_events);
	if (st.lost_samples)
		cli_warn("%" PRIu64 " samples lost", st.lost_samples);
	fprintf(stderr,
		"[ qpt record: captured %" PRIu64 " bytes of trace in %" PRIu64
		" buffers, %" PRIu64 " bytes lost%s; %" PRIu64
		" records; wrote %.3f MB %s ]\n",
		st.aux_bytes, st.aux_buffers, st.aux_overwritten,
		st.aux_truncated ? " (and truncations)" : "", st.records,
		(double)qpt_recorder_output_bytes(rec) / (1024.0 * 1024.0),
		out);
}

static int report_new_error(int err, struct record_args *a, const char *msg)
{
	if (err == -QPT_E_NOPMU) {
		cli_error(NULL, "%s%s", msg,
			  strstr(msg, "'intel_") ?
				  "; use --emulate for an emulated Intel PT "
				  "trace" :
				  "");
		return QPT_EXIT_ERROR;
	}
	if (err == -QPT_E_INVAL && !a->o.argv && !a->o.pid)
		return cli_usage_error("record", "%s", msg);
	cli_error(NULL, "%s", msg[0] ? msg : qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

/* Once a second, when stderr is a terminal: how much is written so far. */
static void show_progress(struct qpt_recorder *rec, time_t *last, bool end)
{
	struct qpt_capture_stats st;
	time_t now = time(NULL);

	if (!cli_show_progress() || (!end && now == *last))
		return;
	*last = now;
	if (end) {
		fputs("\r\033[K", stderr);
		return;
	}
	qpt_recorder_stats(rec, &st);
	fprintf(stderr, "\r[ qpt record: %.3f MB written, %" PRIu64
		" bytes of trace ]\033[K",
		(double)qpt_recorder_output_bytes(rec) / (1024.0 * 1024.0),
		st.aux_bytes);
}

static int run(struct qpt_recorder *rec, struct record_args *a)
{
	time_t last = time(NULL);
	int64_t n;
	int err = 0, ctl = -1;

	if (a->control) {
		ctl = open(a->control, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (ctl < 0) {
			err = -errno;
			cli_error(a->control, "%s", strerror(-err));
			return err;
		}
	}
	while (!stop_requested) {
		err = qpt_recorder_poll(rec, 100);
		show_progress(rec, &last, false);
		if (err)
			break;
		read_control(ctl);
		if (snapshot_requested) {
			snapshot_requested = 0;
			n = qpt_recorder_snapshot(rec);
			if (n < 0) {
				err = (int)n;
				break;
			}
		}
	}
	if (ctl >= 0)
		close(ctl);
	show_progress(rec, &last, true);
	return err < 0 ? err : 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct qpt_recorder *rec;
	char msg[512] = "";
	int ret, err, pid, status;

	memset(&a, 0, sizeof(a));
	qpt_recorder_opts_init(&a.o);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	if (a.o.argv) {
		err = find_command(a.o.argv[0]);
		if (err) {
			cli_error(a.o.argv[0], "%s", err == ENOENT ?
				  "command not found" : strerror(err));
			return 127;
		}
	}
	a.o.events = a.events;
	a.o.errbuf = msg;
	a.o.errlen = sizeof(msg);
	a.o.cmd_argc = argc;
	a.o.cmd_argv = argv;
	install_signals();
	err = qpt_recorder_new(&a.o, &rec);
	if (err < 0)
		return report_new_error(err, &a, msg);
	err = qpt_recorder_start(rec);
	if (err < 0) {
		cli_error(NULL, "%s", msg);
		ret = qpt_recorder_exec_failed(rec) ? 127 : QPT_EXIT_ERROR;
		qpt_recorder_stop(rec);
		qpt_recorder_free(rec);
		if (ret == 127 && strcmp(a.o.output, "-"))
			unlink(a.o.output);
		return ret;
	}
	err = run(rec, &a);
	ret = qpt_recorder_stop(rec);
	if (err >= 0)
		err = ret;
	pid = qpt_recorder_pid(rec);
	status = qpt_recorder_status(rec);
	if (pid && status == -1) {
		/* Stopped before the command ended, as perf does. */
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	if (err < 0)
		cli_error(a.o.output, "%s", qpt_strerror(err));
	else if (!a.quiet)
		print_summary(rec, a.o.output);
	qpt_recorder_free(rec);
	if (err < 0)
		return QPT_EXIT_ERROR;
	/* Like perf: the command's own exit status. */
	if (pid && status != -1 && WIFEXITED(status))
		return WEXITSTATUS(status);
	if (pid && status != -1 && WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return QPT_EXIT_OK;
}
