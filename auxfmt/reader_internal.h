/* SPDX-License-Identifier: MIT */
/*
 * The reader's private state, shared by reader*.c, features.c, swap.c,
 * sample.c and decompress.c.  Not installed.
 */
#ifndef QPT_READER_INTERNAL_H
#define QPT_READER_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/reader.h"


/* The largest record: header.size is a u16. */
#define QPT_RECORD_MAX 65536u

/* A bounded cursor over untrusted bytes [p, end), in @swap byte order. */
struct qpt_cursor {
	const uint8_t *p;
	const uint8_t *begin;
	const uint8_t *end;
	bool swap;
	uint64_t base; /* input offset of @begin, for messages */
};

struct qpt_zstd; /* decompress.c */

struct qpt_id_map {
	uint64_t id;
	struct qpt_attr *attr;
};

/* The id -> attr index (idmap.c): sorted runs, newest on top. */
struct qpt_idrun {
	struct qpt_id_map *v;
	size_t n;
};

struct qpt_idmap {
	struct qpt_idrun run[64];
	unsigned nr;
};

struct qpt_feat_sect {
	uint64_t offset, size;
	const uint8_t *data; /* NULL when absent */
};

struct qpt_reader {
	char *name;
	qpt_log_fn log;
	void *log_ctx;
	bool no_decompress;

	/* The whole input [buf, buf + len): mapped or read into memory. */
	const uint8_t *buf;
	uint64_t len;
	void *map;	 /* mmap()ed, to munmap */
	int data_fd;	 /* the mapped file's, to pread; -1: none */
	int spool_fd;	 /* a pipe's copy (qpt_stream_spool), to close */
	uint64_t spool_len;
	uint64_t behind; /* a map's pages before this were let go */
	uint8_t *owned;	 /* read into memory, to free */
	bool random_access;
	/* streaming (reader_stream.c): owned holds [win_off, len) */
	bool stream, eof;
	int fd, own_fd;
	uint64_t win_off;
	size_t win_cap;

	bool pipe;
	bool swap;
	struct qpt_file_header hdr;
	uint64_t data_begin, data_end; /* the records [begin, end) */
	uint64_t pos;		       /* next outer record */

	/* data.size 0 in a file-mode header: its writer did not finish */
	bool unfinished;
	bool cut; /* ... and its last record was cut short */

	/* attrs: an array of pointers so they stay put as it grows */
	struct qpt_attr **attrs;
	size_t nr_attrs, cap_attrs;
	struct qpt_idmap idmap; /* idmap.c */

	struct qpt_feat_sect feat[QPT_HEADER_FEAT_BITS];
	struct qpt_features *features; /* parsed, features.c */

	struct qpt_auxtrace_index_entry *auxidx;
	size_t nr_auxidx;

	/* the record handed out last, host order, 8-aligned */
	uint64_t *rec;

	/* COMPRESSED: inner stream state */
	struct qpt_zstd *zstd;
	uint64_t zpos; /* offset of the COMPRESSED record being read */
	const uint8_t *zin;
	size_t zin_len, zin_off;
	uint8_t *zout; /* decompressed window */
	size_t zout_cap, zout_begin, zout_end;
	bool in_compressed;

	int failed; /* sticky error of qpt_reader_next() */
	uint64_t errpos;
	char errmsg[256];
};

/* reader.c */
int qpt_reader_fail(struct qpt_reader *r, uint64_t pos, int err,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The next outer record starts at @pos: a mapped input's pages before it
 * leave memory, some MiB at a time (qpt_reader_evict): one pass over a
 * large file takes bounded memory. */
void qpt_reader_behind(struct qpt_reader *r, uint64_t pos);
/* A warning through the log callback (the CLI prints these). */
void qpt_reader_warn(struct qpt_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @n ids from @src (8 bytes each, any alignment) in host order, in an
 * array the reader owns until free (attrs whose file-mode ids sections are
 * the same bytes share one); NULL when out of memory. */
uint64_t *qpt_reader_id_block(struct qpt_reader *r, const uint8_t *src,
			      size_t n, bool swap);
/*
 * Add an attr with @nr_ids ids @ids from qpt_reader_id_block() (may be
 * shared by several attrs).  @sorted holds the same ids in ascending
 * order when the caller has them (else NULL: they are sorted here).
 */
int qpt_reader_add_attr(struct qpt_reader *r, const void *attr_bytes,
			size_t attr_len, bool swap, const uint64_t *ids,
			uint32_t nr_ids, const uint64_t *sorted, uint64_t pos);
const struct qpt_attr *qpt_reader_match(struct qpt_reader *r, uint32_t type,
					 const uint8_t *rec, size_t size,
					 bool swap);
int qpt_reader_set_name(struct qpt_reader *r, uint64_t id, const char *name,
			size_t len);

/* reader_file.c / reader_pipe.c */
int qpt_reader_open_file(struct qpt_reader *r);
int qpt_reader_open_pipe(struct qpt_reader *r);
int qpt_reader_pipe_record(struct qpt_reader *r, const uint8_t *rec,
			   uint32_t size, uint64_t pos);

/* idmap.c */
/* Index @n ids (in any order) as @attr's; the newest attr wins an id. */
int qpt_idmap_add(struct qpt_idmap *m, const uint64_t *ids, size_t n,
		  struct qpt_attr *attr);
/* Merge all runs into one (fast lookups once no attr comes any more). */
int qpt_idmap_flatten(struct qpt_idmap *m);
struct qpt_attr *qpt_idmap_find(const struct qpt_idmap *m, uint64_t id);
void qpt_idmap_free(struct qpt_idmap *m);

/* reader_stream.c */
/* Start reading @fd: its first 16 bytes, enough to tell the mode. */
int qpt_stream_open(struct qpt_reader *r, int fd);
/* Read on until the input holds [0, @end) or ends (file mode over a pipe
 * reads what its header names, no more). */
int qpt_stream_need(struct qpt_reader *r, uint64_t end);
/*
 * A file-mode file on a pipe, copied into an unlinked temporary file
 * (tmpfile.h) instead of memory: qpt_stream_spool copies the input on up
 * to @end bytes (or its end; never asks for more, the writer may keep
 * the pipe open), qpt_stream_spool_read reads the copy, and
 * qpt_stream_spool_map maps it, the input read from then on as a mapped
 * file is.  Spool: 0, 1 when no temporary file can be made (the caller
 * reads into memory as before), -errno (a full disk, say: said).
 */
int qpt_stream_spool(struct qpt_reader *r, uint64_t end);
/* 0, or 1 when the copy does not hold [@off, @off + @n). */
int qpt_stream_spool_read(struct qpt_reader *r, uint64_t off, void *buf,
			  size_t n);
int qpt_stream_spool_map(struct qpt_reader *r);
/* [pos, pos + n) of the input: 0 and *p, 1 when the input ends first. */
int qpt_stream_view(struct qpt_reader *r, uint64_t pos, uint64_t n,
		    const uint8_t **p);
uint64_t qpt_stream_avail(const struct qpt_reader *r, uint64_t pos);
void qpt_stream_consume(struct qpt_reader *r, uint64_t pos);

/* features.c */
struct qpt_features *qpt_features_new(void);
/* Parse every present feature section (file mode). */
int qpt_features_parse(struct qpt_reader *r);
/* Parse one present feature section (again). */
int qpt_feature_parse_one(struct qpt_reader *r, unsigned feat);
void qpt_features_free(struct qpt_features *f);
/* An array of @n elements of @size, zeroed, that the reader owns until it
 * is freed (the features' allocations); NULL when out of memory. */
void *qpt_reader_alloc(struct qpt_reader *r, size_t n, size_t size);

/* swap.c */
uint16_t qpt_bswap16(uint16_t v);
uint32_t qpt_bswap32(uint32_t v);
uint64_t qpt_bswap64(uint64_t v);
/* Swap the attr of @len bytes at @attr in place: the fields of
 * perf_event_attr up to VER8 (136 bytes); later bytes become zero. */
void qpt_attr_swap(void *attr, size_t len);
/* Swap record @rec (header already host order) in place; -1 when malformed
 * in a way that prevents swapping. */
int qpt_record_swap(struct qpt_reader *r, uint8_t *rec, size_t size);
int qpt_sample_swap(const struct perf_event_attr *attr, uint8_t *rec,
		    size_t size);
void qpt_sample_id_swap(const struct perf_event_attr *attr, uint8_t *rec,
			size_t size);
uint64_t qpt_branch_flags_swap(uint64_t v);

/* sample.c */
size_t qpt_sample_id_size(uint64_t sample_type);
int qpt_sample_id_parse(const struct perf_event_attr *attr, const void *rec,
			size_t size, struct qpt_sample_id *sid);
int qpt_sample_id_pos(uint64_t sample_type);

/* decompress.c */
int qpt_zstd_new(struct qpt_zstd **z);
void qpt_zstd_free(struct qpt_zstd *z);
/* Decompress from @in into @out; advances *in_off, returns bytes out or
 * -QPT_E_FORMAT. */
long qpt_zstd_step(struct qpt_zstd *z, const uint8_t *in, size_t in_len,
		   size_t *in_off, uint8_t *out, size_t out_cap);

/* cursor helpers (features.c) */
void qpt_cursor_init(struct qpt_cursor *c, const void *p, size_t len,
		     bool swap, uint64_t base);
int qpt_cursor_u32(struct qpt_cursor *c, uint32_t *v);
int qpt_cursor_u64(struct qpt_cursor *c, uint64_t *v);
int qpt_cursor_bytes(struct qpt_cursor *c, size_t n, const uint8_t **p);
/* perf_header_string: u32 len, then len bytes holding a NUL-terminated string */
int qpt_cursor_string(struct qpt_cursor *c, const char **s);
static inline uint64_t qpt_cursor_pos(const struct qpt_cursor *c)
{
	return c->base + (uint64_t)(c->p - c->begin);
}
static inline size_t qpt_cursor_left(const struct qpt_cursor *c)
{
	return (size_t)(c->end - c->p);
}

#endif
