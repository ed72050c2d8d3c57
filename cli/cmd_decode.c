// SPDX-License-Identifier: MIT
/*
 * qpt decode: instruction, branch and call flows from Intel PT, as text
 * like perf script or as JSON Lines: options, filters (--tid, --cpu,
 * --time, --sym, --last) and the run.  Printing is in decode_print.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/decode_cov.h"
#include "cli/decode_fields.h"
#include "cli/decode_jobs.h"
#include "cli/decode_lbr.h"
#include "cli/decode_print.h"
#include "cli/decode_stats.h"
#include "cli/itrace.h"
#include "cli/views.h"
#include "qpt/decode.h"

static bool in_list(const int32_t *list, unsigned n, int32_t v)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static bool keep(const struct printer *o, const struct qpt_item *it)
{
	if (it->type == QPT_ITEM_EVENT) {
		/* enabled/disabled show as trace begin/end in branches */
		if (!o->events && (o->mode != MODE_INSN || o->fields) &&
		    (it->kind == QPT_EV_ENABLED || it->kind == QPT_EV_DISABLED))
			return false;
		/* the rest of the events only on request */
		if (!o->events && it->kind != QPT_EV_ENABLED &&
		    it->kind != QPT_EV_DISABLED && it->kind != QPT_EV_ERROR &&
		    it->kind != QPT_EV_OVERFLOW && it->kind != QPT_EV_LOST)
			return false;
		/* --itrace: errors and losses with e only, as perf */
		if (o->itrace && !o->itrace_errors &&
		    (it->kind == QPT_EV_ERROR || it->kind == QPT_EV_OVERFLOW ||
		     it->kind == QPT_EV_LOST))
			return false;
	}
	if (o->br_filter && it->type == QPT_ITEM_BRANCH &&
	    (it->kind >= 32 || !(o->br_mask & (1u << it->kind))))
		return false;
	if (o->nr_tids && !in_list(o->tids, o->nr_tids, it->tid))
		return false;
	if (o->nr_cpus && !in_list(o->cpus, o->nr_cpus, it->cpu))
		return false;
	if (o->has_time && (it->flags & QPT_ITEM_HAS_TIME) &&
	    (it->time < o->t_start || it->time > o->t_end))
		return false;
	if (o->sym && it->type == QPT_ITEM_EVENT)
		return it->kind == QPT_EV_ERROR || it->kind == QPT_EV_LOST ||
		       it->kind == QPT_EV_OVERFLOW;
	if (o->sym && !cli_sym_is(it->sym, o->sym))
		return false;
	return true;
}

static struct ring *ring_for(struct printer *o, int32_t tid)
{
	struct ring *r;
	size_t i;

	for (i = 0; i < o->nr_rings; i++)
		if (o->rings[i].tid == tid)
			return &o->rings[i];
	r = realloc(o->rings, (o->nr_rings + 1) * sizeof(*r));
	if (!r)
		return NULL;
	o->rings = r;
	r = &o->rings[o->nr_rings];
	r->tid = tid;
	r->count = 0;
	r->items = calloc(o->last, sizeof(*r->items));
	r->msgs = calloc(o->last, sizeof(*r->msgs));
	r->depths = calloc(o->last, sizeof(*r->depths));
	if (!r->items || !r->msgs || !r->depths) {
		free(r->items);
		free(r->msgs);
		free(r->depths);
		return NULL;
	}
	o->nr_rings++;
	return r;
}

/* Keep @it in its thread's ring, with its own copy of the message (the
 * item's pointers but the symbols are valid during the callback only). */
static int ring_push(struct printer *o, const struct qpt_item *it)
{
	struct ring *r = ring_for(o, it->tid);
	size_t k;

	if (!r)
		return -ENOMEM;
	k = (size_t)(r->count % o->last);
	free(r->msgs[k]);
	r->msgs[k] = NULL;
	r->items[k] = *it;
	r->depths[k] = o->call_depth;
	if (it->msg) {
		r->msgs[k] = strdup(it->msg);
		if (!r->msgs[k])
			return -ENOMEM;
		r->items[k].msg = r->msgs[k];
	}
	r->count++;
	return 0;
}

/* --itrace=iPERIOD: whether the instruction @it is one of its queue's
 * samples: every period-th instruction (perf's count: the period-th is
 * the first), or the first one in each period of time after the
 * queue's first (a timer's tick).  -ENOMEM when out of memory. */
static int sampled(struct printer *o, const struct qpt_item *it)
{
	struct sampler *s = NULL;
	uint64_t win;
	size_t i;

	for (i = 0; i < o->nr_samplers && !s; i++)
		if (o->samplers[i].queue == it->queue)
			s = &o->samplers[i];
	win = it->flags & QPT_ITEM_HAS_TIME ? it->time / o->period : 0;
	if (!s) {
		s = realloc(o->samplers, (o->nr_samplers + 1) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		o->samplers = s;
		s = &o->samplers[o->nr_samplers++];
		s->queue = it->queue;
		s->n = o->period_insns ? 0 : win;
	}
	if (o->period_insns)
		return ++s->n % o->period == 0;
	if (win == s->n)
		return 0;
	s->n = win;
	return 1;
}

/* An item that is no plain instruction: filtered, kept for --last or
 * printed. */
static __attribute__((noinline)) int on_other(struct printer *o,
					      const struct qpt_item *it)
{
	int due;

	print_run_note(o, it);
	if (o->period && it->type == QPT_ITEM_INSN &&
	    (due = sampled(o, it)) <= 0)
		return due;
	if (o->mode == MODE_CALLS && it->type == QPT_ITEM_BRANCH) {
		if (decode_call_depth(o, it))
			return -ENOMEM;
		/* a jump prints nothing, nor takes --last's room */
		if (!decode_is_call(it))
			return 0;
	}
	if (!keep(o, it))
		return 0;
	if (o->last)
		return ring_push(o, it);
	print_item(o, it);
	return o->w.err;
}

/* Each item; instructions and branches without a filter take the
 * shortest way (this runs once per executed instruction or branch). */
static int on_item(const struct qpt_item *it, void *ctx)
{
	struct printer *o = ctx;

	if (it->type == QPT_ITEM_BRANCH && o->plain_branch) {
		if (it->run && print_run(o, it)) /* its lines told: not the */
			return o->w.err ? o->w.err : QPT_ITEM_RUN_TOLD; /* rest */
		print_item(o, it);
		return o->w.err;
	}
	if (it->type != QPT_ITEM_INSN || !o->plain)
		return on_other(o, it);
	print_insn(o, it);
	return o->w.err;
}

static void flush_rings(struct printer *o)
{
	size_t i;

	for (i = 0; i < o->nr_rings; i++) {
		struct ring *r = &o->rings[i];
		uint64_t n = r->count < o->last ? r->count : o->last;
		uint64_t k;

		for (k = r->count - n; k < r->count; k++) {
			o->call_depth = r->depths[k % o->last];
			print_item(o, &r->items[k % o->last]);
		}
		for (k = 0; k < n; k++)
			free(r->msgs[k]);
		free(r->msgs);
		free(r->items);
		free(r->depths);
	}
	free(o->rings);
	o->rings = NULL;
	o->nr_rings = 0;
}

/* A comma-separated list of numbers (cli_parse_u64, up to INT32_MAX). */
static int parse_list(const char *s, int32_t *list, unsigned *n)
{
	char item[32];
	uint64_t v;
	size_t len;

	while (*s) {
		len = strcspn(s, ",");
		if (len >= sizeof(item) || *n >= MAX_LIST)
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		if (cli_parse_u64(item, 0, INT32_MAX, &v))
			return -1;
		list[(*n)++] = (int32_t)v;
		s += len;
		if (*s && !*++s)
			return -1; /* a trailing comma */
	}
	return 0;
}

/* perf-style time: SEC[.NSEC] as nanoseconds; empty = @dflt. */
static int parse_time(const char *s, size_t n, uint64_t dflt, uint64_t *t)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0, digits = 0;

	if (!n) {
		*t = dflt;
		return 0;
	}
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	if (!i)
		return -1;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (digits++ < 9)
				ns = ns * 10 + (uint64_t)(s[i] - '0');
		for (; digits < 9; digits++)
			ns *= 10;
	}
	if (i != n)
		return -1;
	*t = sec * 1000000000ULL + ns;
	return 0;
}

static int parse_image(const char *arg, char **path, uint64_t *addr)
{
	const char *at = strrchr(arg, '@');

	if (!at || at == arg || cli_parse_u64(at + 1, 0, UINT64_MAX, addr))
		return -1;
	*path = strndup(arg, (size_t)(at - arg));
	return *path ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: qpt decode [-i perf.data | --raw FILE.pt] [options]\n"
		"  -i, --input FILE        perf.data with Intel PT (default perf.data; - = stdin)\n"
		"  -f, --force             read a perf.data not owned by you or root\n"
		"      --raw FILE          a bare Intel PT stream (like ptxed --raw)\n"
		"      --image FILE@ADDR   load FILE as raw memory at ADDR (repeatable)\n"
		"      --sysroot DIR, --symfs DIR  find recorded paths under DIR\n"
		"      --buildid-dir DIR   the build-id cache (default ~/.debug)\n"
		"      --debuginfod[=URLS] fetch missing binaries by build-id from\n"
		"                          these debuginfod servers (default:\n"
		"                          DEBUGINFOD_URLS, used whenever it is set)\n"
		"      --insn              every instruction (default)\n"
		"      --branches          every taken branch\n"
		"      --calls             calls and returns, indented by depth\n"
		"      --events            also show mode, paging, tsx... events\n"
		"      --json              JSON Lines\n"
		"      --itrace=OPTS       perf's: i[PERIOD] (instructions; PERIOD: Ni, or\n"
		"                          Nns, Nus, Nms), b (branches), c, r (calls,\n"
		"                          returns), e (errors), l[N] (with iNi: the last\n"
		"                          N branches every N instructions)\n"
		"  -F, --fields LIST       the text's fields, as perf script -F names them:\n"
		"                          pid, tid, cpu, time, flags, ip, sym, symoff,\n"
		"                          addr, srcline, insnlen, insn, disasm (+F, -F:\n"
		"                          to or from the default)\n"
		"      --tid LIST, --cpu LIST   only these threads / cpus\n"
		"      --time START,END    only this perf time range (sec.nsec)\n"
		"      --sym FUNC          only in function FUNC\n"
		"      --no-sym            do not show symbols\n"
		"      --no-demangle       C++, Rust and D names as in the binary\n"
		"      --srcline           the source file:line of each instruction or\n"
		"                          branch (DWARF; the debug file by build-id)\n"
		"      --disasm            instructions with their text (the default)\n"
		"      --no-asm            instructions as bytes only, without their text\n"
		"      --no-sort           each queue (cpu or thread) whole, in turn, not\n"
		"                          merged by time\n"
		"  -j, --jobs N            decode on N threads (default: the online cpus;\n"
		"                          --calls, --last, --lbr, --stats, --coverage and\n"
		"                          --itrace=i... decode on one)\n"
		"      --last N            only the last N items of each thread (N <= 1048576)\n"
		"      --lbr[=N]           LBR records: the last N (default 32, <= 1024) taken\n"
		"                          branches at the end of each thread, each sample\n"
		"      --lbr-period INSNS  ... and every INSNS instructions of a thread\n"
		"      --format=perfmon -o FILE  write the LBR records as a perfmon buffer\n"
		"      --format=chrome-trace|flame|folded [-o, --output FILE]  with --calls:\n"
		"                          the call flow as Chrome trace-event JSON (a slice\n"
		"                          per call), an SVG flame graph or folded stacks\n"
		"      --stats             counts only: instructions and taken branches per\n"
		"                          thread, instructions and calls per function\n"
		"      --coverage[=drcov|edges]  basic blocks as a drcov log (Lighthouse,\n"
		"                          bncov), or edges: from, to and count (-o FILE)\n"
		"      --engine=fast|libipt  qpt's fast block decoder (default), or libipt's\n"
		"                          alone (the same output; the reference)\n");
}

enum {
	OPT_RAW = 256, OPT_IMAGE, OPT_SYSROOT, OPT_BUILDID, OPT_INSN,
	OPT_BRANCHES, OPT_CALLS, OPT_EVENTS, OPT_JSON, OPT_TID, OPT_CPU,
	OPT_TIME, OPT_SYM, OPT_LAST, OPT_NO_SYM, OPT_LBR, OPT_LBR_PERIOD,
	OPT_FORMAT, OPT_NO_ASM, OPT_ENGINE, OPT_STATS, OPT_NO_DEMANGLE,
	OPT_DEBUGINFOD, OPT_DISASM, OPT_COVERAGE, OPT_ITRACE, OPT_SRCLINE,
	OPT_NO_SORT,
};

static const struct option longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "force", no_argument, NULL, 'f' },
	{ "raw", required_argument, NULL, OPT_RAW },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "symfs", required_argument, NULL, OPT_SYSROOT },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID },
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },
	{ "insn", no_argument, NULL, OPT_INSN },
	{ "branches", no_argument, NULL, OPT_BRANCHES },
	{ "calls", no_argument, NULL, OPT_CALLS },
	{ "events", no_argument, NULL, OPT_EVENTS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "fields", required_argument, NULL, 'F' },
	{ "itrace", required_argument, NULL, OPT_ITRACE },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "sym", required_argument, NULL, OPT_SYM },
	{ "no-sym", no_argument, NULL, OPT_NO_SYM },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "no-asm", no_argument, NULL, OPT_NO_ASM },
	{ "disasm", no_argument, NULL, OPT_DISASM },
	{ "no-sort", no_argument, NULL, OPT_NO_SORT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "lbr", optional_argument, NULL, OPT_LBR },
	{ "lbr-period", required_argument, NULL, OPT_LBR_PERIOD },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "coverage", optional_argument, NULL, OPT_COVERAGE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct args {
	const char *input, *raw;
	char *images[256];
	uint64_t addrs[256];
	unsigned nr_images;
	bool force;
	bool mode_given; /* --insn, --branches or --calls */
	bool stats;	 /* --stats */
	bool disasm;	 /* --disasm */
	const char *fields; /* -F */
	const char *itrace; /* --itrace */
	enum cov_form cov; /* --coverage */
	enum view_kind view; /* --format=chrome-trace, flame, folded */
	struct qpt_decoder_opts dopts;
	struct lbr_args lbr;
};

/* --lbr[=N], --lbr-period N, --format=perfmon, -o FILE; nonzero: a usage
 * error (printed). */
static int parse_lbr(int c, struct lbr_args *l)
{
	uint64_t v = 0;

	if (c == 'o') {
		l->output = optarg;
		return 0;
	}
	if (c == OPT_FORMAT) {
		if (strcmp(optarg, "perfmon"))
			return cli_usage_error("decode", "--format wants perfmon, chrome-trace, flame or folded, not '%s'", optarg);
		l->perfmon = true;
		return 0;
	}
	if (optarg && cli_number("decode",
				 c == OPT_LBR ? "--lbr" : "--lbr-period", optarg,
				 1, c == OPT_LBR ? QPT_LBR_MAX_DEPTH : UINT64_MAX,
				 &v))
		return QPT_EXIT_USAGE;
	if (c == OPT_LBR)
		l->depth = optarg ? (unsigned)v : 32;
	else
		l->period = v;
	return 0;
}

/* -F LIST: text instructions or branches (parsed once the mode is
 * known: "+F" and "-F" change that mode's default). */
static int parse_fields(const struct args *a, struct printer *o)
{
	char bad[80];

	if (o->json || o->mode == MODE_CALLS || a->stats || a->cov ||
	    a->view || a->lbr.depth)
		return cli_usage_error("decode", "-F picks the text fields of --insn or --branches: no --json, --calls, --stats, --coverage, --format or --lbr");
	if (o->srcline)
		return cli_usage_error("decode", "-F says whether to show source lines (the srcline field): no --srcline");
	if (a->disasm || o->no_asm)
		return cli_usage_error("decode", "-F says whether to show the instruction's text (the disasm field): no --disasm or --no-asm");
	switch (fields_parse(a->fields, o->mode, &o->fields, bad, sizeof(bad))) {
	case 0: break;
	case -2: return cli_usage_error("decode", "-F: '%s': either every field with + or -, or none", bad);
	default: return cli_usage_error("decode", "-F: '%s' is no field qpt prints (%s)", bad, fields_names());
	}
	if ((o->fields & FIELD_SYMOFF) && !(o->fields & FIELD_SYM))
		return cli_usage_error("decode", "-F: symoff goes with sym (as perf)");
	if (o->mode == MODE_INSN && (o->fields & (FIELD_FLAGS | FIELD_ADDR)))
		return cli_usage_error("decode", "-F: flags and addr are fields of branches: --branches");
	return 0;
}

/* The kinds c and r keep, as perf's calls and returns filters: calls,
 * interrupts and trace ends; returns and trace starts. */
#define BR(k) (1u << QPT_BR_##k)
#define CALL_KINDS (BR(CALL) | BR(IND_CALL) | BR(SYSCALL) | BR(INT) | \
		    BR(ASYNC) | BR(TRACE_END))
#define RETURN_KINDS (BR(RET) | BR(SYSRET) | BR(IRET) | BR(TRACE_BEGIN))

/* --itrace=OPTS onto qpt's views (before the checks of the views). */
static int apply_itrace(struct args *a, struct printer *o)
{
	struct itrace t;
	char why[128];

	if (a->mode_given || a->lbr.depth || a->stats || a->cov || a->view)
		return cli_usage_error("decode", "--itrace chooses the view: no --insn, --branches, --calls, --lbr, --stats, --coverage or --format");
	if (itrace_parse(a->itrace, &t, why, sizeof(why)))
		return cli_usage_error("decode", "--itrace=%s: %s", a->itrace, why);
	o->itrace = true;
	o->itrace_errors = t.errors;
	o->mode = t.insn ? MODE_INSN : MODE_BRANCHES;
	if (!t.insn && !t.branches) { /* c, r, or e alone */
		o->br_filter = true;
		o->br_mask = (t.calls ? CALL_KINDS : 0) |
			     (t.returns ? RETURN_KINDS : 0);
	}
	if (t.lbr) { /* LBR records every period instructions */
		if (t.unit != ITRACE_INSNS || !t.period)
			return cli_usage_error("decode", "--itrace=%s: l wants i's period in instructions (i1000il)", a->itrace);
		a->lbr.depth = t.lbr;
		a->lbr.period = t.period;
		o->mode = MODE_INSN;
		o->itrace = false; /* the LBR view has its own rules */
		return 0;
	}
	o->period = t.period;
	o->period_insns = t.unit == ITRACE_INSNS;
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a, struct printer *o)
{
	const char *comma;
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fho:F:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->input = optarg; break;
		case 'f': a->force = true; break;
		case OPT_RAW: a->raw = optarg; break;
		case OPT_IMAGE:
			if (a->nr_images >= 256)
				return cli_usage_error("decode", "too many --image");
			if (parse_image(optarg, &a->images[a->nr_images],
					&a->addrs[a->nr_images]))
				return cli_usage_error("decode",
					"--image wants FILE@ADDR, not '%s'", optarg);
			a->nr_images++;
			break;
		case OPT_SYSROOT: a->dopts.sysroot = optarg; break;
		case OPT_BUILDID: a->dopts.buildid_dir = optarg; break;
		case OPT_INSN: o->mode = MODE_INSN; a->mode_given = true; break;
		case OPT_BRANCHES: o->mode = MODE_BRANCHES; a->mode_given = true; break;
		case OPT_CALLS: o->mode = MODE_CALLS; a->mode_given = true; break;
		case OPT_STATS: a->stats = true; break;
		case OPT_EVENTS: o->events = true; break;
		case OPT_JSON: o->json = true; break;
		case 'F': a->fields = optarg; break;
		case OPT_ITRACE: a->itrace = optarg; break;
		case OPT_TID:
			if (parse_list(optarg, o->tids, &o->nr_tids))
				return cli_usage_error("decode", "bad --tid '%s'", optarg);
			break;
		case OPT_CPU:
			if (parse_list(optarg, o->cpus, &o->nr_cpus))
				return cli_usage_error("decode", "bad --cpu '%s'", optarg);
			break;
		case OPT_TIME:
			comma = strchr(optarg, ',');
			if (!comma ||
			    parse_time(optarg, (size_t)(comma - optarg), 0, &o->t_start) ||
			    parse_time(comma + 1, strlen(comma + 1), UINT64_MAX, &o->t_end))
				return cli_usage_error("decode", "--time wants START,END, not '%s'", optarg);
			o->has_time = true;
			break;
		case OPT_SYM: o->sym = optarg; break;
		case OPT_NO_SYM: o->no_sym = true; break;
		case OPT_NO_DEMANGLE: a->dopts.demangle = false; break;
		case OPT_SRCLINE: o->srcline = true; break;
		case OPT_DEBUGINFOD:
			if (cli_debuginfod("decode", optarg))
				return QPT_EXIT_USAGE;
			break;
		case OPT_NO_ASM: o->no_asm = true; break;
		case OPT_DISASM: a->disasm = true; break;
		case OPT_NO_SORT: a->dopts.flags |= QPT_DECODE_NO_SORT; break;
		case 'j':
			if (cli_number("decode", "-j", optarg, 1,
					       QPT_DECODE_MAX_JOBS, &v))
				return QPT_EXIT_USAGE;
			a->dopts.jobs = (unsigned)v;
			break;
		case OPT_LAST:
			if (cli_number("decode", "--last", optarg, 1, 1u << 20,
				       &o->last))
				return QPT_EXIT_USAGE;
			break;
		case OPT_COVERAGE:
			if (!optarg || !strcmp(optarg, "drcov"))
				a->cov = COV_DRCOV;
			else if (!strcmp(optarg, "edges"))
				a->cov = COV_EDGES;
			else
				return cli_usage_error("decode", "--coverage wants drcov or edges, not '%s'", optarg);
			break;
		case OPT_FORMAT:
			a->view = view_kind(optarg);
			if (a->view == VIEW_NONE && parse_lbr(c, &a->lbr))
				return QPT_EXIT_USAGE;
			break;
		case OPT_LBR:
		case OPT_LBR_PERIOD:
		case 'o':
			if (parse_lbr(c, &a->lbr))
				return QPT_EXIT_USAGE;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "fast") && strcmp(optarg, "libipt"))
				return cli_usage_error("decode", "--engine wants fast or libipt, not '%s'", optarg);
			a->dopts.libipt_only = !strcmp(optarg, "libipt");
			break;
		case 'h': usage(stdout); return -1;
		default: return cli_bad_option("decode");
		}
	}
	if (optind < argc)
		return cli_usage_error("decode", "unexpected argument '%s'", argv[optind]);
	if (a->itrace && apply_itrace(a, o))
		return QPT_EXIT_USAGE;
	if (a->lbr.depth && (o->nr_tids || o->nr_cpus || o->has_time || o->sym ||
			     o->last || o->mode != MODE_INSN || o->events))
		return cli_usage_error("decode", "--lbr prints LBR records: no --insn, --branches, --calls, --events, --tid, --cpu, --time, --sym or --last");
	if (a->stats && (a->mode_given || a->lbr.depth || o->nr_tids ||
			 o->nr_cpus || o->has_time || o->sym || o->last ||
			 o->events))
		return cli_usage_error("decode", "--stats counts the whole trace: no --insn, --branches, --calls, --lbr, --events, --tid, --cpu, --time, --sym or --last");
	if (a->disasm && o->no_asm)
		return cli_usage_error("decode", "--disasm and --no-asm: one or the other");
	if (a->cov && (a->stats || a->mode_given || a->lbr.depth || a->view ||
		       o->nr_tids || o->nr_cpus || o->has_time || o->sym ||
		       o->last || o->events))
		return cli_usage_error("decode", "--coverage counts the whole trace: no --stats, --insn, --branches, --calls, --lbr, --format, --events, --tid, --cpu, --time, --sym or --last");
	if (a->cov == COV_DRCOV && o->json)
		return cli_usage_error("decode", "--coverage=drcov writes drcov's own format: no --json");
	if (a->view && (a->lbr.depth || a->stats || o->mode != MODE_CALLS ||
			o->json || o->nr_tids || o->nr_cpus || o->has_time ||
			o->sym || o->last || o->events))
		return cli_usage_error("decode", "--format=%s draws the whole call flow: --calls, and no --lbr, --stats, --json, --events, --tid, --cpu, --time, --sym or --last", a->view == VIEW_CHROME ? "chrome-trace" : a->view == VIEW_FLAME ? "flame" : "folded");
	if ((a->lbr.period || a->lbr.perfmon ||
	     (a->lbr.output && !a->cov && !a->view)) && !a->lbr.depth)
		return cli_usage_error("decode", "--lbr-period, --format and -o go with --lbr (-o also with --coverage and --format=VIEW)");
	if (!a->cov && !a->view && a->lbr.perfmon != !!a->lbr.output)
		return cli_usage_error("decode", "--format=perfmon needs -o FILE, and -o --format=perfmon");
	if (a->raw && a->input)
		return cli_usage_error("decode", "--raw and -i exclude each other");
	return a->fields ? parse_fields(a, o) : 0;
}

/*
 * Map the --raw file read-only, or print why not ("qpt: FILE: ...") and
 * return QPT_EXIT_ERROR: it must be a regular file (O_NONBLOCK: a FIFO
 * must not block the open) holding at least one byte of trace.
 */
static int map_raw(const char *path, void **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	const char *why = NULL;

	*buf = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (!st.st_size)
		why = "empty file: no Intel PT trace to decode";
	if (!why) {
		*buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			    fd, 0);
		if (*buf == MAP_FAILED) {
			*buf = NULL;
			why = strerror(errno);
		} else {
			*len = (size_t)st.st_size;
		}
	}
	if (fd >= 0)
		close(fd);
	if (why)
		cli_error(path, "%s", why);
	return why ? QPT_EXIT_ERROR : 0;
}

/* Missing images the trace ran into, one line each; the others counted. */
static void report_missing(struct qpt_decoder *dec, const char *name)
{
	const struct qpt_missing_image *m;
	size_t n = qpt_decoder_missing(dec, &m), i, unused = 0;

	for (i = 0; i < n; i++) {
		if (!m[i].errors) {
			unused++;
			continue;
		}
		cli_warn("%s: image %s %s: %" PRIu64 " decode gap%s, %" PRIu64
			 " trace bytes skipped", name, m[i].path, m[i].reason,
			 m[i].errors, m[i].errors == 1 ? "" : "s",
			 m[i].bytes);
	}
	if (unused)
		cli_warn("%s: %zu more recorded image%s not found (not reached "
			 "by the decoded trace)", name, unused,
			 unused == 1 ? "" : "s");
}

/* The decoder's failure @err on @name: its message at its offset when it
 * has one.  Returns QPT_EXIT_ERROR. */
static int decode_error(struct qpt_decoder *dec, const char *name, int err)
{
	if (qpt_decoder_errmsg(dec)[0] && err == -QPT_E_UNSUPPORTED)
		cli_error(name, "%s", qpt_decoder_errmsg(dec));
	else if (qpt_decoder_errmsg(dec)[0])
		cli_error_at(name, qpt_decoder_errpos(dec), "%s",
			     qpt_decoder_errmsg(dec));
	else
		cli_error(name, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

/*
 * The end of a run that returned @err: what --last kept is printed, the
 * output flushed, then the first thing wrong is reported (a write error,
 * the decoder's error, a trace that nothing could be decoded from) and
 * missing images are warned about.  Returns the exit code.
 */
static int finish(struct qpt_decoder *dec, const char *name, int err,
		  struct printer *o)
{
	struct qpt_decode_stats st;

	if (o->last)
		flush_rings(o);
	out_flush(&o->w);
	cli_meter_end(&o->meter);
	if (o->w.err)
		return cli_write_error(o->w.err);
	if (err)
		return decode_error(dec, name, err);
	report_missing(dec, name);
	qpt_decoder_stats(dec, &st);
	if (!st.insns && st.trace_bytes) {
		cli_error(name, "no instruction could be decoded (%" PRIu64
			  " errors, %" PRIu64 " of %" PRIu64
			  " trace bytes skipped)", st.errors, st.skipped_bytes,
			  st.trace_bytes);
		return QPT_EXIT_ERROR;
	}
	return QPT_EXIT_OK;
}

static int run(struct args *a, struct printer *o)
{
	struct view *view = NULL;
	struct qpt_decoder *dec = NULL;
	struct lbr_run lr = { 0 };
	struct stats_run st = { 0 };
	qpt_item_fn fn = on_item;
	void *ctx = o;
	const char *name;
	void *buf = NULL;
	size_t len = 0;
	unsigned i;
	int err, rc = QPT_EXIT_OK;

	name = a->raw ? a->raw : a->input ? a->input : "perf.data";
	if ((rc = cli_check_dir("--sysroot", a->dopts.sysroot)) ||
	    (rc = cli_check_dir("--buildid-dir", a->dopts.buildid_dir)) ||
	    (!a->raw && (rc = cli_check_owner(name, a->force))))
		return rc;
	a->dopts.log = cli_log_warn;
	a->dopts.log_ctx = (void *)name;
	if (o->fields && !(o->fields & (FIELD_SYM | FIELD_SYMOFF)))
		o->no_sym = true; /* names not asked for: not looked up */
	a->dopts.want = (o->no_sym && !o->sym ? 0 : QPT_WANT_SYMBOLS) |
			(o->mode == MODE_INSN ? QPT_WANT_INSN : QPT_WANT_BRANCH) |
			(o->events || o->mode == MODE_INSN ? QPT_WANT_EVENT : 0) |
			(o->srcline || (o->fields & FIELD_SRCLINE) ?
				 QPT_WANT_SRCLINE : 0);
	if (o->mode == MODE_BRANCHES &&
	    (o->fields & (FIELD_INSN | FIELD_INSNLEN | FIELD_DISASM)))
		a->dopts.want |= QPT_WANT_BRANCH_INSN;
	if (a->lbr.depth)
		a->dopts.want = lbr_want(&a->lbr);
	if (a->stats || a->cov) {
		a->dopts.want = a->stats ? QPT_WANT_PROFILE : QPT_WANT_COVERAGE;
		fn = stats_item; /* errors and overflows counted, not shown */
		ctx = &st;
	}
	if (a->view) {
		a->dopts.want = QPT_WANT_INSN | QPT_WANT_BRANCH |
				QPT_WANT_SYMBOLS;
		view = calloc(1, sizeof(*view));
		if (!view || view_open(view, a->view, a->lbr.output)) {
			if (!view)
				cli_error(NULL, "out of memory");
			free(view);
			return QPT_EXIT_ERROR;
		}
		fn = view_item;
		ctx = view;
	}
	if (cli_meter_start(&o->meter, "qpt decode")) {
		a->dopts.progress = cli_meter_tell;
		a->dopts.progress_ctx = &o->meter;
	}
	err = qpt_decoder_new(&a->dopts, &dec);
	if (err) {
		cli_error(NULL, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	for (i = 0; i < a->nr_images; i++) {
		err = qpt_decoder_add_image(dec, a->images[i], a->addrs[i]);
		if (err) {
			cli_error(a->images[i], "%s",
				  *qpt_decoder_errmsg(dec) ?
					  qpt_decoder_errmsg(dec) :
					  qpt_strerror(err));
			rc = QPT_EXIT_ERROR;
			goto out;
		}
	}
	if (a->lbr.depth) {
		rc = lbr_start(&lr, &a->lbr, &o->w, a->raw ? NULL : name);
		if (rc)
			goto out;
		fn = qpt_lbr_item;
		ctx = lr.lbr;
	}
	if (a->raw) {
		rc = map_raw(a->raw, &buf, &len);
		if (rc)
			goto out;
		err = qpt_decoder_run_raw(dec, buf, len, fn, ctx);
	} else if (decode_jobs_wanted(a->dopts.jobs, o) && !a->lbr.depth &&
		   !a->stats && !a->cov && !a->view) {
		err = decode_jobs_run(dec, name, o, on_item);
	} else {
		err = qpt_decoder_run_file(dec, name, fn, ctx);
	}
	if (a->lbr.depth)
		err = lbr_end(&lr, err);
	if (a->stats && !err)
		err = stats_print(&st, dec, &o->w, o->json);
	if (view && !err && (err = view_finish(view)) < 0 && err > -4096) {
		cli_error(a->lbr.output ? a->lbr.output : "standard output",
			  "%s", strerror(-err));
		rc = QPT_EXIT_ERROR;
		goto out;
	}
	rc = finish(dec, name, err, o);
	if (!rc && a->lbr.depth)
		rc = lbr_save(&lr);
	if (!rc && a->cov)
		rc = cov_print(dec, a->cov, a->lbr.output, &o->w);
out:
	if (buf)
		munmap(buf, len);
	if (view)
		view_free(view);
	free(view);
	lbr_free(&lr);
	stats_free(&st);
	qpt_decoder_free(dec);
	return rc;
}

int cmd_decode(int argc, char **argv)
{
	struct args a;
	struct printer *o;
	unsigned i;
	int rc;

	memset(&a, 0, sizeof(a));
	qpt_decoder_opts_init(&a.dopts);
	a.dopts.demangle = true;
	o = printer_new();
	if (!o) {
		cli_error(NULL, "out of memory");
		return QPT_EXIT_ERROR;
	}
	rc = parse_args(argc, argv, &a, o);
	if (rc) {
		rc = rc < 0 ? QPT_EXIT_OK : rc;
		goto out;
	}
	o->plain = !o->nr_tids && !o->nr_cpus && !o->has_time && !o->sym &&
		   !o->last && !o->fields && !o->period;
	o->plain_branch = o->plain && !o->br_filter && o->mode != MODE_CALLS;
	decode_print_init(o);
	rc = run(&a, o);
out:
	for (i = 0; i < a.nr_images; i++)
		free(a.images[i]);
	free(o->rings);
	free(o->samplers);
	free(o->depths);
	printer_free(o);
	return rc;
}
