// SPDX-License-Identifier: MIT
/*
 * qpt split: an Intel PT perf.data into N standalone perf.data shards cut
 * at PSBs (qpt/split.h), whose decodes, in shard order, are the whole
 * file's.  The shards' names go to standard output, one a line, for a
 * scheduler to map `qpt decode` over (GNU parallel, Dask: README).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "qpt/split.h"

static const char help[] =
    "usage: qpt split -n N [-i IN] -o DIR\n\n"
    "Write IN as at most N perf.data shards, DIR/shard-000.data ...,\n"
    "cut at PSBs into parts of about equal trace bytes, each decoding\n"
    "on its own with qpt decode; their outputs, in shard order, are\n"
    "IN's.  Prints the shards' names, one a line.\n\n"
    "  -n, --shards N        at most N shards (1..512)\n"
    "  -i, --input IN        the perf.data (default perf.data)\n"
    "  -o, --output DIR      the directory (made when absent)\n"
    "  -f, --force           read a file not owned by you or root\n"
    "  -h, --help            this help\n";

struct args {
	const char *input, *dir;
	uint64_t shards;
	bool force;
};

static int parse(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
	    {"shards", required_argument, NULL, 'n'},
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:i:o:fh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'n':
			if (cli_number("split", "-n", optarg, 1, QPT_SPLIT_MAX,
				       &a->shards))
				return QPT_EXIT_USAGE;
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->dir = optarg;
			break;
		case 'f':
			a->force = true;
			break;
		case 'h':
			fputs(help, stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("split");
		}
	}
	if (optind < argc)
		return cli_usage_error("split", "unexpected argument '%s'",
				       argv[optind]);
	if (!a->shards)
		return cli_usage_error("split", "no shard count: -n N");
	if (!a->dir)
		return cli_usage_error("split", "no output directory: -o DIR");
	return -1;
}

/* DIR, made when absent (its parent must be there). */
static int make_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error(dir, "%s", strerror(errno));
		return QPT_EXIT_ERROR;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		cli_error(dir, "not a directory");
		return QPT_EXIT_ERROR;
	}
	return 0;
}

static int list(const char *dir, uint32_t n)
{
	static char buf[1 << 14];
	struct out w;
	char name[4096];
	uint32_t i;
	int err = 0;

	out_init(&w, 1, false, buf, sizeof(buf));
	for (i = 0; i < n && !err; i++) {
		qpt_split_name(dir, i, name, sizeof(name));
		out_esc(&w, name, strlen(name));
		out_char(&w, '\n');
	}
	err = out_flush(&w);
	return err ? cli_write_error(err) : QPT_EXIT_OK;
}

int cmd_split(int argc, char **argv)
{
	struct args a = {.input = "perf.data"};
	struct qpt_split_opts o;
	struct qpt_split_result res = {.size = sizeof(res)};
	int ret = parse(argc, argv, &a), err;

	if (ret >= 0)
		return ret;
	if (cli_check_owner(a.input, a.force))
		return QPT_EXIT_ERROR;
	ret = make_dir(a.dir);
	if (ret)
		return ret;
	qpt_split_opts_init(&o);
	o.shards = (uint32_t)a.shards;
	err = qpt_split_file(a.input, a.dir, &o, &res);
	if (err) {
		if (res.errmsg[0] && res.errpos)
			cli_error_at(a.input, res.errpos, "%s", res.errmsg);
		else
			cli_error(a.input, "%s",
				  res.errmsg[0] ? res.errmsg
						: qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	if (res.shards < o.shards)
		cli_warn("%s: %u shards, not %u: the trace has %llu PSB-to-PSB "
			 "units",
			 a.input, res.shards, o.shards,
			 (unsigned long long)res.units);
	return list(a.dir, res.shards);
}
