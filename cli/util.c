// SPDX-License-Identifier: MIT
/* Error reporting shared by the subcommands: one line, "qpt: FILE: ...". */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "qpt/reader.h"

/* A progress line is on the terminal (cli_progress). */
static bool progress_shown;

/*
 * One message line on stderr: @head, "FILE: " when @file is given,
 * "offset 0x...: " when @pos is, then the formatted text and @end.  File
 * names and text go through the escaper of out.h, so the line stays one
 * line whatever bytes they hold.
 */
static void message(const char *head, const char *file, const uint64_t *pos,
		    const char *end, const char *fmt, va_list ap)
{
	char buf[1024], *msg = NULL;
	struct out e;
	int n;

	out_init(&e, STDERR_FILENO, false, buf, sizeof(buf));
	if (progress_shown) /* a line of its own, the progress after it */
		out_cstr(&e, "\r\033[K");
	progress_shown = false;
	out_cstr(&e, head);
	if (file) {
		out_esc(&e, file, strlen(file));
		out_lit(&e, ": ");
	}
	if (pos) {
		out_lit(&e, "offset 0x");
		out_hex(&e, *pos);
		out_lit(&e, ": ");
	}
	n = vasprintf(&msg, fmt, ap);
	if (n >= 0)
		out_esc(&e, msg, (size_t)n);
	else
		out_cstr(&e, fmt);
	free(msg);
	out_cstr(&e, end);
	out_flush(&e);
}

void cli_error(const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("qpt: ", file, NULL, "\n", fmt, ap);
	va_end(ap);
}

void cli_error_at(const char *file, uint64_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("qpt: ", file ? file : "-", &pos, "\n", fmt, ap);
	va_end(ap);
}

int cli_reader_error(const char *file, struct qpt_reader *r, int err)
{
	if (r && *qpt_reader_errmsg(r))
		cli_error_at(file, qpt_reader_errpos(r), "%s",
			     qpt_reader_errmsg(r));
	else
		cli_error(file, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

int cli_check_owner(const char *path, bool force)
{
	struct stat st;

	/* a file that cannot be found is the open's to report */
	if (force || !strcmp(path, "-") || stat(path, &st))
		return 0;
	if (st.st_uid && st.st_uid != geteuid()) {
		cli_error(path, "not owned by the current user or root (use"
				" --force to override)");
		return QPT_EXIT_ERROR;
	}
	return 0;
}

void cli_log_warn(enum qpt_log_level level, const char *msg, void *ctx)
{
	if (level == QPT_LOG_WARN)
		cli_warn("%s: %s", (const char *)ctx, msg);
}

int cli_open_input(const char *path, bool force, struct qpt_reader **r)
{
	struct qpt_reader_opts opts;
	int err;

	*r = NULL;
	if (cli_check_owner(path, force))
		return QPT_EXIT_ERROR;
	qpt_reader_opts_init(&opts);
	opts.log = cli_log_warn;
	opts.log_ctx = (void *)path;
	err = qpt_reader_open(path, &opts, r);
	if (!err)
		return 0;
	cli_reader_error(path, *r, err);
	qpt_reader_free(*r);
	*r = NULL;
	return QPT_EXIT_ERROR;
}

int cli_parse_input(const char *cmd, const char *help, int argc, char **argv,
		    struct cli_input *in)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	in->input = "perf.data";
	in->json = in->force = false;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in->input = optarg;
			break;
		case 'j':
			in->json = true;
			break;
		case 'f':
			in->force = true;
			break;
		case 'h':
			fputs(help, stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option(cmd);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'",
				       argv[optind]);
	return -1;
}

int cli_check_dir(const char *opt, const char *dir)
{
	struct stat st;

	if (!dir)
		return 0;
	if (stat(dir, &st)) {
		cli_error(dir, "%s: %s", opt, strerror(errno));
		return QPT_EXIT_ERROR;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_error(dir, "%s: not a directory", opt);
		return QPT_EXIT_ERROR;
	}
	return 0;
}

int cli_write_error(int err)
{
	cli_error("standard output", "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

int cli_debuginfod(const char *cmd, const char *urls)
{
	const char *set = getenv("DEBUGINFOD_URLS");

	if (urls && *urls)
		return setenv("DEBUGINFOD_URLS", urls, 1) ? QPT_EXIT_ERROR : 0;
	if (set && *set)
		return 0;
	return cli_usage_error(cmd, "--debuginfod: no servers: give "
				    "--debuginfod=URLS or set DEBUGINFOD_URLS");
}

bool cli_sym_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return name && !strncmp(name, want, n) &&
	       (!name[n] || name[n] == '(' ||
		(name[n] == '@' && strcmp(name + n, "@plt")));
}

int cli_number(const char *cmd, const char *opt, const char *s, uint64_t min,
	       uint64_t max, uint64_t *v)
{
	if (!cli_parse_u64(s, min, max, v))
		return 0;
	return cli_usage_error(cmd, "bad %s '%s' (a number from %llu to %llu)",
			       opt, s ? s : "", (unsigned long long)min,
			       (unsigned long long)max);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("qpt: warning: ", NULL, NULL, "\n", fmt, ap);
	va_end(ap);
}

static int usage_hint(const char *cmd)
{
	fprintf(stderr, "Try 'qpt %s --help'.\n", cmd);
	return QPT_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char head[64];
	va_list ap;

	snprintf(head, sizeof(head), "qpt %s: ", cmd);
	va_start(ap, fmt);
	message(head, NULL, NULL, "\n", fmt, ap);
	va_end(ap);
	return usage_hint(cmd);
}

int cli_bad_option(const char *cmd)
{
	/* getopt_long has printed the line naming the option */
	return usage_hint(cmd);
}

void cli_progress(const char *fmt, ...)
{
	va_list ap;

	progress_shown = false; /* a new progress line overwrites the last */
	va_start(ap, fmt);
	message("\r", NULL, NULL, "\033[K", fmt, ap);
	va_end(ap);
	progress_shown = true;
}

void cli_progress_end(void)
{
	fputs("\r\033[K", stderr);
	progress_shown = false;
}

int cli_show_progress(void)
{
	return isatty(STDERR_FILENO);
}

bool cli_meter_start(struct cli_meter *m, const char *what)
{
	memset(m, 0, sizeof(*m));
	m->what = what;
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	m->last = m->t0.tv_sec;
	return cli_show_progress();
}

void cli_meter_tell(uint64_t done, uint64_t total, void *ctx)
{
	struct cli_meter *m = ctx;
	struct timespec now;
	double el, rate;
	unsigned pct;
	char unit = 'K';

	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (double)(now.tv_sec - m->t0.tv_sec) +
	     (double)(now.tv_nsec - m->t0.tv_nsec) / 1e9;
	if (el < 1.0 || now.tv_sec == m->last)
		return;
	m->last = now.tv_sec;
	m->shown = true;
	rate = (double)done / el / 1024.0;
	if (rate >= 1024.0) {
		rate /= 1024.0;
		unit = 'M';
	}
	pct = total ? (unsigned)(done * 100 / total) : 100u;
	cli_progress("%s: %" PRIu64 " of %" PRIu64
		     " trace bytes (%u%%), %.1f %ciB/s",
		     m->what, done, total, pct, rate, unit);
}

void cli_meter_end(struct cli_meter *m)
{
	if (m->shown)
		cli_progress_end();
	m->shown = false;
}

int cli_grow(void *p, size_t *cap, size_t nr, size_t size)
{
	void **arr = p, *q;
	size_t n = *cap ? 2 * *cap : 8;

	if (nr < *cap)
		return 0;
	if (n <= nr || n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*arr, n * size);
	if (!q)
		return -ENOMEM;
	*arr = q;
	*cap = n;
	return 0;
}
