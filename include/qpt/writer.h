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

QPT_API void qpt_writer_opts_init(struct qpt_writer_opts *opts);

/* Create @path ("-" is standard output, pipe mode). */
QPT_API int qpt_writer_open(const char *path,
			    const struct qpt_writer_opts *opts,
			    struct qpt_writer **writer);
/* Write to @fd (borrowed); @name for messages. */
QPT_API int qpt_writer_open_fd(int fd, const char *name,
			       const struct qpt_writer_opts *opts,
			       struct qpt_writer **writer);

/*
 * Add an event description before the first record.  @attr is copied
 * (attr->size says how much), @ids too; @name may be NULL (EVENT_DESC then
 * uses a generic name).  Returns 0, -QPT_E_STATE after the first record.
 */
QPT_API int qpt_writer_add_attr(struct qpt_writer *writer,
				const struct perf_event_attr *attr,
				const uint64_t *ids, uint32_t nr_ids,
				const char *name);

/* Set a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID). */
QPT_API int qpt_writer_set_feature_string(struct qpt_writer *writer,
					  enum qpt_feature feat,
					  const char *value);
/* Set a feature from its raw on-disk bytes (copied), e.g. to carry one
 * through `qpt convert`.  AUXTRACE and COMPRESSED are the writer's own. */
QPT_API int qpt_writer_set_feature_raw(struct qpt_writer *writer,
				       enum qpt_feature feat, const void *data,
				       size_t size);
/* Fill HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID,
 * TOTAL_MEM from this machine and CMDLINE from @argc/@argv. */
QPT_API int qpt_writer_set_host_features(struct qpt_writer *writer, int argc,
					 char *const argv[]);
/* Add a build-id for the BUILD_ID feature (and HEADER_BUILD_ID in pipe mode). */
QPT_API int qpt_writer_add_build_id(struct qpt_writer *writer, int32_t pid,
				    const uint8_t *build_id, size_t len,
				    const char *filename, uint16_t misc);

/*
 * Write one record (header.size bytes at @record, host order).  Neither
 * AUXTRACE (use qpt_writer_write_auxtrace) nor HEADER_ATTR/feature records
 * (the writer makes those).  Returns 0 or -errno.
 */
QPT_API int qpt_writer_write(struct qpt_writer *writer, const void *record);

/*
 * Write an AUXTRACE record: @hdr (size, offset, reference, idx, tid, cpu;
 * header and padding are filled in) and its payload gathered from @iov.
 * The payload is padded with zeroes to a multiple of 8 and indexed.
 */
QPT_API int qpt_writer_write_auxtrace(struct qpt_writer *writer,
				      const struct qpt_record_auxtrace *hdr,
				      const struct iovec *iov, int iovcnt);

/* Flush buffered and compressed records and rewrite the file header so
 * that what is on disk reads as a whole file. */
QPT_API int qpt_writer_flush(struct qpt_writer *writer);

/* Bytes written so far (payload and all). */
QPT_API uint64_t qpt_writer_bytes(const struct qpt_writer *writer);

/* Finish: features, index, final header.  The writer stays to be freed. */
QPT_API int qpt_writer_close(struct qpt_writer *writer);
/* Free; without close, the file is left as the last flush made it. */
QPT_API void qpt_writer_free(struct qpt_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* QPT_WRITER_H */
