/* SPDX-License-Identifier: MIT */
/* qpt decode --coverage: basic blocks as a drcov log, or edges. */
#ifndef QPT_CLI_DECODE_COV_H
#define QPT_CLI_DECODE_COV_H

#include "cli/out.h"
#include "qpt/decode.h"

enum cov_form { COV_NONE, COV_DRCOV, COV_EDGES };

/*
 * Print the coverage of @dec's run in @form to the file @path (NULL: to
 * @std, whose form, text or JSON, the edges take).  Returns the exit
 * code (errors printed).
 */
int cov_print(struct qpt_decoder *dec, enum cov_form form, const char *path,
	      struct out *std);

#endif
