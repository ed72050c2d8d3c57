// SPDX-License-Identifier: MIT
/*
 * Faults injected into a recording: qpt's recorder (the PMU source,
 * intel_pt from a fake sysfs, -C 0,1: two rings) runs a real command while
 * its kernel calls and its output's writes are answered by sim_sys.h's
 * simulated kernel, with the faults asked for.  The simulated Intel PT
 * writes sim_unit.h's numbered units into every AUX area, a chunk after
 * each poll.  The run does what `qpt record` does (poll until the command
 * ends, stop, the error in one line) and checks what it leaves behind
 * through /proc.
 *
 * Usage: sim_fault [-S] [-f CALL:N:WHAT[:COUNT]]... [-g POLL] [-P POLLS]
 *                  OUT SYSFS -- CMD ARGS
 *   -S        snapshot mode (else full trace)
 *   -f        a fault (sim_add_fault in sim_sys.h)
 *   -g POLL   the PMU goes away after poll POLL (sim_gone): nothing more
 *             is produced
 *   -P POLLS  the command's stdin (a pipe) is closed after POLLS polls
 *             (default 4), which ends a command that reads it to its end
 *
 * Prints:
 *   calls open A ioctl B map C poll D write E enable F disable G
 *   units N       units written into each AUX area
 *   kept K        units written before the last poll that succeeded
 *                 (its drain put them on disk in full-trace mode)
 *   status S      the command's wait status (-1: none)
 *   leaks FDS CHILDREN   fds open after qpt_recorder_free that were not
 *                 before it, and children not reaped
 *   started       once qpt_recorder_new succeeded
 *   warning MSG   each warning the recorder logged (info MSG: each note)
 * and, when the recording fails, "qpt: MESSAGE" on stderr and exit 1.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_sys.h"
#include "sim_unit.h"

#define CHUNK_UNITS 64

static uint64_t units;	 /* written into each area so far */
static int stdin_w = -1; /* the command's stdin, -1 once closed */

/* @n units into every simulated AUX area. */
static void produce(unsigned int n)
{
	uint8_t buf[CHUNK_UNITS * SIM_UNIT];
	unsigned int i, k;
	size_t j;

	while (n && !sim.gone) {
		k = n < CHUNK_UNITS ? n : CHUNK_UNITS;
		for (i = 0; i < k; i++)
			sim_unit_fill(buf + i * SIM_UNIT, units + i);
		for (j = 0; j < sim.nr; j++)
			if (sim.fds[j].sk)
				qpt_simkern_aux_write(sim.fds[j].sk, buf,
						      k * SIM_UNIT, 0);
		units += k;
		n -= k;
	}
	sim_wakeup();
}

static void close_stdin(void)
{
	if (stdin_w >= 0)
		close(stdin_w);
	stdin_w = -1;
}

/* Polls until the command ends (1), or an error: the CLI's loop. */
static int run(struct qpt_recorder *rec, unsigned polls, unsigned gone_at,
	       uint64_t *kept)
{
	uint64_t before;
	unsigned i;
	int ret;

	for (i = 1;; i++) {
		before = units;
		ret = qpt_recorder_poll(rec, 100);
		if (ret)
			return ret;
		*kept = before;
		if (i == gone_at)
			sim_gone();
		if (i < polls) /* the same for every run, however fast */
			produce(CHUNK_UNITS);
		if (i == polls)
			close_stdin();
	}
}

static void log_warning(enum qpt_log_level lvl, const char *msg, void *ctx)
{
	if (lvl <= QPT_LOG_INFO)
		printf("%s %s\n", lvl <= QPT_LOG_WARN ? "warning" : "info",
		       msg);
}

static int record(struct qpt_recorder_opts *o, unsigned polls, unsigned gone_at)
{
	struct qpt_recorder *rec;
	uint64_t kept = 0;
	int ret, err;

	ret = rec_pmu_new(o, &sim_sys, &rec);
	if (ret < 0)
		return ret;
	printf("started\n");
	sim.pid = qpt_recorder_pid(rec);
	produce(CHUNK_UNITS);
	ret = qpt_recorder_start(rec);
	if (!ret)
		ret = run(rec, polls, gone_at, &kept);
	if (ret > 0)
		ret = 0;
	err = qpt_recorder_stop(rec);
	if (!ret)
		ret = err;
	printf("units %llu\nkept %llu\nstatus %d\n", (unsigned long long)units,
	       (unsigned long long)kept, qpt_recorder_status(rec));
	qpt_recorder_free(rec);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *events[] = {"intel_pt//u"};
	uint8_t before[1024 / 8], after[1024 / 8];
	unsigned polls = 4, gone_at = 0;
	struct qpt_recorder_opts o;
	char err[256] = "";
	int c, ret, p[2], leaked = 0, i;

	qpt_recorder_opts_init(&o);
	while ((c = getopt(argc, argv, "+Sf:g:P:")) != -1) {
		if (c == 'S')
			o.snapshot = true;
		else if (c == 'f' && sim_add_fault(optarg) < 0)
			return 2;
		else if (c == 'g')
			gone_at = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'P')
			polls = (unsigned)strtoul(optarg, NULL, 0);
		else if (c != 'f')
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
	o.data_pages = 16;
	o.aux_pages = 16;
	o.errbuf = err;
	o.errlen = sizeof(err);
	o.log = log_warning;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the command's stdin: a pipe whose write end is kept here */
	if (pipe2(p, O_CLOEXEC) < 0 || dup2(p[0], 0) < 0)
		return 1;
	close(p[0]);
	stdin_w = p[1];
	sim_open_fds(before);
	ret = record(&o, polls, gone_at);
	close_stdin();
	sim_close();
	sim_open_fds(after);
	for (i = 0; i < 1024; i++)
		leaked += (after[i / 8] & ~before[i / 8]) >> i % 8 & 1;
	sim_print_calls(stdout);
	printf("leaks %d %d\n", leaked, sim_children());
	if (ret < 0) {
		if (err[0])
			fprintf(stderr, "qpt: %s\n", err);
		else
			fprintf(stderr, "qpt: %s: %s\n", o.output,
				qpt_strerror(ret));
		return 1;
	}
	return 0;
}
