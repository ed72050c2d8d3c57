/* SPDX-License-Identifier: MIT */
/*
 * Shared by the qpt subcommands: exit codes and one way to report errors.
 * Messages are one line each: file names and text are escaped like text
 * output (out.h), so control bytes and invalid UTF-8 show as \xNN.
 */
#ifndef QPT_CLI_H
#define QPT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "qpt/qpt.h"

struct qpt_reader;

enum qpt_exit {
	QPT_EXIT_OK = 0,
	QPT_EXIT_ERROR = 1,
	QPT_EXIT_USAGE = 2,
};

#define QPT_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef QPT_CMD

/* "qpt: FILE: message" on stderr (FILE omitted when NULL). */
void cli_error(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "qpt: FILE: offset 0x...: message" on stderr. */
void cli_error_at(const char *file, uint64_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The reader's failure @err on @file (@r may be NULL, as qpt_reader_open
 * leaves it): its message at its offset when it has one, else
 * qpt_strerror(err).  Returns QPT_EXIT_ERROR.
 */
int cli_reader_error(const char *file, struct qpt_reader *r, int err);
/*
 * perf's rule for the files it reads (its -f/--force lifts it): a file
 * that neither the user nor root owns is refused.  "-" (stdin) passes.
 * Prints "qpt: FILE: not owned by the current user or root (use --force
 * to override)" and returns QPT_EXIT_ERROR when refused, else 0.
 */
int cli_check_owner(const char *path, bool force);
/* A qpt_log_fn for readers and decoders: their warnings as "qpt: warning:
 * FILE: message" with FILE the @ctx string; other levels are dropped. */
void cli_log_warn(enum qpt_log_level level, const char *msg, void *ctx);
/*
 * Open the perf.data input @path of a subcommand: cli_check_owner(), then
 * the reader, with its warnings printed (an unfinished file).  Returns 0
 * with *@r, or prints the one line of the failure and returns
 * QPT_EXIT_ERROR with *@r NULL.
 */
int cli_open_input(const char *path, bool force, struct qpt_reader **r);
/* "qpt: standard output: REASON" for the writer's error @err (-errno);
 * returns QPT_EXIT_ERROR. */
int cli_write_error(int err);
/* The options of the commands that read one perf.data: -i FILE, --json,
 * -f/--force, -h/--help. */
struct cli_input {
	const char *input; /* default "perf.data" */
	bool json, force;
};
/*
 * Parse them for command @cmd (usage text @help, printed for --help).
 * Returns -1 to go on, or the exit code to return (help, bad option,
 * stray argument).
 */
int cli_parse_input(const char *cmd, const char *help, int argc, char **argv,
		    struct cli_input *in);
/*
 * The one rule for numeric option values, in every subcommand: an
 * unsigned integer (decimal, 0x hex or 0-led octal, as strtoull's base 0
 * reads them) with nothing before or after it (no sign, no blank), from
 * @min to @max.  Returns 0 with *@v, or -1 (then *@v is unchanged).
 */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v);
/* --debuginfod[=URLS] of command @cmd: the servers the library asks for
 * missing binaries (DEBUGINFOD_URLS, which it reads), those given or
 * those already set; without either, a usage error (QPT_EXIT_USAGE). */
int cli_debuginfod(const char *cmd, const char *urls);
/* Whether symbol @name is function @want: the same, or @want followed by
 * a demangled name's parameters or a symbol version ("f(int)", "f@@V");
 * not its PLT stub ("f@plt"). */
bool cli_sym_is(const char *name, const char *want);
/*
 * cli_parse_u64 for the value @s of option @opt of command @cmd: returns
 * 0 with *@v, or prints "qpt CMD: bad OPT 'S' (a number from MIN to
 * MAX)" with the usage hint and returns QPT_EXIT_USAGE.
 */
int cli_number(const char *cmd, const char *opt, const char *s, uint64_t min,
	       uint64_t max, uint64_t *v);
/* "qpt: warning: ..." on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error: prints "qpt CMD: message" and a hint; returns QPT_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A bad option: call it where getopt_long returns '?', with opterr on (the
 * default) and an optstring that does not start with ':'. getopt has then
 * printed the one line that names the option, as "qpt CMD: unrecognized
 * option '--x'", "qpt CMD: invalid option -- 'x'" or "qpt CMD: option
 * requires an argument -- 'i'" (main makes argv[0] "qpt CMD"); this adds
 * "Try 'qpt CMD --help'." and returns QPT_EXIT_USAGE:
 *
 *	case '?':
 *		return cli_bad_option("dump");
 */
int cli_bad_option(const char *cmd);
/* An explicit @opt (--sysroot, --buildid-dir) @dir, NULL when not given,
 * must be a directory: 0, or QPT_EXIT_ERROR (said). */
int cli_check_dir(const char *opt, const char *dir);
/* Room for element @nr of the array *@p of @size-byte elements, which has
 * room for *@cap: grows it by doubling.  0, or -ENOMEM (the array as it
 * was). */
int cli_grow(void *p, size_t *cap, size_t nr, size_t size);
/* Whether progress may be shown (stderr is a terminal). */
int cli_show_progress(void);
/* The progress line: "\r" and the text, no newline (only where
 * cli_show_progress() says so); cli_progress_end clears it. */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_end(void);

/*
 * A decode's progress on a terminal: once a second from the first second
 * on, "WHAT: DONE of TOTAL trace bytes (P%), R MiB/s".  cli_meter_start
 * starts the clock and says whether stderr is a terminal; if so, install
 * cli_meter_tell as the decoder's progress callback with @m as context.
 * cli_meter_end clears the line if one was shown.
 */
struct cli_meter {
	const char *what;
	struct timespec t0;
	time_t last;
	bool shown;
};
bool cli_meter_start(struct cli_meter *m, const char *what);
void cli_meter_tell(uint64_t done, uint64_t total, void *ctx);
void cli_meter_end(struct cli_meter *m);

#endif
