/* SPDX-License-Identifier: MIT */
/*
 * Sideband records of the emulated source, laid out as the kernel writes
 * them for an event with sample_id_all and sample_type
 * IP|TID|TIME|CPU|IDENTIFIER (trailer: pid, tid, time, cpu, identifier).
 */
#ifndef QPT_CAPTURE_EMU_SIDEBAND_H
#define QPT_CAPTURE_EMU_SIDEBAND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/emulate/proc.h"
#include "capture/emulate/trace.h"

/* The sample_type the records' trailer follows. */
#define EMU_SAMPLE_TYPE                                                        \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct emu_sb {
	const struct emu_sink_ops *ops;
	void *ctx;
	uint64_t id;
};

uint64_t emu_sb_time(void);
int emu_sb_comm(struct emu_sb *sb, pid_t pid, pid_t tid, const char *comm,
		bool exec);
/* MMAP2 of @map named @filename; with a build-id (@bid_len > 0) in the
 * record (PERF_RECORD_MISC_MMAP_BUILD_ID) instead of device and inode. */
int emu_sb_mmap2(struct emu_sb *sb, pid_t pid, pid_t tid,
		 const struct emu_map *map, const char *filename,
		 const uint8_t *bid, size_t bid_len);
int emu_sb_task(struct emu_sb *sb, uint32_t type, pid_t pid, pid_t ppid,
		pid_t tid, pid_t ptid);
int emu_sb_itrace_start(struct emu_sb *sb, pid_t pid, pid_t tid);

#endif
