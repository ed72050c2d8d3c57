// SPDX-License-Identifier: MIT
/*
 * qpt crash: what a program did before it died, from a recording with
 * crash facts (qpt record --emulate, qpt/crash.h): the signal and its
 * si_code, the fault address, the faulting instruction, the call stack
 * rebuilt from the trace, the last taken branches and instructions, and
 * with --all-threads the other threads.  JSON: one object.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/crash_print.h"
#include "cli/crash_syms.h"
#include "cli/crash_unwind.h"
#include "cli/out.h"
#include "cli/signals.h"
#include "qpt/crash.h"
#include "qpt/crash_walk.h"
#include "qpt/reader.h"

struct crash_args {
	const char *input, *sysroot;
	unsigned last, insns;
	bool all_threads, json, force;
	bool raw_names; /* --no-demangle */
};

struct crash_ctx {
	struct crash_args a;
	struct qpt_decoder *dec;
	struct qpt_crash_walk *walk;
	struct crash_thr thr; /* the crashed thread's */
	const struct qpt_crash *c;
	struct crash_syms *syms;
	char comm[17];
};

static const char help[] =
    "usage: qpt crash [-i FILE] [--last N] [--insns K] [--all-threads] "
    "[--json] [--sysroot DIR]\n"
    "The last moments of a program that died of a signal, from a "
    "recording made\n"
    "with qpt record --emulate [--snapshot]: signal and si_code, fault "
    "address,\n"
    "faulting instruction, the call stack rebuilt from the trace, the "
    "last N\n"
    "taken branches (newest first) and the last K instructions.\n"
    "  -i, --input FILE   perf.data to read (default perf.data)\n"
    "      --last N       taken branches to show (default 16, at most "
    "1024)\n"
    "      --insns K      instructions to show (default 16)\n"
    "      --all-threads  what every other thread was doing too\n"
    "      --json         one JSON object\n"
    "      --sysroot DIR, --symfs DIR  find recorded paths under DIR\n"
    "      --no-demangle  C++, Rust and D names as in the binary\n"
    "  -f, --force        read a file another user owns\n"
    "Exit 1 when the file has no crash.\n";

static int parse_uint(const char *s, unsigned max, unsigned *v)
{
	char *end;
	unsigned long n;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max)
		return -1;
	*v = (unsigned)n;
	return 0;
}

static int parse_args(int argc, char **argv, struct crash_args *a)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"last", required_argument, NULL, 'l'},
	    {"insns", required_argument, NULL, 'k'},
	    {"all-threads", no_argument, NULL, 'a'},
	    {"json", no_argument, NULL, 'j'},
	    {"force", no_argument, NULL, 'f'},
	    {"sysroot", required_argument, NULL, 's'},
	    {"symfs", required_argument, NULL, 's'},
	    {"no-demangle", no_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	a->input = "perf.data";
	a->last = 16;
	a->insns = 16;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 'l':
			if (parse_uint(optarg, QPT_LBR_MAX_DEPTH, &a->last))
				return cli_usage_error("crash", "--last: bad "
						       "count '%s' (0..1024)",
						       optarg);
			break;
		case 'k':
			if (parse_uint(optarg, QPT_CRASH_WALK_MAX_INSNS,
				       &a->insns))
				return cli_usage_error("crash", "--insns: bad "
						       "count '%s'", optarg);
			break;
		case 'a':
			a->all_threads = true;
			break;
		case 'j':
			a->json = true;
			break;
		case 'f':
			a->force = true;
			break;
		case 's':
			a->sysroot = optarg;
			break;
		case 'D':
			a->raw_names = true;
			break;
		case 'h':
			fputs(help, stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("crash");
		}
	}
	if (optind < argc)
		return cli_usage_error("crash", "unexpected argument '%s'",
				       argv[optind]);
	return -1;
}

/* What the file's records say: the crash facts in samples (their stacks
 * copied), the executable mappings and the processes' names (whose pid
 * matters is known at the end). */
struct comm {
	int32_t pid;
	char name[17];
};

struct facts {
	struct qpt_crash *list;
	size_t nr, cap;
	void **mmaps;
	size_t nr_mmaps, cap_mmaps;
	struct comm *comms;
	size_t nr_comms, cap_comms;
};

/* A crash event sample: its fact, its stack copied. */
static int add_sample(struct facts *f, const struct qpt_record *rec,
		      bool swapped)
{
	struct qpt_crash c;
	uint8_t *stack = NULL;

	if (qpt_crash_sample_parse(rec, swapped, &c))
		return -QPT_E_FORMAT;
	if (cli_grow(&f->list, &f->cap, f->nr, sizeof(c)))
		return -ENOMEM;
	if (c.stack_len) {
		stack = malloc(c.stack_len);
		if (!stack)
			return -ENOMEM;
		memcpy(stack, c.stack, c.stack_len);
	}
	c.stack = stack;
	f->list[f->nr++] = c;
	return 0;
}

static int add_mmap(struct facts *f, const struct qpt_record *rec)
{
	void *copy;

	if (cli_grow(&f->mmaps, &f->cap_mmaps, f->nr_mmaps,
		 sizeof(void *)))
		return -ENOMEM;
	copy = malloc(rec->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec->data, rec->size);
	f->mmaps[f->nr_mmaps++] = copy;
	return 0;
}

/* COMM: header, u32 pid, u32 tid, the name (NUL-terminated). */
static int add_comm(struct facts *f, const struct qpt_record *rec)
{
	const char *p = rec->data;
	struct comm *c;
	uint32_t pid;

	if (rec->size < 17)
		return 0;
	if (cli_grow(&f->comms, &f->cap_comms, f->nr_comms, sizeof(*c)))
		return -ENOMEM;
	c = &f->comms[f->nr_comms++];
	memcpy(&pid, p + 8, 4);
	c->pid = (int32_t)pid;
	snprintf(c->name, sizeof(c->name), "%.*s", (int)(rec->size - 16),
		 p + 16);
	return 0;
}

static void facts_free(struct facts *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free((void *)f->list[i].stack);
	for (i = 0; i < f->nr_mmaps; i++)
		free(f->mmaps[i]);
	free(f->list);
	free(f->mmaps);
	free(f->comms);
	memset(f, 0, sizeof(*f));
}

/* The crashed process's name (its last COMM) and executable mappings. */
static void process_facts(struct crash_ctx *x, const struct facts *f)
{
	int32_t pid = f->list[0].pid;
	struct qpt_record rec;
	size_t i;

	for (i = 0; i < f->nr_mmaps; i++) {
		const struct perf_event_header *h = f->mmaps[i];

		memset(&rec, 0, sizeof(rec));
		rec.type = h->type;
		rec.size = h->size;
		rec.data = h;
		crash_syms_add(x->syms, &rec, pid);
	}
	for (i = 0; i < f->nr_comms; i++)
		if (f->comms[i].pid == pid)
			memcpy(x->comm, f->comms[i].name, sizeof(x->comm));
}

/* One record of the file: kept where it says something of the crash. */
static int take_record(struct facts *f, const struct qpt_record *rec,
		       bool swapped)
{
	if (rec->type == PERF_RECORD_SAMPLE && qpt_crash_is_event(rec->attr))
		return add_sample(f, rec, swapped);
	if (rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_MMAP)
		return add_mmap(f, rec);
	if (rec->type == PERF_RECORD_COMM)
		return add_comm(f, rec);
	return 0;
}

/* The crash facts (the samples of qpt's crash event, or the feature of
 * files qpt 0.1 wrote) and the program's name.  Returns the count or -1
 * (said). */
static int read_facts(struct crash_ctx *x, struct facts *f)
{
	struct qpt_reader *r;
	struct qpt_record rec;
	int n, err;

	err = cli_open_input(x->a.input, x->a.force, &r);
	if (err)
		return -1;
	n = qpt_crash_read(r, &f->list);
	if (n < 0) {
		cli_error(x->a.input, "crash facts: %s", qpt_strerror(n));
		qpt_reader_free(r);
		return -1;
	}
	f->nr = f->cap = (size_t)n;
	while ((err = qpt_reader_next(r, &rec)) > 0) {
		err = take_record(f, &rec, qpt_reader_is_swapped(r));
		if (err == -QPT_E_FORMAT)
			cli_error_at(x->a.input, rec.pos,
				     "a crash sample that does not parse");
		if (err < 0)
			break;
	}
	if (err < 0 && err != -QPT_E_FORMAT)
		cli_reader_error(x->a.input, r, err);
	qpt_reader_free(r);
	if (err < 0)
		return -1;
	if (f->nr)
		process_facts(x, f);
	return (int)f->nr;
}

/* The flow of the file: the last branches and instructions of each
 * thread and its stack.  Returns 0 or -1 (said). */
static int walk(struct crash_ctx *x)
{
	struct qpt_decoder_opts dopts;
	struct qpt_crash_walk_opts wopts;
	struct cli_meter meter;
	int err;

	qpt_decoder_opts_init(&dopts);
	dopts.want = QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT |
		     QPT_WANT_SYMBOLS;
	dopts.demangle = !x->a.raw_names;
	dopts.sysroot = x->a.sysroot;
	if (cli_meter_start(&meter, "qpt crash")) {
		dopts.progress = cli_meter_tell;
		dopts.progress_ctx = &meter;
	}
	qpt_crash_walk_opts_init(&wopts);
	wopts.last = x->a.last;
	wopts.insns = x->a.insns;
	err = qpt_decoder_new(&dopts, &x->dec);
	if (!err)
		err = qpt_crash_walk_new(&wopts, &x->walk);
	if (!err)
		err = qpt_crash_walk_run_file(x->walk, x->dec, x->a.input);
	cli_meter_end(&meter);
	if (!err)
		return 0;
	cli_error_at(x->a.input, x->dec ? qpt_decoder_errpos(x->dec) : 0, "%s",
		     x->dec && qpt_decoder_errmsg(x->dec)
			 ? qpt_decoder_errmsg(x->dec)
			 : qpt_strerror(err));
	return -1;
}

/* The crashed thread in the walk, or NULL. */
static const struct crash_thr *find_thread(struct crash_ctx *x)
{
	int i = qpt_crash_walk_find(x->walk, x->c->tid);

	if (i < 0 || qpt_crash_walk_thread(x->walk, (size_t)i, &x->thr.t))
		return NULL;
	x->thr.i = (size_t)i;
	return &x->thr;
}

/* The walk's results borrow the decoder's symbols: freed together. */
static void free_walk(struct crash_ctx *x)
{
	qpt_crash_walk_free(x->walk);
	qpt_decoder_free(x->dec);
}

int cmd_crash(int argc, char **argv)
{
	static char buf[1 << 16];
	static struct crash_unwound unw;
	struct crash_ctx x;
	struct crash_view v;
	struct facts f;
	struct qpt_crash *list;
	struct out w;
	int n, i, err, rc;

	memset(&x, 0, sizeof(x));
	memset(&f, 0, sizeof(f));
	rc = parse_args(argc, argv, &x.a);
	if (rc >= 0)
		return rc;
	if (cli_check_dir("--sysroot", x.a.sysroot))
		return QPT_EXIT_ERROR;
	x.syms = crash_syms_new(x.a.sysroot, !x.a.raw_names);
	n = read_facts(&x, &f);
	list = f.list;
	if (n < 0) {
		facts_free(&f);
		crash_syms_free(x.syms);
		return QPT_EXIT_ERROR;
	}
	/* the first fatal signal: the one the program died of */
	for (i = 0; i < n && list[i].kind != QPT_CRASH_SIGNAL; i++)
		;
	if (i == n) {
		facts_free(&f);
		crash_syms_free(x.syms);
		cli_error(x.a.input, "no crash in the file (no thread died of "
				     "a signal while recorded)");
		return QPT_EXIT_ERROR;
	}
	x.c = &list[i];
	err = walk(&x);
	if (err) {
		free_walk(&x);
		facts_free(&f);
		crash_syms_free(x.syms);
		return QPT_EXIT_ERROR;
	}
	v.walk = x.walk;
	v.c = x.c;
	v.t = find_thread(&x);
	v.comm = x.comm;
	v.all_threads = x.a.all_threads;
	v.insns = x.a.insns;
	v.syms = x.syms;
	crash_unwind(x.syms, x.c, &unw);
	v.unw = &unw;
	out_init(&w, STDOUT_FILENO, x.a.json, buf, sizeof(buf));
	if (x.a.json)
		crash_print_json(&v, &w);
	else
		crash_print_text(&v, &w);
	err = out_flush(&w);
	free_walk(&x);
	facts_free(&f);
	crash_syms_free(x.syms);
	return err ? cli_write_error(err) : QPT_EXIT_OK;
}
