// SPDX-License-Identifier: MIT
/*
 * qpt lbr: the call stack of every sample with a branch stack, as
 * perf script prints --call-graph lbr samples (the kernel callchain, the
 * function of the newest call-stack LBR entry, every entry's call site),
 * symbolized; --stitch adds the outer frames the LBR lost, from earlier
 * samples of the thread (marked "[stitched]").  --json: one object per
 * sample: "tid", "pid", "time", "ip", "callchain" (the call sites, "0x..."
 * strings, innermost first) and "stitched" (how many of the last ones
 * came from stitching).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/fields.h"
#include "cli/out.h"
#include "qpt/lbr.h"

static const char help[] =
	"usage: qpt lbr [-i FILE] [--stitch] [--json] [options]\n\n"
	"The call stack of each sample with a branch stack (perf record\n"
	"--call-graph lbr, or qpt inject --lbr-callstack), symbolized.\n\n"
	"  -i, --input FILE      input (default perf.data; - is stdin)\n"
	"      --stitch          give back the outer frames the LBR lost, from\n"
	"                        the thread's earlier samples (perf --stitch-lbr\n"
	"                        and more); they are marked [stitched]\n"
	"      --max-lbr N       the LBR depth (default: the file's\n"
	"                        CPU_PMU_CAPS branches)\n"
	"      --json            one JSON object per sample\n"
	"  -F, --fields LIST     the text's fields, as perf script -F names\n"
	"                        them: comm, pid, tid, cpu, time, period,\n"
	"                        event, ip (the call stack), sym, symoff, dso\n"
	"                        (+F, -F: to or from the default)\n"
	"      --sysroot DIR, --symfs DIR  find recorded paths under DIR\n"
	"      --buildid-dir DIR the build-id cache (default ~/.debug)\n"
	"      --no-demangle     C++, Rust and D names as in the binary\n"
	"      --srcline         the source file:line of each frame\n"
	"      --debuginfod[=URLS]  fetch missing binaries by build-id from\n"
	"                        these debuginfod servers (default:\n"
	"                        DEBUGINFOD_URLS, used whenever it is set)\n"
	"  -f, --force           read a file not owned by you or root\n"
	"  -h, --help            this help\n";

enum {
	OPT_STITCH = 256, OPT_JSON, OPT_SYSROOT, OPT_BUILDID, OPT_MAX_LBR,
	OPT_NO_DEMANGLE, OPT_DEBUGINFOD, OPT_SRCLINE,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, 'f' },
	{ "stitch", no_argument, NULL, OPT_STITCH },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "fields", required_argument, NULL, 'F' },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "symfs", required_argument, NULL, OPT_SYSROOT },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID },
	{ "max-lbr", required_argument, NULL, OPT_MAX_LBR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The text's fields (-F), in the order perf script prints them. */
enum {
	F_COMM = 1u << 0, F_PID = 1u << 1, F_TID = 1u << 2, F_CPU = 1u << 3,
	F_TIME = 1u << 4, F_PERIOD = 1u << 5, F_EVENT = 1u << 6,
	F_IP = 1u << 7, F_SYM = 1u << 8, F_SYMOFF = 1u << 9, F_DSO = 1u << 10,
	F_DEFAULT = F_COMM | F_TID | F_TIME | F_PERIOD | F_EVENT | F_IP |
		    F_SYM | F_SYMOFF | F_DSO,
};

static const struct field_name field_names[] = {
	{ "comm", F_COMM },	{ "pid", F_PID },     { "tid", F_TID },
	{ "cpu", F_CPU },	{ "time", F_TIME },   { "period", F_PERIOD },
	{ "event", F_EVENT },	{ "ip", F_IP },	      { "sym", F_SYM },
	{ "symoff", F_SYMOFF }, { "dso", F_DSO },
};

struct args {
	const char *input;
	bool json, force;
	unsigned fields;
	struct qpt_lbr_reader_opts ro;
};

/* The writer and the fields the text shows. */
struct printer {
	struct out w;
	unsigned fields;
	bool srcline; /* JSON: the frames' "srclines" */
};

static int parse_args(int argc, char **argv, struct args *a)
{
	char bad[80];
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fhF:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->input = optarg; break;
		case 'f': a->force = true; break;
		case OPT_STITCH: a->ro.stitch = true; break;
		case OPT_JSON: a->json = true; break;
		case 'F':
			switch (fields_parse_list(field_names,
						  sizeof(field_names) / sizeof(field_names[0]),
						  F_DEFAULT, optarg, &a->fields,
						  bad, sizeof(bad))) {
			case 0: break;
			case -2: return cli_usage_error("lbr", "-F: '%s': either every field with + or -, or none", bad);
			default: return cli_usage_error("lbr", "-F: '%s' is no field qpt lbr prints (comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso)", bad);
			}
			if ((a->fields & F_SYMOFF) && !(a->fields & F_SYM))
				return cli_usage_error("lbr", "-F: symoff goes with sym (as perf)");
			break;
		case OPT_SYSROOT: a->ro.sysroot = optarg; break;
		case OPT_BUILDID: a->ro.buildid_dir = optarg; break;
		case OPT_NO_DEMANGLE: a->ro.demangle = false; break;
		case OPT_SRCLINE: a->ro.srcline = true; break;
		case OPT_DEBUGINFOD:
			if (cli_debuginfod("lbr", optarg))
				return QPT_EXIT_USAGE;
			break;
		case OPT_MAX_LBR:
			if (cli_number("lbr", "--max-lbr", optarg, 1,
				       QPT_LBR_MAX_DEPTH, &v))
				return QPT_EXIT_USAGE;
			a->ro.max_lbr = (unsigned)v;
			break;
		case 'h': fputs(help, stdout); return QPT_EXIT_OK;
		default: return cli_bad_option("lbr");
		}
	}
	if (optind < argc)
		return cli_usage_error("lbr", "unexpected argument '%s'", argv[optind]);
	if (a->json && a->fields)
		return cli_usage_error("lbr", "-F picks the text's fields: no --json");
	return -1;
}

static void json_sample(struct out *w, const struct qpt_lbr_sample *s,
			bool srcline)
{
	size_t i;

	out_begin(w);
	out_kv_i64(w, "tid", s->tid);
	out_kv_i64(w, "pid", s->pid);
	out_kv_u64(w, "time", s->time);
	out_kv_hex(w, "ip", s->ip);
	out_array(w, "callchain");
	for (i = 0; i < s->nr_calls; i++) {
		out_elem(w);
		out_val_hex(w, s->calls[i]);
	}
	out_array_end(w);
	out_kv_u64(w, "stitched", s->stitched);
	if (srcline) {
		/* each frame's "FILE:LINE" (null: unknown), innermost first */
		out_array(w, "srclines");
		for (i = 0; i < s->nr_frames; i++) {
			const struct qpt_lbr_frame *f =
				qpt_lbr_sample_frame(s, i);

			out_elem(w);
			out_val_srcline(w, f->srcfile, f->srcline);
		}
		out_array_end(w);
	}
	out_end(w);
}

/* "\tADDR SYM+0xOFF (DSO)" as perf script prints a callchain entry (the
 * parts @f asks for): in a mapped file, the address as an offset in the
 * mapping. */
static void text_frame(struct out *w, unsigned f, const struct qpt_lbr_frame *fr)
{
	out_char(w, '\t');
	out_hex_pad(w, fr->dso ? fr->dso_addr : fr->addr, 16);
	if (f & (F_SYM | F_SYMOFF)) {
		out_char(w, ' ');
		if (fr->sym) {
			out_esc(w, fr->sym, strlen(fr->sym));
			if (f & F_SYMOFF) {
				out_lit(w, "+0x");
				out_hex(w, fr->symoff);
			}
		} else {
			out_lit(w, "[unknown]");
		}
	}
	if (f & F_DSO) {
		out_lit(w, " (");
		if (fr->dso)
			out_esc(w, fr->dso, strlen(fr->dso));
		else
			out_lit(w, "[unknown]");
		out_char(w, ')');
	}
	if (fr->source == QPT_FRAME_STITCHED)
		out_lit(w, " [stitched]");
	out_char(w, '\n');
	if (fr->srcfile) { /* perf script -F +srcline's line */
		out_lit(w, "  ");
		out_val_srcline(w, fr->srcfile, fr->srcline);
		out_char(w, '\n');
	}
}

/* perf script's "COMM PID/TID [CPU] SEC.USEC: PERIOD EVENT: " (the
 * fields asked for; the name unpadded before a call stack, as perf). */
static void text_head(struct out *w, unsigned f, const struct qpt_lbr_sample *s)
{
	if ((f & F_COMM) && s->comm) {
		if (f & F_IP)
			out_esc(w, s->comm, strlen(s->comm));
		else
			out_pad(w, s->comm, strlen(s->comm), 16);
		out_char(w, ' ');
	} else if (f & F_COMM) {
		out_lit(w, ":");
		out_i64(w, s->tid);
		out_char(w, ' ');
	}
	if ((f & F_PID) && (f & F_TID)) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%5d/%-5d ", s->pid, s->tid);
		out_cstr(w, buf);
	} else if (f & (F_PID | F_TID)) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%5d ", f & F_PID ? s->pid : s->tid);
		out_cstr(w, buf);
	}
	if (f & F_CPU) {
		char buf[16];

		snprintf(buf, sizeof(buf), "[%03d] ", (int)s->cpu);
		out_cstr(w, buf);
	}
	if (f & F_TIME) {
		out_dec_pad(w, s->time / 1000000000, 5, ' ');
		out_char(w, '.');
		out_dec_pad(w, s->time % 1000000000 / 1000, 6, '0');
		out_lit(w, ": ");
	}
	if (f & F_PERIOD) {
		out_dec_pad(w, s->period, 10, ' ');
		out_char(w, ' ');
	}
	if (f & F_EVENT) {
		if (s->event)
			out_esc(w, s->event, strlen(s->event));
		out_lit(w, ": ");
	}
}

/* The head line, then (with ip) the frames and a blank line. */
static void text_sample(struct out *w, unsigned f, const struct qpt_lbr_sample *s)
{
	size_t i;

	text_head(w, f, s);
	out_char(w, '\n');
	if (!(f & F_IP))
		return;
	for (i = 0; i < s->nr_frames; i++)
		text_frame(w, f, qpt_lbr_sample_frame(s, i));
	out_char(w, '\n');
}

static int on_sample(const struct qpt_lbr_sample *s, void *ctx)
{
	struct printer *p = ctx;

	if (p->w.json)
		json_sample(&p->w, s, p->srcline);
	else
		text_sample(&p->w, p->fields, s);
	return p->w.err;
}

int cmd_lbr(int argc, char **argv)
{
	static char buf[1 << 16];
	struct qpt_lbr_reader *r = NULL;
	struct args a;
	struct printer p;
	int err;

	memset(&a, 0, sizeof(a));
	qpt_lbr_reader_opts_init(&a.ro);
	a.ro.demangle = true;
	err = parse_args(argc, argv, &a);
	if (err >= 0)
		return err;
	if (!a.input)
		a.input = "perf.data";
	if (cli_check_owner(a.input, a.force))
		return QPT_EXIT_ERROR;
	a.ro.log = cli_log_warn;
	a.ro.log_ctx = (void *)a.input;
	err = qpt_lbr_reader_new(&a.ro, &r);
	if (err) {
		cli_error(NULL, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	out_init(&p.w, STDOUT_FILENO, a.json, buf, sizeof(buf));
	p.fields = a.fields ? a.fields : F_DEFAULT;
	p.srcline = a.ro.srcline;
	err = qpt_lbr_reader_run(r, a.input, on_sample, &p);
	if (out_flush(&p.w)) {
		qpt_lbr_reader_free(r);
		return cli_write_error(p.w.err);
	}
	if (err < 0) {
		if (err == -QPT_E_UNSUPPORTED)
			cli_error(a.input, "%s", qpt_lbr_reader_errmsg(r));
		else if (qpt_lbr_reader_errmsg(r)[0])
			cli_error_at(a.input, qpt_lbr_reader_errpos(r), "%s",
				     qpt_lbr_reader_errmsg(r));
		else
			cli_error(a.input, "%s", qpt_strerror(err));
	}
	qpt_lbr_reader_free(r);
	return err < 0 ? QPT_EXIT_ERROR : QPT_EXIT_OK;
}
