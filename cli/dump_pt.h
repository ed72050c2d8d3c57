/* SPDX-License-Identifier: MIT */
/* qpt dump --pt: the Intel PT packets of an AUXTRACE record. */
#ifndef QPT_CLI_DUMP_PT_H
#define QPT_CLI_DUMP_PT_H

#include "cli/out.h"
#include "qpt/reader.h"

/*
 * Every packet of the AUXTRACE record @r's payload, after its line, as
 * libipt's packet decoder reads it from the payload's first byte: perf
 * report -D's lines (".  OFFSET:  BYTES  DESCRIPTION") or with JSON one
 * object a packet ("record": the record's input offset, "offset" in the
 * payload, "size", "packet": perf's name, "bytes", "desc").  A byte no
 * packet begins with is "Bad packet!" with libipt's reason.  Returns 0
 * or -ENOMEM; a write error stays in @w.
 */
int dump_pt_packets(struct out *w, const struct qpt_record *r);

#endif
