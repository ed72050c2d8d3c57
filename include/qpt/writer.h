/* SPDX-License-Identifier: MIT */
/*
 * Writing perf.data that perf reads: file mode (a valid header is on disk
 * from the start and rewritten at close, so an interrupted recording still
 * reads) or pipe mode; records optionally zstd-compressed into COMPRESSED
 * records as `perf record -z` does (AUXTRACE payloads never).  AUXTRACE
 * records are indexed (HEADER_AUXTRACE, entries {file_offset, 0x30}).
 * Records are given in host order.
 */
#ifndef QPT_WRITER_H
#define QPT_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"
#include "qpt/perf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_writer;

struct qpt_writer_opts {
	size_t size;	/* sizeof(struct qpt_writer_opts) */
	bool pipe;	/* pipe-mode stream (forced when the path is "-") */
	int compress;	/* 0: off; 1..22: zstd level */
	qpt_log_fn log;
	void *log_ctx;
};

QPT_API void qpt_writer_opts_init_sized(struct qpt_writer_opts *opts,
					size_t size);
static inline void qpt_writer_opts_init(struct qpt_writer_opts *opts)
{
	qpt_writer_opts_init_sized(opts, sizeof(*opts));
}

/*
 * Create @path ("-" is standard output, pipe mode; a file is created with
 * mode 0600 and truncated).  @opts may be NULL (defaults); bytes of @opts
 * beyond what this version knows must be zero.  On success *@writer is
 * the caller's until qpt_writer_free().  The file header (file mode) or
 * pipe header is on disk when this returns.  Returns 0, -errno from
 * open/write, -QPT_E_INVAL (bad opts, compress outside 0..22).
 */
QPT_API int qpt_writer_open(const char *path,
			    const struct qpt_writer_opts *opts,
			    struct qpt_writer **writer);
/* Write to @fd (borrowed, never closed); @name for messages.  File mode
 * writes at offsets from 0 of @fd; a descriptor that cannot seek (a pipe)
 * or appends (O_APPEND) gets a pipe-mode stream.  Errors as open. */
QPT_API int qpt_writer_open_fd(int fd, const char *name,
			       const struct qpt_writer_opts *opts,
			       struct qpt_writer **writer);

/*
 * Add an event description before the first record.  @attr is copied
 * (attr->size says how much), @ids too; @name may be NULL (EVENT_DESC then
 * uses perf's name for generic hardware/software events).  The attr is
 * written with this build's sizeof(struct perf_event_attr): a smaller one
 * is widened with zeroes, a larger one must have zeroes past it
 * (-QPT_E_UNSUPPORTED otherwise).  Returns 0, -QPT_E_STATE after the first
 * record (or flush), -QPT_E_INVAL, -ENOMEM.
 */
QPT_API int qpt_writer_add_attr(struct qpt_writer *writer,
				const struct perf_event_attr *attr,
				const uint64_t *ids, uint32_t nr_ids,
				const char *name);

/*
 * Set a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID;
 * -QPT_E_INVAL for others), replacing an earlier value.  Features go out
 * at flush and close (file mode) or with the first record (pipe mode; set
 * later, they follow as HEADER_FEATURE records at once).
 */
QPT_API int qpt_writer_set_feature_string(struct qpt_writer *writer,
					  enum qpt_feature feat,
					  const char *value);
/*
 * Set a feature from its raw on-disk bytes (copied, host order), e.g. to
 * carry one through `qpt convert`.  AUXTRACE and COMPRESSED are the
 * writer's own (-QPT_E_INVAL); BUILD_ID bytes (build_id_event records) join
 * those of qpt_writer_add_build_id (-QPT_E_FORMAT when they do not parse);
 * a raw EVENT_DESC replaces the one made from the attrs; DIR_FORMAT is
 * accepted but never written (the output is one file).  Pipe mode: a
 * feature over 0xffff - 16 bytes does not fit a HEADER_FEATURE record and
 * is left out (logged as a warning).
 */
QPT_API int qpt_writer_set_feature_raw(struct qpt_writer *writer,
				       enum qpt_feature feat, const void *data,
				       size_t size);
/*
 * The recording machine's facts for HOSTNAME, OSRELEASE, ARCH, CPUDESC,
 * CPUID, NRCPUS, TOTAL_MEM and CMDLINE, gathered by the caller (capture
 * probes the host: the writer makes no system call beyond its output).
 * NULL strings and zero counts are left out.
 */
struct qpt_host_info {
	size_t size; /* sizeof(struct qpt_host_info) */
	const char *hostname, *osrelease, *arch; /* uname's */
	const char *cpudesc;			 /* perf's brand string */
	const char *cpuid; /* x86: "vendor,family,model,stepping" */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	/* CMDLINE: the recording program's path (NULL: ""), then @argc
	 * strings as a subcommand receives them (argv[0] "record", ...), as
	 * perf writes "/usr/bin/perf record ...". */
	const char *exe;
	int argc;
	char *const *argv;
};

/*
 * Set the features of @info, and VERSION ("qpt X.Y.Z").  What @info
 * leaves out is logged at INFO.  Returns 0, -QPT_E_INVAL (NULL, a size
 * too small, argc < 0 or argv NULL with argc), -QPT_E_STATE after close,
 * -ENOMEM, or an output error (pipe mode after the prologue).
 */
QPT_API int qpt_writer_set_host_info(struct qpt_writer *writer,
				     const struct qpt_host_info *info);
/*
 * Set CMDLINE to exactly @argc strings (perf's form: argv[0] is the path of
 * the recording program, e.g. "/usr/bin/perf", "record", ...).
 * Returns 0, -QPT_E_INVAL, -QPT_E_STATE after close, -ENOMEM.
 */
QPT_API int qpt_writer_set_cmdline(struct qpt_writer *writer, int argc,
				   const char *const argv[]);
/*
 * Set CPU_PMU_CAPS to @n capabilities (name and value strings, e.g.
 * "branches" "32": the LBR depth perf stitches with), replacing an
 * earlier value.  Returns 0, -QPT_E_INVAL (a NULL string), -QPT_E_STATE
 * after close, -ENOMEM.
 */
struct qpt_pmu_cap;
QPT_API int qpt_writer_set_cpu_pmu_caps(struct qpt_writer *writer,
					const struct qpt_pmu_cap *caps,
					size_t n);
/* Add a build-id (at most 20 bytes) for the BUILD_ID feature (and a
 * HEADER_BUILD_ID record in pipe mode); @misc as perf's (e.g.
 * PERF_RECORD_MISC_USER), the build-id-size bit is added. */
QPT_API int qpt_writer_add_build_id(struct qpt_writer *writer, int32_t pid,
				    const uint8_t *build_id, size_t len,
				    const char *filename, uint16_t misc);

/*
 * Lay out a PERF_RECORD_MMAP2 record at @buf (host order, perf_event.h's
 * layout) from @m's pid, tid, start, len, pgoff, prot, flags, filename
 * (up to filename_len bytes or its NUL; NUL-padded to 8 bytes) and either
 * its build_id (build_id_size 1..20: the build-id form, misc gets
 * PERF_RECORD_MISC_MMAP_BUILD_ID) or maj, min, ino, ino_generation.
 * @misc: the header's (e.g. PERF_RECORD_MISC_USER); @trailer zeroed bytes
 * at the end for the sample_id the caller fills.  The reader's side is
 * qpt_mmap_parse (reader.h).  Returns the record's size, -ENOSPC when
 * @cap is too small, -QPT_E_INVAL (NULL, a build-id over 20 bytes, a
 * record over 64 KiB).
 */
struct qpt_mmap_event;
QPT_API int qpt_mmap2_build(const struct qpt_mmap_event *m, uint16_t misc,
			    size_t trailer, void *buf, size_t cap);

/*
 * Write one record (header.size bytes at @record, host order).  Neither
 * AUXTRACE (use qpt_writer_write_auxtrace) nor HEADER_ATTR/feature records
 * (the writer makes those), nor COMPRESSED (-QPT_E_INVAL).  The first
 * record writes the attrs.  With compression a kernel record (type < 64)
 * is queued and goes out in a COMPRESSED record at the latest at the next
 * record of perf's own types, AUXTRACE record, flush or close; perf's own
 * types (AUXTRACE_INFO, TIME_CONV, FINISHED_ROUND, ...) are not
 * compressed, as perf record writes them.  Returns 0, -QPT_E_INVAL, -QPT_E_STATE after close, or
 * -errno (an output failure, which every later call returns too).
 */
QPT_API int qpt_writer_write(struct qpt_writer *writer, const void *record);

/*
 * Write an AUXTRACE record: @hdr (size, offset, reference, idx, tid, cpu;
 * header and padding are filled in) and its payload gathered from @iov.
 * hdr->size is 0, the payload size or that rounded up to 8 (else
 * -QPT_E_INVAL); the record says the padded size.  The payload is padded
 * with zeroes to a multiple of 8, never compressed (queued records go out
 * first), and indexed in file mode.  Large payloads are written straight
 * from @iov.  Errors as qpt_writer_write.
 */
QPT_API int qpt_writer_write_auxtrace(struct qpt_writer *writer,
				      const struct qpt_record_auxtrace *hdr,
				      const struct iovec *iov, int iovcnt);

/*
 * Flush buffered and compressed records and, in file mode, write the
 * features and index after them and rewrite the file header, so that what
 * is on disk reads as a whole file (records written later are not covered
 * until the next flush or close).  The features stay readable until then
 * when compressing or when the data since the last flush was at least 16
 * times their size: later records go past them, and the next flush or
 * close covers them with a HEADER_EVENT_TYPE record (a type perf skips),
 * so a file flushed on the way may hold such records.  Otherwise later
 * records overwrite them, once the header has let go of them.  The index
 * is left out of a flush when larger than 4 KiB and 1/16 of that data.
 * Returns 0 or -errno.
 */
QPT_API int qpt_writer_flush(struct qpt_writer *writer);

/* Bytes of output so far (payload and all, buffered output included;
 * records still queued for compression not). */
QPT_API uint64_t qpt_writer_bytes(const struct qpt_writer *writer);

/* Finish: features, index, final header; closes a file it opened.  The
 * writer stays to be freed; later writes return -QPT_E_STATE. */
QPT_API int qpt_writer_close(struct qpt_writer *writer);
/* Free; without close, the file reads whole up to the last flush (its
 * features as qpt_writer_flush says; records written since lie past it,
 * uncovered).  NULL is a no-op. */
QPT_API void qpt_writer_free(struct qpt_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* QPT_WRITER_H */
