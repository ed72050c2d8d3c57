// SPDX-License-Identifier: MIT
/*
 * qpt inject --lbr-callstack: from an Intel PT perf.data, the perf.data of
 * the samples a call-stack LBR would have given (every PERIOD instructions
 * of each thread, the LBR's depth as asked), readable by perf script and
 * qpt lbr; --truth FILE writes the whole call stack the flow has at each
 * of those samples, as JSON Lines like qpt lbr --json's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "qpt/lbr.h"
#include "qpt/writer.h"

static const char help[] =
	"usage: qpt inject --lbr-callstack[=PERIOD] -i IN -o OUT [options]\n\n"
	"Write the samples a call-stack LBR would have produced over the\n"
	"Intel PT trace of IN: PERF_RECORD_SAMPLEs (ip, tid, time, callchain,\n"
	"branch stack with hw_idx) every PERIOD instructions of each thread\n"
	"(default 1000), with IN's mappings, threads and build-ids.\n\n"
	"  -i, --input FILE      the Intel PT perf.data (default perf.data)\n"
	"  -o, --output FILE     the perf.data to write\n"
	"      --lbr-depth N     the LBR's depth (default 32, <= 1024)\n"
	"      --truth FILE      the whole call stack at each sample (JSON Lines)\n"
	"      --sysroot DIR, --symfs DIR  find recorded paths under DIR\n"
	"      --buildid-dir DIR the build-id cache (default ~/.debug)\n"
	"  -f, --force           read a file not owned by you or root\n"
	"  -h, --help            this help\n";

enum { OPT_LBR = 256, OPT_DEPTH, OPT_TRUTH, OPT_SYSROOT, OPT_BUILDID };

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "lbr-callstack", optional_argument, NULL, OPT_LBR },
	{ "lbr-depth", required_argument, NULL, OPT_DEPTH },
	{ "truth", required_argument, NULL, OPT_TRUTH },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "symfs", required_argument, NULL, OPT_SYSROOT },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct args {
	const char *input, *output, *truth;
	bool force, lbr;
	struct qpt_lbr_inject_opts io;
	struct qpt_decoder_opts dopts;
};

static int parse_args(int argc, char **argv, struct args *a)
{
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->input = optarg; break;
		case 'o': a->output = optarg; break;
		case 'f': a->force = true; break;
		case OPT_LBR:
			a->lbr = true;
			if (optarg && cli_number("inject", "--lbr-callstack period",
						 optarg, 1, UINT64_MAX, &v))
				return QPT_EXIT_USAGE;
			if (optarg)
				a->io.period = v;
			break;
		case OPT_DEPTH:
			if (cli_number("inject", "--lbr-depth", optarg, 1,
				       QPT_LBR_MAX_DEPTH, &v))
				return QPT_EXIT_USAGE;
			a->io.depth = (unsigned)v;
			break;
		case OPT_TRUTH: a->truth = optarg; break;
		case OPT_SYSROOT: a->dopts.sysroot = optarg; break;
		case OPT_BUILDID: a->dopts.buildid_dir = optarg; break;
		case 'h': fputs(help, stdout); return QPT_EXIT_OK;
		default: return cli_bad_option("inject");
		}
	}
	if (optind < argc)
		return cli_usage_error("inject", "unexpected argument '%s'", argv[optind]);
	if (!a->lbr)
		return cli_usage_error("inject", "what to inject? (--lbr-callstack)");
	if (!a->output)
		return cli_usage_error("inject", "no output file (-o FILE)");
	return -1;
}

/* A truth record: the calls the whole stack holds, as qpt lbr --json. */
static int on_truth(const struct qpt_lbr_record *r, void *ctx)
{
	struct out *w = ctx;
	size_t i;

	out_begin(w);
	out_kv_i64(w, "tid", r->tid);
	out_kv_i64(w, "pid", r->pid);
	out_kv_u64(w, "time", r->time);
	out_kv_hex(w, "ip", r->ip);
	out_array(w, "callchain");
	for (i = 0; i < r->nr; i++) {
		out_elem(w);
		out_val_hex(w, qpt_lbr_record_entry(r, i)->from);
	}
	out_array_end(w);
	out_end(w);
	return w->err;
}

/* The failure @err of the injection into @out: the output's when the
 * writer has failed, else the input's. */
static int report(struct qpt_decoder *dec, struct qpt_writer *out,
		  const struct args *a, int err)
{
	if (qpt_decoder_errmsg(dec)[0] && err == -QPT_E_UNSUPPORTED)
		cli_error(a->input, "%s", qpt_decoder_errmsg(dec));
	else if (qpt_decoder_errmsg(dec)[0])
		cli_error_at(a->input, qpt_decoder_errpos(dec), "%s",
			     qpt_decoder_errmsg(dec));
	else if (qpt_writer_flush(out))
		cli_error(a->output, "%s", qpt_strerror(err));
	else
		cli_error(a->input, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

/* Inject into the output file; the exit code. */
static int inject(struct args *a, struct qpt_decoder *dec, struct out *w)
{
	struct qpt_writer *out = NULL;
	struct stat st;
	bool created;
	int err;

	err = qpt_writer_open(a->output, NULL, &out);
	if (err) {
		cli_error(a->output, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	/* only a regular file, never a device like /dev/null */
	created = strcmp(a->output, "-") && !stat(a->output, &st) &&
		  S_ISREG(st.st_mode);
	err = qpt_lbr_inject(dec, a->input, out, &a->io);
	if (err >= 0 && (err = qpt_writer_close(out)) < 0)
		cli_error(a->output, "%s", qpt_strerror(err));
	else if (err < 0)
		report(dec, out, a, err);
	qpt_writer_free(out);
	if (w && (out_flush(w) || w->err)) {
		cli_error(a->truth, "%s", qpt_strerror(w->err));
		err = -1;
	}
	if (err < 0 && created)
		unlink(a->output); /* a failed injection is no file */
	return err < 0 ? QPT_EXIT_ERROR : QPT_EXIT_OK;
}

static int run(struct args *a, struct out *w)
{
	struct qpt_decoder *dec = NULL;
	struct cli_meter meter;
	int err;

	a->dopts.want = QPT_WANT_INSN | QPT_WANT_BRANCH;
	a->dopts.log = cli_log_warn;
	a->dopts.log_ctx = (void *)a->input;
	if (cli_meter_start(&meter, "qpt inject")) {
		a->dopts.progress = cli_meter_tell;
		a->dopts.progress_ctx = &meter;
	}
	err = qpt_decoder_new(&a->dopts, &dec);
	if (err) {
		cli_error(NULL, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	if (a->truth) {
		a->io.truth = on_truth;
		a->io.truth_ctx = w;
	}
	err = inject(a, dec, w);
	cli_meter_end(&meter);
	qpt_decoder_free(dec);
	return err;
}

int cmd_inject(int argc, char **argv)
{
	static char buf[1 << 16];
	struct out w;
	struct args a;
	int err, fd = -1;

	memset(&a, 0, sizeof(a));
	qpt_lbr_inject_opts_init(&a.io);
	qpt_decoder_opts_init(&a.dopts);
	a.input = "perf.data";
	err = parse_args(argc, argv, &a);
	if (err >= 0)
		return err;
	if (cli_check_owner(a.input, a.force))
		return QPT_EXIT_ERROR;
	if (a.truth) {
		fd = open(a.truth, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			cli_error(a.truth, "%s", strerror(errno));
			return QPT_EXIT_ERROR;
		}
		out_init(&w, fd, true, buf, sizeof(buf));
	}
	err = run(&a, a.truth ? &w : NULL);
	if (fd >= 0 && close(fd) && !err) {
		cli_error(a.truth, "%s", strerror(errno));
		err = QPT_EXIT_ERROR;
	}
	return err;
}
