/* SPDX-License-Identifier: MIT */
/* The options, attr and AUXTRACE_INFO both emulated sources share. */
#ifndef QPT_CAPTURE_EMU_HEADER_H
#define QPT_CAPTURE_EMU_HEADER_H

#include <stdint.h>

#include "capture/recorder.h"

/* The sample id of the emulated intel_pt event. */
#define EMU_ID 1

/* What an emulation can run and trace: a command; one intel_pt event,
 * user space, the terms it honours.  Returns 0 or -QPT_E_INVAL (errbuf
 * says why). */
int emu_check_opts(struct qpt_recorder *rec);

/* The writer opened with the host's features (CPUID @cpuid instead of the
 * host's when given: the CPU an emulator shows), the attr of intel_pt
 * @config and the AUXTRACE_INFO of the emulated CPU.  Returns 0 or an
 * error of the writer. */
int emu_write_header(struct qpt_recorder *rec, uint64_t config,
		     const char *cpuid);

#endif
