/* SPDX-License-Identifier: MIT */
/* qpt info's two forms of a perf.data header, through the writer of out.h. */
#ifndef QPT_CLI_INFO_H
#define QPT_CLI_INFO_H

#include "cli/out.h"
#include "qpt/reader.h"

/* Names of the bits of perf_event_attr's sample_type, read_format and
 * flag word (the one after read_format; NULL for precise_ip's 2nd bit). */
extern const char *const info_sample_bits[];
extern const size_t info_nr_sample_bits;
/* perf's names of the bits of branch_sample_type (PERF_SAMPLE_BRANCH_*). */
extern const char *const info_branch_bits[];
extern const size_t info_nr_branch_bits;
extern const char *const info_read_bits[];
extern const size_t info_nr_read_bits;
extern const char *const info_attr_flags[];
extern const size_t info_nr_attr_flags;
/* Bit 15 of the flag word (2 bits wide). */
#define INFO_PRECISE_IP_BIT 15

/* The set bits of @v by their @names (@n of them) joined by '|', the
 * bits beyond them as |0xREST. */
void info_bits(struct out *w, const char *const *names, size_t n, uint64_t v);
/* The flag word of @a (the bit-fields after read_format). */
uint64_t info_attr_flag_word(const struct perf_event_attr *a);
/* A feature string, "" when absent. */
const char *info_feature_string(const struct qpt_reader *r,
				enum qpt_feature feat);

/* The layout of `perf report --header-only -I`; @mtime: the file's
 * "captured on" time, or NULL. */
void info_text(struct out *w, const struct qpt_reader *r, const char *mtime);
/* One JSON object (a line) with the same facts. */
void info_json(struct out *w, const struct qpt_reader *r);

#endif
