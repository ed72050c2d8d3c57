/* SPDX-License-Identifier: MIT */
/* qpt dump's two views of a record, both through the writer of out.h. */
#ifndef QPT_CLI_DUMP_H
#define QPT_CLI_DUMP_H

#include <stdbool.h>

#include "cli/out.h"
#include "qpt/reader.h"

/* The decoded fields of @r as members of the open object (key=value in
 * text, JSON members with --json). */
void dump_fields(struct out *w, const struct qpt_record *r);
/* perf report -D's summary of the common records (text); false for the
 * others, which print their fields instead. */
bool dump_summary(struct out *w, const struct qpt_record *r);

/* perf report -D's lines after a SAMPLE's summary: its callchain ("...
 * FP chain", with a call-stack LBR first "... LBR call chain") and its
 * branch stack ("... branch stack" / "... branch callstack"). */
void dump_sample_lines(struct out *w, const struct qpt_record *r);

/* Record field access, bounded by the record's size: 0 beyond it. */
uint64_t dump_u64(const struct qpt_record *r, size_t off);
uint32_t dump_u32(const struct qpt_record *r, size_t off);
/* The string at @off, up to its NUL or the record's end, escaped. */
void dump_str(struct out *w, const struct qpt_record *r, size_t off);

#endif
