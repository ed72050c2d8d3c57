/* SPDX-License-Identifier: MIT */
/*
 * Fuchsia perfmon buffers (the data buffer format of Zircon's cpu-trace
 * perfmon driver, PERFMON_BUFFER_VERSION 0): a 24-byte buffer header, then
 * records up to the header's capture_end.  Everything is little-endian
 * and packed to 4 bytes:
 *
 *   header   u16 version, u16 arch, u32 flags, i64 ticks_per_second,
 *            u64 capture_end (offset of the end of the data)
 *   record   u8 type, u8 reserved_flags, u16 event, then by type:
 *            TIME (12 bytes)   i64 time (ticks; x86: the TSC)
 *            TICK (4)          nothing more
 *            COUNT (12)        u64 count
 *            VALUE (12)        u64 value
 *            PC (20)           u64 aspace, u64 pc
 *            LAST_BRANCH (16 + 24 * n)  u32 num_branches (n <= 32),
 *                              u64 aspace, n x {u64 from, to, info},
 *                              newest branch first
 *
 * A branch's info has the cycles since the previous branch in bits 0-15
 * (0: unknown) and the misprediction bit at 16.  (The published header's
 * PERFMON_LAST_BRANCH_INFO_*_MASK macros pass their length and shift to
 * PERFMON_GEN_MASK64 in the wrong order; the SHIFT and LEN values are what
 * this follows.)
 *
 * The codec works on memory and bounds every read by the buffer and by
 * capture_end; qpt_perfmon_open reads a file into a reader object.
 */
#ifndef QPT_PERFMON_H
#define QPT_PERFMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QPT_PERFMON_HEADER_SIZE 24u
#define QPT_PERFMON_MAX_BRANCHES 32u
#define QPT_PERFMON_BUFFER_FLAG_FULL 1u /* records were dropped */

#define QPT_PERFMON_INFO_CYCLES_MASK 0xffffULL
#define QPT_PERFMON_INFO_MISPRED (1ULL << 16)

enum qpt_perfmon_arch {
	QPT_PERFMON_ARCH_UNKNOWN = 0,
	QPT_PERFMON_ARCH_X86_64 = 1,
	QPT_PERFMON_ARCH_ARM64 = 2,
};

enum qpt_perfmon_type {
	QPT_PERFMON_RESERVED = 0,
	QPT_PERFMON_TIME = 1,
	QPT_PERFMON_TICK = 2,
	QPT_PERFMON_COUNT = 3,
	QPT_PERFMON_VALUE = 4,
	QPT_PERFMON_PC = 5,
	QPT_PERFMON_LAST_BRANCH = 6,
	QPT_PERFMON_TYPE_NR,
};

struct qpt_perfmon_header {
	uint16_t version; /* 0 */
	uint16_t arch;	  /* enum qpt_perfmon_arch */
	uint32_t flags;	  /* QPT_PERFMON_BUFFER_FLAG_* */
	int64_t ticks_per_second;
	uint64_t capture_end;
};

struct qpt_perfmon_branch {
	uint64_t from, to, info;
};

/* One record, every field of every type (the type says which count). */
struct qpt_perfmon_record {
	uint8_t type; /* enum qpt_perfmon_type */
	uint8_t reserved_flags;
	uint16_t event;
	int64_t time;	/* TIME */
	uint64_t value; /* COUNT: the count; VALUE: the value */
	uint64_t aspace; /* PC, LAST_BRANCH */
	uint64_t pc;	 /* PC */
	uint32_t num_branches; /* LAST_BRANCH */
	struct qpt_perfmon_branch branches[QPT_PERFMON_MAX_BRANCHES];
};

/* perfmon's name of a record type ("TIME", ...); NULL for others. */
QPT_API const char *qpt_perfmon_type_name(unsigned type);

/*
 * The encoded size of @rec: 4 to 784 bytes, or 0 for a type outside
 * TIME..LAST_BRANCH or more than 32 branches.
 */
QPT_API size_t qpt_perfmon_record_size(const struct qpt_perfmon_record *rec);

/* Encode the header into @out (24 bytes). */
QPT_API void qpt_perfmon_encode_header(const struct qpt_perfmon_header *h,
				       void *out);
/*
 * Encode @rec into [@out, @out + @cap).  Returns the size written, or
 * -QPT_E_INVAL (a bad type or branch count, see qpt_perfmon_record_size)
 * or -ENOSPC (@cap too small).
 */
QPT_API int qpt_perfmon_encode_record(const struct qpt_perfmon_record *rec,
				      void *out, size_t cap);

/*
 * Whether [@buf, @buf + @len) starts like a perfmon buffer: version 0, a
 * known arch, known flags and a capture_end inside [24, @len].
 */
QPT_API bool qpt_perfmon_probe(const void *buf, size_t len);

struct qpt_perfmon;

/*
 * Read the perfmon buffer in [@buf, @buf + @len) (borrowed until free) or
 * in the file @path (read whole; "-" is standard input).  The header is
 * checked here: -QPT_E_UNSUPPORTED for another version, -QPT_E_FORMAT for
 * an unknown arch or flags, -QPT_E_TRUNCATED when capture_end is past the
 * end; -errno for the file.  On a format error *@pm is set when not NULL
 * afterwards, for errpos/errmsg, and must be freed.
 */
QPT_API int qpt_perfmon_open_mem(const void *buf, size_t len,
				 struct qpt_perfmon **pm);
QPT_API int qpt_perfmon_open(const char *path, struct qpt_perfmon **pm);
/* NULL is a no-op. */
QPT_API void qpt_perfmon_free(struct qpt_perfmon *pm);

QPT_API const struct qpt_perfmon_header *
qpt_perfmon_header(const struct qpt_perfmon *pm);
/* The bytes after capture_end (ignored by readers of the format). */
QPT_API uint64_t qpt_perfmon_trailing(const struct qpt_perfmon *pm);

/*
 * The next record into @rec, and its buffer offset into *@pos (may be
 * NULL).  Returns 1, 0 after the last record before capture_end, or
 * -QPT_E_FORMAT (reserved or unknown type, more than 32 branches) /
 * -QPT_E_TRUNCATED (a record runs past capture_end); errpos and errmsg then
 * say where and what, and later calls return the same error.
 */
QPT_API int qpt_perfmon_next_sized(struct qpt_perfmon *pm,
				   struct qpt_perfmon_record *rec, size_t size,
				   uint64_t *pos);
static inline int qpt_perfmon_next(struct qpt_perfmon *pm,
				   struct qpt_perfmon_record *rec,
				   uint64_t *pos)
{
	return qpt_perfmon_next_sized(pm, rec, sizeof(*rec), pos);
}
QPT_API uint64_t qpt_perfmon_errpos(const struct qpt_perfmon *pm);
QPT_API const char *qpt_perfmon_errmsg(const struct qpt_perfmon *pm);

/*
 * Writing: records are gathered in memory and written with their header
 * (capture_end set to their end) by qpt_perfmon_writer_save.
 */
struct qpt_perfmon_writer;

/* @h: version, arch, flags and ticks_per_second (capture_end is the
 * writer's).  Returns 0, -ENOMEM, -QPT_E_INVAL (version not 0). */
QPT_API int qpt_perfmon_writer_new(const struct qpt_perfmon_header *h,
				   struct qpt_perfmon_writer **w);
QPT_API void qpt_perfmon_writer_free(struct qpt_perfmon_writer *w);
/* Append @rec.  Returns 0, -QPT_E_INVAL (as encode), -ENOMEM. */
QPT_API int qpt_perfmon_writer_add(struct qpt_perfmon_writer *w,
				   const struct qpt_perfmon_record *rec);
/* The buffer so far (header included), valid until the next add or free. */
QPT_API const void *qpt_perfmon_writer_data(const struct qpt_perfmon_writer *w,
					    size_t *len);
/* Create @path (mode 0644 as umask allows; "-" is standard output) with
 * the buffer.  Returns 0 or -errno. */
QPT_API int qpt_perfmon_writer_save(const struct qpt_perfmon_writer *w,
				    const char *path);

/*
 * perf.data from a perfmon buffer: each LAST_BRANCH record becomes a
 * PERF_RECORD_SAMPLE (IP, TID, TIME, BRANCH_STACK) of a cycles event with
 * branch_sample_type ANY|USER: its branches (cycles and the misprediction
 * bit in perf_branch_entry's flags, the type unknown), the newest
 * branch's target as the ip, the time of the last TIME record before it
 * in nanoseconds (by ticks_per_second), and as pid and tid the record's
 * aspace where it fits one (qpt decode --format=perfmon writes the
 * process id there), else -1.  The other records have no perf.data form
 * and are counted in *@skipped.  @w must be fresh (no attr, no record).
 * Returns the number of samples, -errno or -QPT_E_* from the writer, or
 * the buffer's error (qpt_perfmon_errpos/errmsg).
 */
struct qpt_writer;
QPT_API int qpt_perfmon_to_perf(struct qpt_perfmon *pm, struct qpt_writer *w,
				uint64_t *skipped);

#ifdef __cplusplus
}
#endif

#endif /* QPT_PERFMON_H */
