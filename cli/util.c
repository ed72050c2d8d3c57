// SPDX-License-Identifier: MIT
/* Error reporting shared by the subcommands: one line, "qpt: FILE: ...". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "qpt/reader.h"

void cli_error(const char *file, const char *fmt, ...)
{
	va_list ap;

	fputs("qpt: ", stderr);
	if (file)
		fprintf(stderr, "%s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_error_at(const char *file, uint64_t pos, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "qpt: %s: offset 0x%" PRIx64 ": ", file ? file : "-",
		pos);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("qpt: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_hint(const char *cmd)
{
	fprintf(stderr, "Try 'qpt %s --help'.\n", cmd);
	return QPT_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "qpt %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return usage_hint(cmd);
}

int cli_bad_option(const char *cmd)
{
	/* getopt_long has printed the line naming the option */
	return usage_hint(cmd);
}

int cli_show_progress(void)
{
	return isatty(STDERR_FILENO);
}
