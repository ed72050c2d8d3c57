/* SPDX-License-Identifier: MIT */
/* qpt_emulate_record over a ptrace seam, for tests. */
#ifndef QPT_CAPTURE_EMU_RECORD_H
#define QPT_CAPTURE_EMU_RECORD_H

#include "capture/emulate/trace.h"
#include "qpt/emulate.h"

/* qpt_emulate_record stepping through @ops (NULL: the real calls), e.g.
 * a test's simulation of a host that swallows single-step traps. */
int emu_record_run(const struct qpt_emulate_opts *o,
		   struct qpt_emulate_result *res,
		   const struct emu_ptrace_ops *ops, void *ops_ctx);

#endif
