// SPDX-License-Identifier: MIT
/*
 * qpt dump: every record of a perf.data in file order, as one-line
 * summaries like `perf report -D`, or with --json as one JSON object per
 * line: "offset", "type" (perf's name), "size", "misc" and the decoded
 * fields.  Addresses are "0x..." strings (JSON numbers lose 64-bit values);
 * other integers are numbers.  With --pt, each Intel PT AUXTRACE record
 * is followed by its packets (dump_pt.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dump.h"
#include "cli/dump_pt.h"
#include "cli/perfmon_cli.h"

/* "[CPU ][TIME ][  ]0xOFFSET [0xSIZE]: PERF_RECORD_NAME" */
static void text_head(struct out *w, const struct qpt_record *r,
		      const char *name)
{
	if (r->sid.present & PERF_SAMPLE_CPU) {
		out_dec(w, r->sid.cpu);
		out_char(w, ' ');
	}
	if (r->sid.present & PERF_SAMPLE_TIME) {
		out_dec(w, r->sid.time);
		out_char(w, ' ');
	}
	if (r->depth)
		out_lit(w, "  ");
	out_lit(w, "0x");
	out_hex(w, r->pos);
	out_lit(w, " [0x");
	out_hex(w, r->size);
	out_lit(w, "]: PERF_RECORD_");
	out_cstr(w, name);
}

static void dump_record(struct out *w, const struct qpt_record *r)
{
	const char *name = qpt_record_type_name(r->type);
	char unknown[32];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "UNKNOWN_%u", r->type);
		name = unknown;
	}
	out_begin(w);
	if (w->json) {
		out_kv_u64(w, "offset", r->pos);
		out_kv_cstr(w, "type", name);
		out_kv_u64(w, "size", r->size);
		out_kv_u64(w, "misc", r->misc);
		if (r->depth)
			out_kv_u64(w, "depth", r->depth);
	} else {
		text_head(w, r, name);
	}
	if (w->json || !dump_summary(w, r))
		dump_fields(w, r);
	out_end(w);
	if (!w->json && r->type == PERF_RECORD_SAMPLE)
		dump_sample_lines(w, r);
}

/* A perfmon buffer: every record; the exit code. */
static int perfmon(const char *path, struct qpt_perfmon *pm, bool json)
{
	static char buf[1 << 16];
	struct out w;
	int err;

	out_init(&w, STDOUT_FILENO, json, buf, sizeof(buf));
	err = dump_perfmon(&w, pm);
	if (out_flush(&w))
		err = cli_write_error(w.err);
	else if (err)
		err = cli_perfmon_error(path, pm, err);
	qpt_perfmon_free(pm);
	return err;
}

static const char help[] =
	"usage: qpt dump [-i FILE] [--json] [--pt] [-f]\n\n"
	"Print every record of a perf.data file (or of a Fuchsia perfmon\n"
	"buffer) in file order.\n\n"
	"  -i, --input FILE  input (default perf.data; - is stdin)\n"
	"      --json        one JSON object per record and line\n"
	"      --pt          also every Intel PT packet of each AUXTRACE record,\n"
	"                    with its offset (as perf report -D)\n"
	"  -f, --force       read a file not owned by you or root\n"
	"  -h, --help        this help\n";

/* cli_parse_input's options and --pt; -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct cli_input *in, bool *pt)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{"pt", no_argument, NULL, 'p'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	in->input = "perf.data";
	in->json = in->force = *pt = false;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': in->input = optarg; break;
		case 'j': in->json = true; break;
		case 'p': *pt = true; break;
		case 'f': in->force = true; break;
		case 'h': fputs(help, stdout); return QPT_EXIT_OK;
		default: return cli_bad_option("dump");
		}
	}
	if (optind < argc)
		return cli_usage_error("dump", "unexpected argument '%s'",
				       argv[optind]);
	return -1;
}

/* Each record, with --pt (@pt) the packets of Intel PT AUXTRACE records
 * (*@is_pt: an Intel PT AUXTRACE_INFO came).  Returns 0 or -ENOMEM. */
static int dump_one(struct out *w, const struct qpt_record *rec, bool pt,
		    bool *is_pt)
{
	dump_record(w, rec);
	if (!pt)
		return 0;
	if (rec->type == QPT_RECORD_AUXTRACE_INFO)
		*is_pt = dump_u32(rec, 8) == QPT_AUXTRACE_INTEL_PT;
	if (rec->type == QPT_RECORD_AUXTRACE && *is_pt)
		return dump_pt_packets(w, rec);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct qpt_reader *r = NULL;
	struct qpt_perfmon *pm;
	struct qpt_record rec;
	static char buf[1 << 16];
	struct cli_input in;
	struct out w;
	bool pt, is_pt = false;
	int err;

	err = parse_args(argc, argv, &in, &pt);
	if (err >= 0)
		return err;
	err = cli_open_perfmon(in.input, in.force, &pm);
	if (err >= 0)
		return err ? err : perfmon(in.input, pm, in.json);
	if (cli_open_input(in.input, in.force, &r))
		return QPT_EXIT_ERROR;
	out_init(&w, STDOUT_FILENO, in.json, buf, sizeof(buf));
	while (!w.err && (err = qpt_reader_next(r, &rec)) > 0)
		err = dump_one(&w, &rec, pt, &is_pt);
	if (out_flush(&w)) {
		qpt_reader_free(r);
		return cli_write_error(w.err);
	}
	if (err == -ENOMEM)
		cli_error(in.input, "%s", qpt_strerror(err));
	else if (err < 0)
		cli_reader_error(in.input, r, err);
	qpt_reader_free(r);
	return err < 0 ? QPT_EXIT_ERROR : QPT_EXIT_OK;
}
