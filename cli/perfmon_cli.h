/* SPDX-License-Identifier: MIT */
/* Fuchsia perfmon buffers in qpt dump and qpt convert. */
#ifndef QPT_CLI_PERFMON_H
#define QPT_CLI_PERFMON_H

#include <stdbool.h>

#include "cli/out.h"
#include "qpt/perfmon.h"

/*
 * Open @path as a perfmon buffer when it is a regular file without the
 * perf.data magic (cli_check_owner() first).  Returns 0 with *@pm, -1
 * when it is a perf.data (or not a regular file: read it as perf.data),
 * or QPT_EXIT_ERROR with the one line printed.
 */
int cli_open_perfmon(const char *path, bool force, struct qpt_perfmon **pm);
/* The buffer's error @err on @path, one line; returns QPT_EXIT_ERROR. */
int cli_perfmon_error(const char *path, const struct qpt_perfmon *pm, int err);
/*
 * qpt dump of a perfmon buffer: the header, then every record (offset,
 * size, type and all its fields), as text or JSON Lines.  Returns 0 or
 * the buffer's error.
 */
int dump_perfmon(struct out *w, struct qpt_perfmon *pm);
/*
 * qpt convert of a perfmon buffer (@in, opened as @pm) into @out: perf.data
 * branch-stack samples of its LAST_BRANCH records, or with @to_perfmon the
 * buffer written again from its parsed records.  Returns the exit code
 * (the one line of a failure printed).
 */
int convert_perfmon(const char *in, struct qpt_perfmon *pm, const char *out,
		    bool to_perfmon);

#endif
