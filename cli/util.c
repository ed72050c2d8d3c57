// SPDX-License-Identifier: MIT
/* Error reporting shared by the subcommands: one line, "qpt: FILE: ...". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
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
