/* SPDX-License-Identifier: MIT */
/* decode/: internal interfaces between the decoder's parts. */
#ifndef QPT_DECODE_INTERNAL_H
#define QPT_DECODE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "qpt/decode.h"

/* ---- files.c: files that back mappings, their segments and symbols ---- */

struct qd_sym {
	uint64_t addr, size; /* link-time address */
	const char *name;
	unsigned rank; /* binding: 0 global, 1 weak, 2 local */
};

struct qd_seg {
	uint64_t offset, filesz, vaddr; /* an executable PT_LOAD */
};

struct qd_file {
	char *path;	/* as recorded (or as given) */
	char *found;	/* the file opened, or NULL when missing */
	const char *reason; /* why missing, or NULL */
	int err;	/* ... as -errno or -QPT_E_* */
	bool is_elf;
	bool raw;	/* a raw memory image (not ELF) */
	uint64_t size;	/* of the file found */
	const uint8_t *data; /* the file, mapped read-only */
	struct qd_seg *segs;
	size_t nr_segs;
	struct qd_sym *syms; /* sorted by addr */
	size_t nr_syms;
	char *strtab;	/* names of syms */
	uint8_t build_id[20];
	uint8_t build_id_size;
	/* accounting */
	uint64_t errors, bytes;
	bool reported;
	bool used;	/* mapped by some recording */
	struct qd_file *next;
};

struct qd_files {
	const char *sysroot;
	const char *buildid_dir;
	struct qd_file *head;
	qpt_log_fn log;
	void *log_ctx;
};

/*
 * The file for recorded @path (build-id @bid of @bid_size bytes, 0 when
 * unknown), opened once and cached; NULL only on -ENOMEM.  A missing file
 * yields an entry with found == NULL and a reason.
 */
struct qd_file *qd_files_get(struct qd_files *files, const char *path,
			     const uint8_t *bid, size_t bid_size, bool raw);
void qd_files_free(struct qd_files *files);
/* The symbol holding link-time address @addr, or NULL. */
const struct qd_sym *qd_file_sym(const struct qd_file *file, uint64_t addr);

/* ---- space.c: per-process address spaces ---- */

struct qd_map {
	uint64_t start, end, pgoff;
	struct qd_file *file;
	int64_t sym_bias; /* runtime - link-time address */
	bool has_bias;
};

struct qd_space {
	int32_t pid;
	struct qd_map *maps; /* sorted by start, non-overlapping */
	size_t nr_maps, cap_maps;
	struct pt_image *image;
	const struct qd_map *last; /* lookup cache */
	const struct qd_sym *last_sym;
	uint64_t last_sym_lo, last_sym_hi; /* runtime range of last_sym */
};

struct qd_space *qd_space_new(int32_t pid);
void qd_space_free(struct qd_space *space);
/* A copy (fork): maps and image. */
struct qd_space *qd_space_clone(const struct qd_space *space, int32_t pid);
/* Forget every mapping (exec). */
int qd_space_reset(struct qd_space *space);
/*
 * Map [start, start + len) of @file at file offset @pgoff: replaces what was
 * there and adds the file's executable bytes to the image through @iscache.
 * Returns 0 or a negative error.
 */
int qd_space_map(struct qd_space *space, struct pt_image_section_cache *isc,
		 uint64_t start, uint64_t len, uint64_t pgoff,
		 struct qd_file *file);
const struct qd_map *qd_space_find(struct qd_space *space, uint64_t ip);
/* Symbol for @ip: name and offset; NULL when unknown. */
/* Copy up to @n bytes of code at @ip into @buf; returns how many. */
size_t qd_space_read(struct qd_space *space, uint64_t ip, uint8_t *buf,
		     size_t n);
/* The 15 code bytes at @ip: a pointer into a mapped file when they lie in
 * one mapping, else copied into @buf; returns how many are available. */
size_t qd_space_code(struct qd_space *space, uint64_t ip, uint8_t *buf,
		     const uint8_t **code);
const char *qd_space_sym(struct qd_space *space, uint64_t ip, uint64_t *off);

/* ---- flow.c: the libipt instruction flow turned into items ---- */

struct qd_time_conv {
	bool valid;
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
};

struct qd_flow_ctx {
	unsigned want;
	qpt_item_fn fn;
	void *fn_ctx;
	struct qd_space *space; /* for symbols and missing images */
	struct qd_time_conv tc;
	unsigned queue;
	int32_t pid, tid, cpu; /* -1 when unknown */
	/* optional: called on every timestamp change to follow threads */
	void (*on_time)(struct qd_flow_ctx *fc, uint64_t tsc, void *arg);
	void *on_time_arg;
	/* set by on_time when @space changed (another process runs) */
	bool space_changed;
	struct qpt_decode_stats *stats;
};

/*
 * Decode the PT bytes [buf, buf + len) with @config's cpu/timing fields
 * (begin/end are set here) against @image.  Returns 0 or the callback's
 * negative value or -ENOMEM.
 */
int qd_flow_run(struct qd_flow_ctx *fc, const struct pt_config *config,
		const uint8_t *buf, size_t len, struct pt_image *image);

uint64_t qd_tsc_to_time(const struct qd_time_conv *tc, uint64_t tsc);

/* ---- cyc.c: CYC cycles by decision ---- */

struct qd_cyc;

/* A counter over the trace of @config (begin and end set); NULL: -ENOMEM. */
struct qd_cyc *qd_cyc_new(const struct pt_config *config);
void qd_cyc_free(struct qd_cyc *c);
/* The block decoder synchronized at @offset (a PSB): start there. */
void qd_cyc_sync(struct qd_cyc *c, uint64_t offset);
/* A decision that is no taken branch (a conditional branch not taken):
 * its cycles go to the next taken branch. */
void qd_cyc_pass(struct qd_cyc *c);
/* The cycles of a taken branch: those passed on to it, and of its own
 * decision when @decision (not for direct jumps and calls). */
uint64_t qd_cyc_take(struct qd_cyc *c, bool decision);

#endif
