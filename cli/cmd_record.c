// SPDX-License-Identifier: MIT
/*
 * qpt record: run a command (or attach to a process or CPUs) under perf
 * events, an AUX-area tracer by default (intel_pt), and write perf.data.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record_summary.h"
#include "cli/signals.h"
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
	fprintf(
	    out,
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
	    "      --control FIFO[,ACK]  read commands (snapshot, stop) from "
	    "FIFO;\n"
	    "                        write \"ack\" to ACK once each is "
	    "served\n"
	    "  -c, --count N         sample period of sampling events\n"
	    "  -F, --freq N          sample frequency (default 4000)\n"
	    "  -z, --compression-level[=N]  zstd-compress records "
	    "(default 1)\n"
	    "      --sysfs DIR       PMU directory instead of "
	    "/sys/bus/event_source/devices\n"
	    "  -q, --quiet           no closing summary\n"
	    "      --emulate[=MODE]  emulated Intel PT: run COMMAND "
	    "under ptrace and\n"
	    "                        write the trace the hardware would "
	    "(user space;\n"
	    "                        -e intel_pt/noretcomp,tsc,"
	    "psb_period=N,mtc,\n"
	    "                        mtc_period=N,cyc,cyc_thresh=N/u "
	    "are honoured); MODE\n"
	    "                        fast (default: straight-line code "
	    "runs natively,\n"
	    "                        a breakpoint stops each branch) or "
	    "step (every\n"
	    "                        instruction single-stepped, the "
	    "reference) or\n"
	    "                        qemu (the command runs under QEMU's "
	    "user mode,\n"
	    "                        whose plugin writes the trace: fast, "
	    "on QEMU's CPU)\n"
	    "      --qemu PATH       with --emulate=qemu: the qemu-x86_64 "
	    "to run\n"
	    "      --inherit         with --emulate: follow fork/vfork "
	    "children\n"
	    "      --aslr            with --emulate: keep address space "
	    "randomization\n"
	    "      --bind-to-cpu N   with --emulate: the command and qpt run "
	    "on CPU N\n"
	    "                        (default: the CPU qpt starts on; a "
	    "ptrace stop\n"
	    "                        between two CPUs costs several times "
	    "more)\n"
	    "      --cpu-unbound     with --emulate: the command runs on any "
	    "CPU it may\n"
	    "  -N, --no-buildid-cache with --emulate: do not put the vDSO "
	    "in the build-id\n"
	    "                        cache (~/.debug), where perf finds it\n"
	    "      --on-signal LIST  the fatal signals recorded as a crash "
	    "for qpt crash\n"
	    "                        (default SEGV,BUS,ILL,FPE,ABRT,SYS,"
	    "TRAP); the PMU\n"
	    "                        source (with -S, or given this) "
	    "watches the command\n"
	    "                        or -p PID under ptrace, without "
	    "stepping, and\n"
	    "                        snapshots the AUX areas at a crash\n"
	    "      --snapshot-on SYM[+OFF] with -S: a snapshot each time a "
	    "thread\n"
	    "                        reaches the function SYM (the PMU "
	    "source: a uprobe\n"
	    "                        in the executable, the snapshot "
	    "shortly after)\n"
	    "\nSIGINT, SIGTERM or SIGHUP end the recording: the signal "
	    "goes on to the\ncommand, which is killed if it has not ended "
	    "2 seconds later.  qpt record\nexits with the command's status "
	    "(128+N when signal N killed it).\n");
}

static int parse_u64_arg(const char *s, uint64_t *v)
{
	return cli_parse_u64(s, 0, UINT64_MAX, v);
}

/* A size "123" (bytes), "4K", "16M", "1G". */
static int parse_size(const char *s, uint64_t *v)
{
	uint64_t mul = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1; /* cli_parse_u64's rule, with a unit after */
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
	char *control_ack; /* the ack FIFO (in control_buf) */
	char control_buf[PATH_MAX];
	bool quiet;
	bool emulate, inherit, aslr, no_buildid_cache, cpu_given, qemu;
	uint64_t crash_signals; /* --on-signal; 0: the default set */
	const char *snapshot_on;
};

enum {
	OPT_PER_THREAD = 256,
	OPT_CONTROL,
	OPT_SYSFS,
	OPT_EMULATE,
	OPT_INHERIT,
	OPT_ASLR,
	OPT_ON_SIGNAL,
	OPT_SNAPSHOT_ON,
	OPT_BIND_CPU,
	OPT_CPU_UNBOUND,
	OPT_QEMU,
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
    {"emulate", optional_argument, NULL, OPT_EMULATE},
    {"inherit", no_argument, NULL, OPT_INHERIT},
    {"aslr", no_argument, NULL, OPT_ASLR},
    {"bind-to-cpu", required_argument, NULL, OPT_BIND_CPU},
    {"cpu-unbound", no_argument, NULL, OPT_CPU_UNBOUND},
    {"qemu", required_argument, NULL, OPT_QEMU},
    {"on-signal", required_argument, NULL, OPT_ON_SIGNAL},
    {"snapshot-on", required_argument, NULL, OPT_SNAPSHOT_ON},
    {"no-buildid-cache", no_argument, NULL, 'N'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options together.  Returns -1 to go on, else the exit code. */
static int check_args(const struct record_args *a)
{
	/* -C also narrows a command or process to those CPUs, as perf. */
	if (!!a->o.argv + !!a->o.pid + a->o.all_cpus +
		    (a->o.cpu_list && !a->o.argv && !a->o.pid) != 1)
		return cli_usage_error("record",
				       "give one target: -- COMMAND, -p PID, "
				       "-a or -C CPUS");
	if (a->emulate && !a->o.argv)
		return cli_usage_error("record", "--emulate needs -- COMMAND");
	if ((a->inherit || a->aslr || a->no_buildid_cache || a->cpu_given) &&
	    !a->emulate)
		return cli_usage_error("record",
				       "--inherit, --aslr, -N, --bind-to-cpu "
				       "and --cpu-unbound go with --emulate");
	if (a->crash_signals && !a->o.argv && !a->o.pid)
		return cli_usage_error("record", "--on-signal watches a "
						 "command or -p PID");
	if (a->snapshot_on && !a->o.snapshot)
		return cli_usage_error("record", "--snapshot-on needs -S");
	if (a->snapshot_on && !a->o.argv && !a->o.pid)
		return cli_usage_error("record", "--snapshot-on probes a "
						 "command or -p PID");
	if (a->emulate && (a->o.pid || a->o.all_cpus || a->o.cpu_list))
		return cli_usage_error("record", "--emulate runs a command: "
				       "no -p, -a or -C");
	if (a->o.qemu && !a->qemu)
		return cli_usage_error("record", "--qemu goes with "
						 "--emulate=qemu");
	if (a->control && !a->o.snapshot)
		return cli_usage_error("record", "--control needs -S");
	return -1;
}

/* Returns -1 to go on, else the exit code. */
/* What an option parser below returns for an option it does not take. */
#define NOT_MINE (-1)

/* Options without a value.  Returns 0, or NOT_MINE. */
static int flag_option(int c, struct record_args *a)
{
	switch (c) {
	case 'a':
		a->o.all_cpus = true;
		return 0;
	case OPT_PER_THREAD:
		a->o.per_thread = true;
		return 0;
	case 'q':
		a->quiet = true;
		return 0;
	case OPT_INHERIT:
		a->inherit = true;
		return 0;
	case OPT_ASLR:
		a->aslr = true;
		return 0;
	case 'N':
		a->no_buildid_cache = true;
		return 0;
	case OPT_CPU_UNBOUND:
		a->o.emulate_cpu = QPT_CPU_UNBOUND;
		a->cpu_given = true;
		return 0;
	}
	return NOT_MINE;
}

/* Options whose value is kept as given.  Returns 0, a usage error (exit
 * code), or NOT_MINE. */
static int text_option(int c, char *arg, struct record_args *a)
{
	switch (c) {
	case 'e':
		if (a->o.nr_events == MAX_EVENTS)
			return cli_usage_error("record", "too many events");
		a->events[a->o.nr_events++] = arg;
		return 0;
	case 'o':
		a->o.output = arg;
		return 0;
	case 'C':
		a->o.cpu_list = arg;
		return 0;
	case OPT_CONTROL: /* perf's [fifo:]CTL[,ACK] */
		arg = strncmp(arg, "fifo:", 5) ? arg : arg + 5;
		if (strlen(arg) >= sizeof(a->control_buf))
			return cli_usage_error("record", "--control: too long");
		strcpy(a->control_buf, arg);
		a->control = a->control_buf;
		a->control_ack = strchr(a->control_buf, ',');
		if (a->control_ack)
			*a->control_ack++ = '\0';
		return 0;
	case OPT_SYSFS:
		a->o.sysfs_root = arg;
		return 0;
	case OPT_SNAPSHOT_ON:
		a->snapshot_on = arg;
		return 0;
	case OPT_EMULATE:
		a->emulate = true;
		if (arg && strcmp(arg, "fast") && strcmp(arg, "step") &&
		    strcmp(arg, "qemu"))
			return cli_usage_error("record",
					       "bad --emulate mode '%s': fast, "
					       "step or qemu",
					       arg);
		a->o.emulate_step = arg && !strcmp(arg, "step");
		a->qemu = arg && !strcmp(arg, "qemu");
		return 0;
	case OPT_QEMU:
		a->o.qemu = arg;
		return 0;
	}
	return NOT_MINE;
}

/* Options whose value is a number, a size or a list.  Returns 0, a usage
 * error (exit code), or NOT_MINE. */
static int number_option(int c, char *arg, struct record_args *a)
{
	const char *bad;
	int bad_cpu;
	uint64_t v = 1;

	switch (c) {
	case OPT_BIND_CPU:
		bad_cpu = cli_number("record", "--bind-to-cpu", arg, 0,
				     CPU_SETSIZE - 1, &v);
		if (bad_cpu)
			return bad_cpu;
		a->o.emulate_cpu = (int)v;
		a->cpu_given = true;
		return 0;
	case 'p':
		if (parse_u64_arg(arg, &v) < 0 || !v || v > INT32_MAX)
			return cli_usage_error("record", "bad pid '%s'", arg);
		a->o.pid = (int)v;
		return 0;
	case 'm':
		if (parse_mmap(arg, &a->o) < 0)
			return cli_usage_error(
				"record",
				"bad -m '%s': pages must be a power of two (or "
				"a size with B/K/M/G)",
				arg);
		return 0;
	case 'S':
		a->o.snapshot = true;
		if (arg && parse_size(arg, &a->o.snapshot_size))
			return cli_usage_error("record",
					       "bad snapshot size '%s'", arg);
		return 0;
	case 'c':
		if (parse_u64_arg(arg, &a->o.sample_period) < 0 ||
		    !a->o.sample_period)
			return cli_usage_error("record", "bad period '%s'",
					       arg);
		return 0;
	case 'F':
		if (parse_u64_arg(arg, &a->o.sample_freq) < 0 ||
		    !a->o.sample_freq)
			return cli_usage_error("record", "bad frequency '%s'",
					       arg);
		return 0;
	case 'z':
		if (arg && (parse_u64_arg(arg, &v) < 0 || !v || v > 22))
			return cli_usage_error(
				"record", "bad compression level '%s'", arg);
		a->o.compress = (int)v;
		return 0;
	case OPT_ON_SIGNAL:
		if (cli_signal_list(arg, &a->crash_signals, &bad))
			return cli_usage_error(
				"record", "--on-signal: bad signal '%s'", bad);
		return 0;
	}
	return NOT_MINE;
}

static int parse_args(int argc, char **argv, struct record_args *a)
{
	int c, r;

	while ((c = getopt_long(argc, argv, "+e:o:p:aC:m:S::c:F:z::qNh",
				long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return QPT_EXIT_OK;
		}
		r = flag_option(c, a);
		if (r == NOT_MINE)
			r = text_option(c, optarg, a);
		if (r == NOT_MINE)
			r = number_option(c, optarg, a);
		if (r == NOT_MINE)
			return cli_bad_option("record");
		if (r)
			return r;
	}
	if (optind < argc)
		a->o.argv = argv + optind;
	return check_args(a);
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

/* SIGINT, SIGTERM and SIGHUP end the run (the emulator passes them on) */
static void install_signals(void)
{
	struct sigaction sa;

	/* no SA_RESTART: a wait for the command returns at once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_snapshot;
	sigaction(SIGUSR2, &sa, NULL);
	/* qpt's own writes fail with EPIPE; the command does not inherit
	 * an ignored SIGPIPE */
	ignore_here(SIGPIPE);
}

/* Commands from the control FIFO: "snapshot", "stop"; how many came. */
static unsigned int read_control(int fd)
{
	char buf[256], *line, *save = NULL;
	unsigned int cmds = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		cmds++;
		if (!strcmp(line, "snapshot"))
			snapshot_requested = 1;
		else if (!strcmp(line, "stop"))
			stop_requested = SIGTERM;
		else
			cli_warn("control: unknown command '%s'", line);
	}
	return cmds;
}

/* The commands served, told on the ack FIFO (as perf's --control). */
static void ack_control(int fd, unsigned int *cmds)
{
	for (; fd >= 0 && *cmds; --*cmds)
		if (write(fd, "ack\n", 4) != 4)
			break;
	*cmds = 0;
}

static void print_summary(struct qpt_recorder *rec, const char *out,
			  const char *note)
{
	struct qpt_capture_stats st;

	qpt_recorder_stats(rec, &st);
	record_summary(stderr, &st, qpt_recorder_output_bytes(rec), out, note,
		       cli_warn);
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
	/* the emulated source's options are checked there */
	if (err == -QPT_E_INVAL && ((!a->o.argv && !a->o.pid) || a->emulate))
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
		" bytes of trace",
		(double)qpt_recorder_output_bytes(rec) / (1024.0 * 1024.0),
		st.aux_bytes);
	if (st.insns) /* the emulated source */
		fprintf(stderr, ", %" PRIu64 " instructions", st.insns);
	fputs(" ]\033[K", stderr);
}

/*
 * The emulated source waits for the command's next stop, which a command
 * blocked in the kernel puts off: with a control FIFO to read, a tick
 * every 20 ms (@on) ends that wait.  (Timers are not inherited: the
 * command started already, and fork clears them.)
 */
static void control_tick(bool on)
{
	struct itimerval it = {{0, on ? 20000 : 0}, {0, on ? 20000 : 0}};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_nothing;
	if (on)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* The control FIFO and its ack FIFO (-1 where none), or an error. */
static int open_control(const struct record_args *a, int *ctl, int *ack)
{
	int err;

	*ctl = *ack = -1;
	if (!a->control)
		return 0;
	*ctl = open(a->control, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (*ctl < 0) {
		err = -errno;
		cli_error(a->control, "%s", strerror(-err));
		return err;
	}
	if (!a->control_ack)
		return 0;
	/* read-write: opening does not wait for a reader */
	*ack = open(a->control_ack, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*ack < 0) {
		err = -errno;
		cli_error(a->control_ack, "%s", strerror(-err));
		close(*ctl);
		return err;
	}
	return 0;
}

static int run(struct qpt_recorder *rec, struct record_args *a)
{
	time_t last = time(NULL);
	unsigned int cmds = 0;
	int64_t n;
	int err, ctl, ack;

	err = open_control(a, &ctl, &ack);
	if (err)
		return err;
	if (ctl >= 0 && a->emulate)
		control_tick(true);
	while (!stop_requested) {
		err = qpt_recorder_poll(rec, 100);
		show_progress(rec, &last, false);
		if (err)
			break;
		cmds += read_control(ctl);
		if (snapshot_requested) {
			snapshot_requested = 0;
			n = qpt_recorder_snapshot(rec);
			if (n < 0) {
				err = (int)n;
				break;
			}
		}
		ack_control(ack, &cmds);
	}
	ack_control(ack, &cmds);
	if (ctl >= 0) {
		if (a->emulate)
			control_tick(false);
		close(ctl);
	}
	if (ack >= 0)
		close(ack);
	show_progress(rec, &last, true);
	return err < 0 ? err : 0;
}

/*
 * An event string as the PMU reads it: its terms known and their values
 * within their bits, as perf checks them (the emulation describes the
 * intel_pt PMU as the Linux driver does where there is none).  Returns -1
 * when it parses (*@psb_period: its psb_period when an intel_pt event,
 * else -1), else the usage error's exit code.
 */
static int check_event(const char *ev, const struct record_args *a,
		       int *psb_period)
{
	struct qpt_event_opts eopts;
	struct qpt_event *e = NULL;
	char msg[256] = "";
	int err;

	qpt_event_opts_init(&eopts);
	eopts.sysfs_root = a->o.sysfs_root;
	eopts.errbuf = msg;
	eopts.errlen = sizeof(msg);
	eopts.builtin_intel_pt = a->emulate;
	eopts.builtin_intel_pt_type = QPT_EMULATE_PMU_TYPE;
	err = qpt_event_parse(ev, &eopts, &e);
	*psb_period = -1;
	if (!err && !strcmp(qpt_event_pmu(e), "intel_pt"))
		/* config:24-27, the driver's format (perf reads it there) */
		*psb_period = (int)(qpt_event_attr(e)->config >> 24 & 15);
	qpt_event_free(e);
	if (err == -QPT_E_INVAL)
		return cli_usage_error("record", "%s", msg);
	return -1; /* a missing PMU: the recorder says so */
}

/*
 * A snapshot must hold a PSB+ and the trace up to the next PSB to decode
 * anything: with the worst start, just after a PSB, that is two PSB
 * periods of 2^(psb_period + 11) bytes.  @aux: the AUX area's bytes when
 * given (a snapshot without -S SIZE is all of it).
 */
static int check_snapshot(const struct record_args *a, int psb_period,
			  uint64_t aux)
{
	uint64_t need = 2ULL << (psb_period + 11);
	uint64_t size = a->o.snapshot_size ? a->o.snapshot_size : aux;

	if (!a->o.snapshot || psb_period < 0 || !size || size >= need)
		return -1;
	return cli_usage_error("record",
			       "%s of %llu bytes cannot hold a whole PSB "
			       "period after its first PSB: psb_period=%d "
			       "puts one every %llu bytes; give at least %llu",
			       a->o.snapshot_size ? "-S" : "the AUX area (-m)",
			       (unsigned long long)size, psb_period,
			       (unsigned long long)(need / 2),
			       (unsigned long long)need);
}

/* Every -e checked; the snapshot size against the AUX event's PSB
 * period.  Returns -1 or the usage error's exit code. */
static int check_events(const struct record_args *a)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret, psb, aux_psb = -1;
	size_t i;

	for (i = 0; i < a->o.nr_events; i++) {
		ret = check_event(a->events[i], a, &psb);
		if (ret >= 0)
			return ret;
		if (psb >= 0)
			aux_psb = psb;
	}
	if (a->emulate && aux_psb < 0)
		aux_psb = 3; /* the emulated intel_pt//'s psb_period */
	return check_snapshot(a, aux_psb, a->o.aux_pages * page);
}

/* Library messages worth a user's attention, as qpt's warnings. */
static void log_warnings(enum qpt_log_level lvl, const char *msg, void *ctx)
{
	if (lvl <= QPT_LOG_WARN)
		cli_warn("%s", msg);
}

/* perf's build-id cache: $HOME/.debug, the user's home by the password
 * database without HOME (perf itself would use ./.debug then). */
static char *buildid_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	char *dir;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || asprintf(&dir, "%s/.debug", home) < 0)
		return NULL;
	return dir;
}

/* "; program killed by SIGSEGV" for the summary, or "". */
static const char *killed_note(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;

	if (sig <= 0)
		return "";
	if (abbrev)
		snprintf(buf, len, "; program killed by SIG%s", abbrev);
	else
		snprintf(buf, len, "; program killed by signal %d", sig);
	return buf;
}

/* The command's exit status as qpt record's: its code, 128 + signal. */
static int command_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return QPT_EXIT_OK;
}

static int start_failed(struct qpt_recorder *rec, struct record_args *a,
			const char *msg)
{
	int ret = qpt_recorder_exec_failed(rec) ? 127 : QPT_EXIT_ERROR;

	cli_error(NULL, "%s", msg);
	qpt_recorder_stop(rec);
	qpt_recorder_free(rec);
	if (ret == 127 && strcmp(a->o.output, "-"))
		unlink(a->o.output);
	return ret;
}

/* The QEMU plugin: $QPT_QEMU_PLUGIN, qpt-qemu.so beside this qpt (a
 * build tree) or where the install put it from here, or NULL: the
 * library's default. */
static const char *plugin_path(void)
{
	static const char *const rel[] = {"qpt-qemu.so", QPT_BIN_TO_PLUGIN};
	static char path[4096];
	const char *env = getenv("QPT_QEMU_PLUGIN");
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;
	size_t i;

	if (env && *env)
		return env;
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	for (i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++) {
		if ((size_t)(slash + 1 - path) + strlen(rel[i]) >= sizeof(path))
			continue;
		strcpy(slash + 1, rel[i]);
		if (!access(path, R_OK))
			return path;
	}
	return NULL;
}

/* The options the command line does not give directly. */
static void fill_opts(struct record_args *a, int argc, char **argv,
		      char *msg, size_t len)
{
	a->o.events = a->events;
	a->o.errbuf = msg;
	a->o.errlen = len;
	a->o.cmd_argc = argc;
	a->o.cmd_argv = argv;
	a->o.log = log_warnings;
	a->o.stop_request = (volatile int *)&stop_requested;
	a->o.crash_signals = a->crash_signals;
	a->o.snapshot_on = a->snapshot_on;
	if (!a->emulate)
		return;
	a->o.source = a->qemu ? QPT_SOURCE_QEMU : QPT_SOURCE_EMULATE;
	if (a->qemu)
		a->o.qemu_plugin = plugin_path();
	a->o.inherit = a->inherit;
	a->o.aslr = a->aslr;
	if (!a->no_buildid_cache)
		a->o.buildid_dir = buildid_dir();
}

/* The command's end: the closing summary, qpt record's exit status. */
static int finish(struct qpt_recorder *rec, struct record_args *a, int err,
		  const char *msg)
{
	int pid = qpt_recorder_pid(rec), status = qpt_recorder_status(rec);
	struct qpt_capture_stats st;
	char note[64];

	qpt_recorder_stats(rec, &st);
	if (st.trace_gaps)
		cli_warn("%" PRIu64 " places where this host lost single-step "
			 "traps and what ran could not be told: the trace has "
			 "an overflow (OVF) there", st.trace_gaps);
	if (err < 0 && msg[0]) /* it names the file or command */
		cli_error(NULL, "%s", msg);
	else if (err < 0)
		cli_error(a->o.output, "%s", qpt_strerror(err));
	else if (!a->quiet)
		print_summary(
		    rec, a->o.output,
		    pid && status != -1 && WIFSIGNALED(status)
			? killed_note(WTERMSIG(status), note, sizeof(note))
			: "");
	if (err < 0)
		return QPT_EXIT_ERROR;
	/* Like perf: the command's own exit status. */
	return pid && status != -1 ? command_status(status) : QPT_EXIT_OK;
}

/* @out@from renamed @out@to: 0 or an exit code; a missing one is no error
 * when @may_miss. */
static int rename_out(const char *out, const char *from, const char *to,
		      bool may_miss)
{
	char a[PATH_MAX], b[PATH_MAX];

	if ((size_t)snprintf(a, sizeof(a), "%s%s", out, from) >= sizeof(a) ||
	    (size_t)snprintf(b, sizeof(b), "%s%s", out, to) >= sizeof(b)) {
		cli_error(out, "name too long");
		return QPT_EXIT_ERROR;
	}
	if (!rename(a, b) || (may_miss && errno == ENOENT))
		return 0;
	cli_error(a, "cannot rename to %s: %s", b, strerror(errno));
	return QPT_EXIT_ERROR;
}

/*
 * As perf record: an output file that exists (a regular one, not empty)
 * becomes FILE.old first, so that a new recording never destroys the last
 * one at once; its vDSO beside it (FILE.vdso) goes with it.  0, or the
 * exit code of a one-line error.
 */
static int keep_old(const char *out)
{
	struct stat st;

	if (!strcmp(out, "-") || stat(out, &st) || !S_ISREG(st.st_mode) ||
	    !st.st_size)
		return 0;
	return rename_out(out, "", ".old", false) ?:
	       rename_out(out, ".vdso", ".old.vdso", true);
}

static int record(struct record_args *a, int argc, char **argv)
{
	struct qpt_recorder *rec;
	char msg[512] = "";
	int ret, err;

	ret = keep_old(a->o.output);
	if (ret)
		return ret;
	fill_opts(a, argc, argv, msg, sizeof(msg));
	install_signals();
	/* the command's end, or a stop of a thread watched for crashes,
	 * wakes the PMU source's wait for its rings */
	if (!a->emulate)
		ignore_here(SIGCHLD);
	err = qpt_recorder_new(&a->o, &rec);
	if (err < 0) {
		ret = report_new_error(err, a, msg);
		goto out;
	}
	err = qpt_recorder_start(rec);
	if (err < 0) {
		ret = start_failed(rec, a, msg);
		goto out;
	}
	err = run(rec, a);
	/* the command ends here if the recording ended first */
	ret = qpt_recorder_stop(rec);
	if (err >= 0)
		err = ret;
	ret = finish(rec, a, err, msg);
	qpt_recorder_free(rec);
out:
	free((char *)a->o.buildid_dir);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	int ret, err;

	memset(&a, 0, sizeof(a));
	qpt_recorder_opts_init(&a.o);
	ret = parse_args(argc, argv, &a);
	if (ret < 0)
		ret = check_events(&a);
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
	return record(&a, argc, argv);
}
