/* SPDX-License-Identifier: MIT */
/* decode/: internal interfaces between the decoder's parts. */
#ifndef QPT_DECODE_INTERNAL_H
#define QPT_DECODE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "auxfmt/x86/x86.h"
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
	bool asked_raw;	/* looked up as one (qd_files_get's @raw) */
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
	uint64_t errors, bytes; /* atomic adds: workers share the file */
	bool reported;
	bool used;	/* mapped by some recording */
	/* srcline.c: the line tables, made at the first lookup */
	struct qd_lines *lines;
	bool lines_err; /* tried (lines NULL: there are none) */
	const char *sysroot, *buildid_dir; /* the qd_files' (borrowed) */
	struct qd_file *next;
};

struct qd_files {
	const char *sysroot;
	const char *buildid_dir;
	const char *data_path; /* the recording: FILE.vdso beside it */
	struct qd_file *head;
	qpt_log_fn log;
	void *log_ctx;
	bool demangle; /* symbol names demangled as they are loaded */
	struct debuginfod_client *debuginfod; /* made at its first use */
};

/*
 * The executable of build-id @bid from the debuginfod servers that
 * DEBUGINFOD_URLS names: 0 with *@path (the client's cached copy, which
 * the caller frees), -ENOENT (no server, none has it) or -ENOMEM.
 */
int qd_debuginfod_find(struct qd_files *files, const uint8_t *bid,
		       size_t bid_size, char **path);
/* End the files' debuginfod client, if any. */
void qd_debuginfod_end(struct qd_files *files);

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
/* The same, and [*@from, *@to): the link-time addresses around @addr
 * that have the same answer (NULL too). */
const struct qd_sym *qd_file_sym_range(const struct qd_file *file,
				       uint64_t addr, uint64_t *from,
				       uint64_t *to);
/* The build-id @bid of @n bytes as lowercase hex in @out (2n + 1 bytes),
 * as the build-id cache and /usr/lib/debug/.build-id name it. */
void qd_bid_hex(const uint8_t *bid, size_t n, char *out);

/* ---- srcline.c: source lines from the DWARF line tables ---- */

struct qd_lines;
/*
 * The source file and line of link-time address @addr in @file (its
 * DWARF, or its debug file's), and [*@lo, *@hi): the addresses of that
 * line-table row.  Returns 1, 0 (no line there; *@src NULL) or -ENOMEM.
 * *@src is valid until qd_files_free().
 */
int qd_file_srcline(struct qd_file *file, uint64_t addr, const char **src,
		    unsigned *line, uint64_t *lo, uint64_t *hi);
void qd_lines_free(struct qd_lines *t);

/* ---- idmap.c: 32-bit identifiers to array positions ---- */

struct qd_idmap {
	uint32_t *keys, *vals; /* vals: position + 1, 0 = empty slot */
	size_t cap, n;
};

/* Set @key to @val (< UINT32_MAX).  Returns 0 or -ENOMEM. */
int qd_idmap_put(struct qd_idmap *m, uint32_t key, uint32_t val);
bool qd_idmap_get(const struct qd_idmap *m, uint32_t key, uint32_t *val);
/* Frees the table; the map is empty (and usable) again. */
void qd_idmap_free(struct qd_idmap *m);
/*
 * How many leading elements of the @n-element array @base (@size bytes
 * each) come before @key: @before(element, @key) holds for a prefix of
 * the array and for nothing after it.
 */
size_t qd_partition(const void *base, size_t n, size_t size,
		    bool (*before)(const void *elem, const void *key),
		    const void *key);

/* ---- space.c: per-process address spaces ---- */

struct qd_map {
	uint64_t start, end, pgoff;
	struct qd_file *file;
	int64_t sym_bias; /* runtime - link-time address */
	bool has_bias;
};

#define QD_SYM_HITS 4

struct qd_space {
	int32_t pid;
	struct qd_map *maps; /* sorted by start, non-overlapping */
	size_t nr_maps, cap_maps;
	struct pt_image *image;
	const struct qd_map *last; /* lookup cache */
	/* the last symbol answers (a branch's source and target alternate
	 * between functions), replaced in turn */
	struct qd_sym_hit {
		const struct qd_sym *sym; /* (NULL: no symbol there) */
		uint64_t lo, hi;	  /* where the answer holds */
		uint64_t base;		  /* sym's runtime address */
	} sym_hit[QD_SYM_HITS];
	unsigned sym_next; /* the one to replace */
	const char *last_src; /* the line of [last_src_lo, last_src_hi) */
	unsigned last_line;
	uint64_t last_src_lo, last_src_hi;
};

struct qd_space *qd_space_new(int32_t pid);
void qd_space_free(struct qd_space *space);
/* A copy (fork): maps and image. */
struct qd_space *qd_space_clone(const struct qd_space *space, int32_t pid);
/* Map every mapping of @from (may be NULL) into @to too. */
int qd_space_copy(struct qd_space *to, struct pt_image_section_cache *isc,
		  const struct qd_space *from);
/*
 * Whether mapping @file at [start, start + len) from file offset @pgoff
 * would put other code where a found file is mapped (not the same file at
 * the same place).
 */
bool qd_space_conflicts(const struct qd_space *space, uint64_t start,
			uint64_t len, uint64_t pgoff,
			const struct qd_file *file);
/*
 * Map [start, start + len) of @file at file offset @pgoff: replaces what was
 * there and adds the file's executable bytes to the image through @iscache
 * (NULL: no bytes, the space serves lookups of symbols and lines only).
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
/* The source file and *@line of @ip (qd_file_srcline), or NULL. */
const char *qd_space_srcline(struct qd_space *space, uint64_t ip,
			     unsigned *line);

/* ---- history.c: each process's address spaces over time ---- */

/* A sideband position: the sample time of a record (or the latest time
 * before it in the file), then its index in the file. */
struct qd_when {
	uint64_t time, seq;
};

struct qd_epoch {
	struct qd_space *space;
	struct qd_when from; /* in force from this position on */
	bool own;	     /* has mappings of the process itself */
};

struct qd_proc {
	int32_t pid;
	struct qd_epoch *ep; /* in sideband order; ep[0] from the start */
	size_t nr_ep, cap_ep;
};

struct qd_hist {
	struct pt_image_section_cache *isc;
	const struct qd_space *manual; /* --image: in every space */
	struct qd_space *kernel;       /* pid -1 mappings: in every space */
	struct qd_space *all;	       /* every mapping: process unknown */
	struct qd_proc *procs;
	size_t nr_procs, cap_procs;
	struct qd_idmap pids;
	uint64_t budget; /* what earlier epochs may still keep (history.c) */
};

/* Returns 0 or -ENOMEM (@h is then empty and may be finished). */
int qd_hist_init(struct qd_hist *h, struct pt_image_section_cache *isc,
		 const struct qd_space *manual);
void qd_hist_fini(struct qd_hist *h);
/*
 * The sideband, in sideband order: MMAP/MMAP2 of @pid (-1: the kernel's,
 * in every process), exec (COMM with PERF_RECORD_MISC_COMM_EXEC) and
 * fork of process @pid from @ppid.  Each returns 0 or -ENOMEM.
 */
int qd_hist_map(struct qd_hist *h, int32_t pid, const struct qd_when *w,
		uint64_t start, uint64_t len, uint64_t pgoff,
		struct qd_file *file);
int qd_hist_exec(struct qd_hist *h, int32_t pid, const struct qd_when *w);
int qd_hist_fork(struct qd_hist *h, int32_t pid, int32_t ppid,
		 const struct qd_when *w);
/* The address space of @pid in force at @at; NULL for an unknown pid. */
struct qd_space *qd_hist_space(struct qd_hist *h, int32_t pid,
			       const struct qd_when *at);
/* When the history has exactly one process: true and its pid. */
bool qd_hist_sole_pid(const struct qd_hist *h, int32_t *pid);

/* ---- flow.c: the libipt instruction flow turned into items ---- */

struct qd_runs;
struct qd_prof;

/* ---- profile.c: counts per thread and per function ---- */

struct qd_map;
struct qd_prof *qd_prof_new(void);
void qd_prof_free(struct qd_prof *p);
void qd_prof_reset(struct qd_prof *p);
/* The entry of the function @name (NULL: no symbol, in @map's image) or
 * of thread @pid/@tid; NULL on -ENOMEM (qd_prof_err says so). */
struct qpt_profile_func *qd_prof_func(struct qd_prof *p, const char *name,
				      const struct qd_map *map);
struct qpt_profile_thread *qd_prof_thread(struct qd_prof *p, int32_t pid,
					  int32_t tid);
int qd_prof_err(const struct qd_prof *p);

/* ---- coverage.c: basic blocks and edges with their counts ---- */

struct qd_cov;
/* An entry's index, or QD_COV_NONE (out of memory: qd_cov_err says so) */
#define QD_COV_NONE UINT32_MAX
#define QD_COV_MAX (1u << 28)
struct qd_cov *qd_cov_new(void);
void qd_cov_free(struct qd_cov *c);
void qd_cov_reset(struct qd_cov *c);
int qd_cov_err(const struct qd_cov *c);
/* The entry of the block of @size bytes at @ip in @sp, made when new. */
uint32_t qd_cov_block(struct qd_cov *c, struct qd_space *sp, uint64_t ip,
		      uint32_t size);
uint32_t qd_cov_edge(struct qd_cov *c, uint64_t from, uint64_t to);
/* Add @n to the count of entry @i (QD_COV_NONE: nothing). */
void qd_cov_count_block(struct qd_cov *c, uint32_t i, uint64_t n);
void qd_cov_count_edge(struct qd_cov *c, uint32_t i, uint64_t n);

struct qd_time_conv {
	bool valid;
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
};

/* A run's progress: the bytes of the flows before the current one, of
 * @total; the blocks decoded (the callback is told every few thousand). */
struct qd_progress {
	qpt_progress_fn fn;
	void *ctx;
	uint64_t done, total;
	unsigned blocks;
};

/*
 * What a flow hands over where its buffer ends at a PSB: the last
 * instruction, while its successor (in the next buffer) is unknown.
 */
struct qd_carry {
	bool pending;
	uint8_t size;
	unsigned kind;	/* qpt_branch_kind, or QPT_BR_NR */
	uint64_t ip;
	bool timed;	/* its time (a branch's), read before the cut */
	uint64_t time;
	bool branched;	/* out: the carried instruction was a taken branch */
	uint64_t cycles; /* CYC cycles for the next taken branch */
	uint64_t cyc_next; /* CYC cycles for the next decision */
	/* QPT_WANT_COVERAGE: the basic block being walked (flowpriv.h) */
	bool cov_open;
	uint64_t cov_ip, cov_end;
	struct qd_space *cov_space;
};

/*
 * A flow over a buffer that starts at a PSB differs from one carried on
 * from the buffer before only up to the first place where the carried
 * instruction matters (its successor becomes known, or it is dropped):
 * its head.  QD_HEAD_DROP leaves the head's items out (decoding before the
 * buffer before is done); QD_HEAD_ONLY makes only the head, with the
 * carried state, and stops (qd_flow_step returns QD_HEAD_STOP).
 */
enum qd_head { QD_HEAD_EMIT, QD_HEAD_DROP, QD_HEAD_ONLY };
#define QD_HEAD_STOP (-0x7ffff000)

struct qd_flow_ctx {
	unsigned want;
	qpt_item_fn fn;
	void *fn_ctx;
	struct qd_space *space; /* for symbols and missing images */
	struct qd_time_conv tc;
	unsigned queue;
	int32_t pid, tid, cpu; /* -1 when unknown */
	/*
	 * optional: the address space in force at a trace position (offset
	 * in the buffer; the trace's TSC when @has_tsc), which may also set
	 * pid and tid (threads followed through context switches); NULL
	 * keeps @space.  Asked at each synchronisation, at each trace
	 * enable (where an exec can have changed the code) and at each
	 * timestamp change.
	 */
	struct qd_space *(*locate)(struct qd_flow_ctx *fc, uint64_t offset,
				   bool has_tsc, uint64_t tsc, void *arg);
	void *locate_arg;
	struct qx86_cache *cache; /* optional: decoded instructions kept
				   * across runs (QD_ICACHE_ORDER) */
	struct qpt_decode_stats *stats;
	bool after_loss; /* the bytes follow lost trace: no PSB in them is
			  * no error */
	uint64_t offset_base; /* of the bytes in their run: items' offsets
			       * count from the run's start */
	/* optional: the fast decoder's runs kept across runs (not shared
	 * by threads; NULL: the run makes its own) */
	struct qd_runs *runs;
	bool libipt_only; /* decode with libipt's block decoder alone */
	struct qd_prof *prof; /* QPT_WANT_PROFILE: counted here */
	struct qd_cov *cov;   /* QPT_WANT_COVERAGE: counted here */
	struct qd_paths *paths; /* optional: the path cache (count-only
				 * flows), whose counts go to prof and cov */
	struct qd_blks *blks; /* optional: blocks' instructions (flows with
			       * instruction items; not shared by threads) */
	struct qd_progress *progress; /* optional */
	struct qd_carry carry; /* in at open, out at close */
	enum qd_head head;
	bool head_done;	 /* out: the head ended */
};

/*
 * Decode the PT bytes [buf, buf + len) with @config's cpu/timing fields
 * (begin/end are set here) against @fc->space.  Returns 0 or the
 * callback's negative value or -ENOMEM.
 */
int qd_flow_run(struct qd_flow_ctx *fc, const struct pt_config *config,
		const uint8_t *buf, size_t len);

/*
 * The same one step at a time, for flows that interleave: open (the
 * carried state of @fc->carry taken in; @buf borrowed until close: its
 * first @own bytes the trace to decode, the rest the PSB+ of the next
 * buffer, where the flow ends, at its first status update), steps
 * (each: a synchronisation, or libipt's events and one block) returning 1
 * while there is more, 0 at the end, or the callback's negative value,
 * -ENOMEM, QD_HEAD_STOP; close hands the state over in @fc->carry.
 */
struct qd_flow;
int qd_flow_open(struct qd_flow_ctx *fc, const struct pt_config *config,
		 const uint8_t *buf, size_t len, size_t own,
		 struct qd_flow **f);
int qd_flow_step(struct qd_flow *f);
/* The time of the items made last; false when the trace has none yet. */
bool qd_flow_time(const struct qd_flow *f, uint64_t *time);
void qd_flow_close(struct qd_flow *f);

/* The size of the flow's cache of decoded instructions: 2^order. */
#define QD_ICACHE_ORDER 14

/* iptbuf.c: @buf, or where it would let libipt read past its @len bytes
 * (a PSB pattern word at its end), a copy with bytes to spare, *@own to
 * free (NULL: none); NULL when out of memory. */
const uint8_t *qd_ipt_buf(const uint8_t *buf, size_t len, uint8_t **own);

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
/* What the counter before a cut left (a flow carried over it): @cycles
 * that decisions before the counter's start passed on to the next taken
 * branch, and @next counted since the last of them, the next decision's. */
void qd_cyc_give(struct qd_cyc *c, uint64_t cycles, uint64_t next);
/* The cycles not given to a branch yet: those decisions passed on
 * (returned), and in @next those counted since the last decision up to
 * trace offset @end (the cut: the next decision's, after it); the counter
 * is done. */
uint64_t qd_cyc_rest(struct qd_cyc *c, uint64_t end, uint64_t *next);

#endif
