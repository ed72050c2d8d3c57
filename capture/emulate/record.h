/* SPDX-License-Identifier: MIT */
/* The emulated source's recorder over a ptrace seam, for tests. */
#ifndef QPT_CAPTURE_EMU_RECORD_H
#define QPT_CAPTURE_EMU_RECORD_H

#include "capture/emulate/trace.h"
#include "qpt/capture.h"

/* qpt_recorder_new with the emulated source (whatever opts->source says)
 * stepping through @ops (NULL: the real calls), e.g. a test's simulation
 * of a host that swallows single-step traps.  @ops and @ops_ctx are
 * borrowed until qpt_recorder_free. */
int emu_recorder_new(const struct qpt_recorder_opts *opts,
		     const struct emu_ptrace_ops *ops, void *ops_ctx,
		     struct qpt_recorder **rec);

#endif
