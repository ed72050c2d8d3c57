/* SPDX-License-Identifier: MIT */
/*
 * Sideband synthesized at the start of a recording, as perf does for
 * processes that already run: a COMM per thread and an MMAP2 per
 * executable mapping ([vdso] included) read from <proc>/PID/maps; and the
 * GNU build-id of a mapped ELF file.
 */
#ifndef QPT_CAPTURE_SYNTH_H
#define QPT_CAPTURE_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* Receives each record (valid during the call); returns 0 or an error. */
typedef int (*qpt_synth_emit_fn)(void *ctx,
				 const struct perf_event_header *rec);

/*
 * Emit COMM for every thread of process @pid and MMAP2 for each of its
 * executable mappings, each followed by @id_hdr_size zero bytes (the
 * sample_id trailer, as perf's synthesized records).  @proc: "/proc" or a
 * test's tree.  Returns the number of records, -ESRCH when the process is
 * gone, the emitter's error, or -errno.
 */
int qpt_synth_process(const char *proc, int pid, size_t id_hdr_size,
		      qpt_synth_emit_fn emit, void *ctx);

/*
 * Parse one line of a maps file into an MMAP2 record for @pid/@tid in @buf
 * (@cap bytes).  Returns the record size, 0 when the mapping is not
 * executable, -QPT_E_FORMAT for a line that does not parse, -ENOSPC.
 */
int qpt_synth_mmap2(const char *line, int pid, int tid, size_t id_hdr_size,
		    void *buf, size_t cap);

/*
 * The GNU build-id of ELF file @path into @id (@cap bytes, 20 suffice).
 * Returns its length, 0 when the file has none, -ENOENT and other -errno,
 * -QPT_E_FORMAT when it is not ELF.
 */
int qpt_build_id_read(const char *path, uint8_t *id, size_t cap);
/* The same for an ELF image in memory (@len bytes at @buf). */
int qpt_build_id_mem(const void *buf, size_t len, uint8_t *id, size_t cap);

#endif /* QPT_CAPTURE_SYNTH_H */
