// SPDX-License-Identifier: MIT
/*
 * qpt flame: a flame graph of the decoded call flow, as a self-contained
 * SVG (width: instructions) or as folded stacks.  It is qpt decode
 * --calls --format=flame|folded (cli/views.h) under its own options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char help[] =
	"usage: qpt flame [-i FILE] [-o FILE] [--format=svg|folded]\n\n"
	"A flame graph of the decoded call flow: each frame a function on the\n"
	"stack, as wide as the instructions that ran with it there; its\n"
	"tooltip gives its name, instructions and the calls that entered it.\n\n"
	"  -i, --input FILE        perf.data with Intel PT (default perf.data; - = stdin)\n"
	"  -o, --output FILE       where to write (default standard output)\n"
	"      --format=svg|folded an SVG picture (default), or folded stacks\n"
	"                          (flamegraph.pl's and speedscope's input)\n"
	"      --sysroot DIR, --symfs DIR  find recorded paths under DIR\n"
	"      --buildid-dir DIR   the build-id cache (default ~/.debug)\n"
	"  -f, --force             read a perf.data not owned by you or root\n"
	"  -h, --help              this help\n";

enum { OPT_FORMAT = 256, OPT_SYSROOT, OPT_BUILDID };

static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"sysroot", required_argument, NULL, OPT_SYSROOT},
	{"symfs", required_argument, NULL, OPT_SYSROOT},
	{"buildid-dir", required_argument, NULL, OPT_BUILDID},
	{"force", no_argument, NULL, 'f'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int cmd_flame(int argc, char **argv)
{
	char *dargv[16] = {"qpt decode", "--calls", "--format=flame"};
	int n = 3, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': dargv[n++] = "-i"; dargv[n++] = optarg; break;
		case 'o': dargv[n++] = "-o"; dargv[n++] = optarg; break;
		case 'f': dargv[n++] = "-f"; break;
		case OPT_SYSROOT: dargv[n++] = "--sysroot"; dargv[n++] = optarg; break;
		case OPT_BUILDID: dargv[n++] = "--buildid-dir"; dargv[n++] = optarg; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "svg") && strcmp(optarg, "folded"))
				return cli_usage_error("flame", "--format wants svg or folded, not '%s'", optarg);
			dargv[2] = strcmp(optarg, "svg") ? "--format=folded"
							 : "--format=flame";
			break;
		case 'h': fputs(help, stdout); return QPT_EXIT_OK;
		default: return cli_bad_option("flame");
		}
		/* each option once: the last one counts, the room stays */
		if (n > 12)
			return cli_usage_error("flame", "too many options");
	}
	if (optind < argc)
		return cli_usage_error("flame", "unexpected argument '%s'", argv[optind]);
	dargv[n] = NULL;
	return cmd_decode(n, dargv);
}
