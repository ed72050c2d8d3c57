/* SPDX-License-Identifier: MIT */
/*
 * qpt record's closing summary: a warning for each kind of loss, then one
 * line that accounts for every byte of trace the PMU wrote into its AUX
 * areas (captured, or lost: overwritten before a snapshot took it, or left
 * out of a snapshot by its size) and every sideband record (handed on, or
 * lost in an overrun of the data ring).  A pure formatter of the stats,
 * so that the tests that know the truth can check its words.
 */
#ifndef QPT_CLI_RECORD_SUMMARY_H
#define QPT_CLI_RECORD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "qpt/capture.h"

/* The warnings through @warn (cli_warn), the line on @f; @out the
 * output's name, @out_bytes its size, @note appended to the line. */
void record_summary(FILE *f, const struct qpt_capture_stats *st,
		    uint64_t out_bytes, const char *out, const char *note,
		    void (*warn)(const char *fmt, ...)
			__attribute__((format(printf, 1, 2))));

#endif /* QPT_CLI_RECORD_SUMMARY_H */
