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
#include "qpt/emulate.h"

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

static void on_nothing(int sig)
{
	(void)sig;
}

/*
 * Let qpt ignore @sig without the recorded command inheriting that: a
 * handler that does nothing (exec resets handlers, not SIG_IGN); a
 * signal qpt was started with ignored stays ignored, for the command too.
 */
static void ignore_here(int sig)
{
	struct sigaction sa, old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_nothing;
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
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
		"  -q, --quiet           no closing summary\n"
		"      --emulate         emulated Intel PT: run COMMAND "
		"single-stepped under\n"
		"                        ptrace and write the trace the "
		"hardware would (user\n"
		"                        space; -e intel_pt/noretcomp,tsc,"
		"psb_period=N,mtc,\n"
		"                        mtc_period=N,cyc,cyc_thresh=N/u "
		"are honoured)\n"
		"      --inherit         with --emulate: follow fork/vfork "
		"children\n"
		"      --aslr            with --emulate: keep address space "
		"randomization\n");
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
	bool emulate, inherit, aslr;
};

enum {
	OPT_PER_THREAD = 256,
	OPT_CONTROL,
	OPT_SYSFS,
	OPT_EMULATE,
	OPT_INHERIT,
	OPT_ASLR,
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
	{"emulate", no_argument, NULL, OPT_EMULATE},
	{"inherit", no_argument, NULL, OPT_INHERIT},
	{"aslr", no_argument, NULL, OPT_ASLR},
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
		case OPT_EMULATE:
			a->emulate = true;
			break;
		case OPT_INHERIT:
			a->inherit = true;
			break;
		case OPT_ASLR:
			a->aslr = true;
			break;
		case 'h':
			usage(stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("record");
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
	if (a->emulate && !a->o.argv)
		return cli_usage_error("record", "--emulate needs -- COMMAND");
	if ((a->inherit || a->aslr) && !a->emulate)
		return cli_usage_error("record",
				       "--inherit and --aslr go with --emulate");
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

/* @emulate: the command gets SIGINT (from the terminal) and ends the run */
static void install_signals(bool emulate)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	if (emulate)
		ignore_here(SIGINT);
	else
		sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_snapshot;
	sigaction(SIGUSR2, &sa, NULL);
	ignore_here(SIGPIPE);
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

/* The terms of -e intel_pt/TERMS/MODS that the emulation honours. */
static int emulate_event(const char *ev, struct qpt_emulate_opts *eo)
{
	char buf[256], *terms, *end, *t, *save = NULL, *val;
	unsigned long v;

	if (strncmp(ev, "intel_pt/", 9) || strlen(ev) >= sizeof(buf))
		return cli_usage_error("record", "--emulate records intel_pt "
				       "only, not '%s'", ev);
	strcpy(buf, ev + 9);
	terms = buf;
	end = strchr(terms, '/');
	if (!end || strspn(end + 1, "u") != strlen(end + 1))
		return cli_usage_error("record", "bad event '%s' (the "
				       "emulation traces user space: /u)", ev);
	*end = '\0';
	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		val = strchr(t, '=');
		if (val)
			*val++ = '\0';
		v = val ? strtoul(val, NULL, 0) : 1;
		if (!strcmp(t, "noretcomp"))
			eo->noretcomp = v != 0;
		else if (!strcmp(t, "psb_period") && v <= 15)
			eo->psb_period = (uint32_t)v;
		else if (!strcmp(t, "tsc"))
			eo->tsc = v != 0;
		else if (!strcmp(t, "mtc"))
			eo->mtc = v != 0;
		else if (!strcmp(t, "cyc"))
			eo->cyc = v != 0;
		else if (!strcmp(t, "mtc_period") && v <= 15)
			eo->mtc_period = (uint32_t)v;
		else if (!strcmp(t, "cyc_thresh") && v <= 15)
			eo->cyc_thresh = (uint32_t)v;
		else if (strcmp(t, "pt") && strcmp(t, "branch"))
			return cli_usage_error("record", "--emulate: term '%s' "
					       "is not emulated", t);
	}
	return -1;
}

static void emulate_progress(uint64_t insns, void *ctx)
{
	fprintf(stderr, "\r[ qpt record --emulate: %" PRIu64
		" instructions ]", insns);
	*(bool *)ctx = true;
}

static int cmd_record_emulate(struct record_args *a, int argc, char **argv)
{
	bool shown = false;
	struct qpt_emulate_opts eo;
	struct qpt_emulate_result res;
	char msg[512] = "";
	size_t i;
	int err, ret;

	qpt_emulate_opts_init(&eo);
	if (a->o.output)
		eo.output = a->o.output;
	eo.argv = a->o.argv;
	eo.aslr = a->aslr;
	eo.inherit = a->inherit;
	eo.data_pages = a->o.data_pages;
	eo.aux_pages = a->o.aux_pages;
	eo.snapshot = a->o.snapshot;
	eo.snapshot_size = a->o.snapshot_size;
	eo.snapshot_request = (volatile int *)&snapshot_requested;
	eo.compress = a->o.compress;
	eo.cmd_argc = argc;
	eo.cmd_argv = argv;
	eo.errbuf = msg;
	eo.errlen = sizeof(msg);
	if (cli_show_progress() && !a->quiet) {
		eo.progress = emulate_progress;
		eo.progress_ctx = &shown;
	}
	for (i = 0; i < a->o.nr_events; i++) {
		ret = emulate_event(a->events[i], &eo);
		if (ret >= 0)
			return ret;
	}
	if (a->o.pid || a->o.all_cpus || a->o.cpu_list || a->control)
		return cli_usage_error("record", "--emulate runs a command: "
				       "no -p, -a, -C or --control");
	install_signals(true);
	err = qpt_emulate_record(&eo, &res);
	if (shown)
		fputc('\n', stderr);
	if (res.exec_failed) {
		cli_error(NULL, "%s", msg);
		return 127;
	}
	if (err < 0) {
		/* the library's message names the file or command */
		if (msg[0])
			cli_error(NULL, "%s", msg);
		else
			cli_error(eo.output, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	if (!a->quiet)
		fprintf(stderr,
			"[ qpt record --emulate: %" PRIu64 " instructions in %u "
			"thread(s), %" PRIu64 " bytes of trace in %" PRIu64
			" buffers, %" PRIu64 " truncations; wrote %.3f MB %s ]\n",
			res.insns, res.threads, res.capture.aux_bytes,
			res.capture.aux_buffers, res.capture.aux_truncated,
			(double)res.output_bytes / (1024.0 * 1024.0),
			eo.output);
	return QPT_EXIT_OK;
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
	/* getopt is done with argv[0] ("qpt record", for its messages); the
	 * CMDLINE feature names the subcommand as perf's does: EXE record … */
	argv[0] = (char *)"record";
	if (a.o.argv) {
		err = find_command(a.o.argv[0]);
		if (err) {
			cli_error(a.o.argv[0], "%s", err == ENOENT ?
				  "command not found" : strerror(err));
			return 127;
		}
	}
	if (a.emulate)
		return cmd_record_emulate(&a, argc, argv);
	a.o.events = a.events;
	a.o.errbuf = msg;
	a.o.errlen = sizeof(msg);
	a.o.cmd_argc = argc;
	a.o.cmd_argv = argv;
	install_signals(false);
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
