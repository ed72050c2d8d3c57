/* SPDX-License-Identifier: MIT */
/*
 * The writer's insides, shared by writer.c (file and pipe output),
 * writer_features.c (feature encodings), writer_compress.c (zstd into
 * COMPRESSED records) and writer_hostinfo.c (the recording machine's
 * features from the facts the caller gathered).
 * Not installed; the tests include it for byte-table checks.
 */
#ifndef QPT_AUXFMT_WRITER_PRIV_H
#define QPT_AUXFMT_WRITER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "qpt/writer.h"

/* perf pads feature strings (NUL included) to this. */
#define QPT_NAME_ALIGN 64
/* perf's struct perf_record_header_build_id without the file name. */
#define QPT_BUILD_ID_EVENT_SIZE 36
#define QPT_BUILD_ID_MAX 20
/* header.misc bit: the build-id size byte is valid. */
#define QPT_MISC_BUILD_ID_SIZE (1U << 15)
/* HEADER_COMPRESSED values perf writes: version 0, zstd, mmap length. */
#define QPT_COMP_VER 0
#define QPT_COMP_ZSTD 1
#define QPT_COMP_MMAP_LEN 528384
/* Largest record: perf_event_header.size is 16 bits. */
#define QPT_RECORD_MAX 0xffff
/* Largest filler record over a gap (a multiple of 8). */
#define QPT_GAP_RECORD_MAX 0xfff8
/* A flush keeps its features (a gap) when the data since the last flush
 * is this many times their size, or when compressing; and leaves out an
 * AUXTRACE index larger than 1/this of that data (and 4 KiB). */
#define QPT_GAP_RATIO 16
#define QPT_FLUSH_INDEX_MIN 4096

/* A growable byte buffer. */
struct qpt_wbuf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

int qpt_wbuf_reserve(struct qpt_wbuf *b, size_t more);
int qpt_wbuf_add(struct qpt_wbuf *b, const void *data, size_t len);
int qpt_wbuf_add_u32(struct qpt_wbuf *b, uint32_t v);
int qpt_wbuf_add_u64(struct qpt_wbuf *b, uint64_t v);
/* perf_header_string: u32 len, then the string, NUL and zeroes to len. */
int qpt_wbuf_add_string(struct qpt_wbuf *b, const char *s);
void qpt_wbuf_release(struct qpt_wbuf *b);

struct qpt_writer_attr {
	struct perf_event_attr attr; /* size = sizeof(struct perf_event_attr) */
	uint64_t *ids;
	uint32_t nr_ids;
	char *name; /* NULL: a generic name */
};

struct qpt_wzstd;
struct qpt_writer_io;

struct qpt_writer {
	int fd;
	const struct qpt_writer_io *io; /* a test's output calls, or NULL */
	bool own_fd;
	bool pipe;
	char *name;
	qpt_log_fn log;
	void *log_ctx;
	int err; /* sticky: the first output failure */

	bool prologue; /* attrs (file) or attrs and features (pipe) written */
	bool closed;

	/* Output: @pos is the offset of the next byte of output, the bytes
	 * [pos - out.len, pos) wait in @out. */
	struct qpt_wbuf out;
	uint64_t pos;
	uint64_t attrs_offset;
	uint64_t data_offset;
	uint64_t mark;	      /* file mode: @pos after the last flush */
	uint64_t gap_start;   /* file mode: the last flush's features, which */
	uint64_t gap_len;     /* later data went past; 0: none */
	bool feat_on_disk;    /* ... or which later data will overwrite */
	uint64_t flushed_end; /* (then the data end of that flush) */
	uint64_t file_end;    /* file mode: end of the features at the flush */
	uint64_t high;	      /* file mode: the furthest byte ever written */

	struct qpt_writer_attr *attrs;
	size_t nr_attrs, cap_attrs; /* grown by doubling: linear in attrs */

	/* raw bytes of set features (perf's and qpt's own, qpt/crash.h) */
	struct qpt_wbuf feat[QPT_HEADER_FEAT_BITS];
	bool has_feat[QPT_HEADER_FEAT_BITS];
	struct qpt_wbuf build_ids; /* encoded build_id_event records */
	size_t build_ids_sent;	   /* pipe mode: bytes already emitted */

	struct qpt_auxtrace_index_entry *index;
	size_t nr_index, cap_index;

	int level; /* zstd level, 0: off */
	struct qpt_wzstd *z;
	uint64_t z_in, z_out; /* bytes given to and made by compression */
};

void qpt_writer_logf(struct qpt_writer *w, enum qpt_log_level level,
		     const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The output buffer's size; writes of at least half of it bypass it. */
#define QPT_OUT_CAP (256 * 1024)
#define QPT_FILE_HEADER_SIZE sizeof(struct qpt_file_header)
#define QPT_ATTR_ENTRY_SIZE                                                    \
	(sizeof(struct perf_event_attr) + sizeof(struct qpt_file_section))

/* writer_out.c: the output.  Errors that break the output are recorded
 * (qpt_writer_fail) and returned by every later call. */
int qpt_writer_fail(struct qpt_writer *w, int err);
/* Write all of @iov (consumed) at @off (file mode) or at the end (pipe). */
int qpt_writer_write_iov(struct qpt_writer *w, struct iovec *iov, int cnt,
			 uint64_t off);
int qpt_writer_write_at(struct qpt_writer *w, const void *data, size_t len,
			uint64_t off);
/* The file header with @data_size and feature @bits (NULL: none). */
int qpt_writer_write_header(struct qpt_writer *w, uint64_t data_size,
			    const uint64_t bits[4]);
/* Before data reaches the disk past the buffer: let go of features that
 * the data will overwrite. */
int qpt_writer_before_data(struct qpt_writer *w);
void qpt_writer_note_high(struct qpt_writer *w, uint64_t end);
/* Put the buffered output on disk. */
int qpt_writer_out_drain(struct qpt_writer *w);
/* File mode: the features after the data and the header covering them;
 * @last at close. */
int qpt_writer_write_features(struct qpt_writer *w, bool last);
/* Raw output of bytes, through the buffer. */
int qpt_writer_emit(struct qpt_writer *w, const void *data, size_t len);
/* Make room for @len bytes in the output buffer and return a pointer to
 * them; qpt_writer_commit() then adds @used of them to the output. */
int qpt_writer_out_reserve(struct qpt_writer *w, size_t len, uint8_t **p);
void qpt_writer_out_commit(struct qpt_writer *w, size_t used);

/* writer_features.c */
int qpt_feat_encode_event_desc(const struct qpt_writer *w, struct qpt_wbuf *b);
int qpt_feat_encode_auxtrace(const struct qpt_writer *w, struct qpt_wbuf *b);
int qpt_feat_encode_compressed(const struct qpt_writer *w, struct qpt_wbuf *b);
int qpt_feat_encode_nrcpus(struct qpt_wbuf *b, uint32_t avail, uint32_t online);
int qpt_feat_encode_cmdline(struct qpt_wbuf *b, const char *exe, int argc,
			    const char *const argv[]);
int qpt_feat_encode_build_id(struct qpt_wbuf *b, int32_t pid,
			     const uint8_t *build_id, size_t len,
			     const char *filename, uint16_t misc);
const char *qpt_writer_generic_name(const struct perf_event_attr *attr,
				    char *buf, size_t size);
/* Whether feature @feat goes out (file sections, pipe records). */
bool qpt_writer_feat_wanted(const struct qpt_writer *w, int feat, bool pipe);
/* The encoded bytes of @feat into @b (cleared first). */
int qpt_writer_feat_bytes(const struct qpt_writer *w, int feat,
			  struct qpt_wbuf *b);
/* File mode: the feature section table and the features, as they go at the
 * end of the data; @bits receives the adds_features bitmap.  An AUXTRACE
 * index of more than @index_max bytes is left out. */
int qpt_writer_feat_block(const struct qpt_writer *w, uint64_t start,
			  struct qpt_wbuf *b, uint64_t bits[4],
			  uint64_t index_max);
/* Pipe mode: HEADER_FEATURE records of every feature, then the
 * end-of-features mark perf sends. */
int qpt_writer_feat_records(struct qpt_writer *w);
int qpt_writer_feat_record(struct qpt_writer *w, int feat);

/* writer_compress.c */
int qpt_wzstd_new(int level, struct qpt_wzstd **z);
void qpt_wzstd_free(struct qpt_wzstd *z);
/* Queue one record for compression. */
int qpt_wzstd_add(struct qpt_writer *w, const void *rec, size_t len);
/* Compress what is queued into COMPRESSED records on the output. */
int qpt_wzstd_flush(struct qpt_writer *w);

#endif /* QPT_AUXFMT_WRITER_PRIV_H */
