/* SPDX-License-Identifier: MIT */
/*
 * Reading perf.data, file mode (PERFILE2, either byte order) and pipe mode.
 *
 * The reader validates every byte it hands out: each record is bounded by
 * its header and by what remains of the input, and a failure is reported
 * with the input offset at which it was found (qpt_reader_errpos()) and a
 * one-line description (qpt_reader_errmsg()).  Offsets are input offsets
 * (in pipe mode including the 16-byte pipe header, where perf counts from
 * after it).  Records are delivered in host byte order.  COMPRESSED records are listed and then their inner records
 * follow (depth 1).  AUXTRACE payloads are spans into the mapped file where
 * the input is a regular file, copies otherwise.
 */
#ifndef QPT_READER_H
#define QPT_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"
#include "qpt/perf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_reader;

struct qpt_reader_opts {
	size_t size;	  /* sizeof(struct qpt_reader_opts) */
	qpt_log_fn log;	  /* optional */
	void *log_ctx;
	/* Inner records of COMPRESSED records are delivered (default on). */
	bool no_decompress;
};

/* Initialise @opts to defaults, setting its size. */
QPT_API void qpt_reader_opts_init_sized(struct qpt_reader_opts *opts,
					size_t size);
static inline void qpt_reader_opts_init(struct qpt_reader_opts *opts)
{
	qpt_reader_opts_init_sized(opts, sizeof(*opts));
}

/*
 * Open @path ("-" is standard input).  On success *@reader owns the file
 * until qpt_reader_free().  Returns 0, -errno, -QPT_E_FORMAT/TRUNCATED/
 * UNSUPPORTED; on a format error, when @reader is not NULL after the call
 * the caller may read errpos/errmsg and must free it.
 */
QPT_API int qpt_reader_open(const char *path,
			    const struct qpt_reader_opts *opts,
			    struct qpt_reader **reader);
/*
 * Read from an open descriptor; @name is used in messages.  Borrows @fd: a
 * regular file is mapped and @fd may be closed after the call; anything
 * else (pipe, FIFO, socket) is read as records are asked for, so @fd must
 * stay open until qpt_reader_free().  A pipe-mode stream is read
 * incrementally; a file-mode file arriving on a pipe is read whole first.
 */
QPT_API int qpt_reader_open_fd(int fd, const char *name,
			       const struct qpt_reader_opts *opts,
			       struct qpt_reader **reader);
/* Read from memory; @buf is borrowed until qpt_reader_free(). */
QPT_API int qpt_reader_open_mem(const void *buf, size_t len, const char *name,
				const struct qpt_reader_opts *opts,
				struct qpt_reader **reader);
/* Free the reader and everything it handed out; NULL is a no-op. */
QPT_API void qpt_reader_free(struct qpt_reader *reader);

QPT_API const char *qpt_reader_name(const struct qpt_reader *reader);
QPT_API bool qpt_reader_is_pipe(const struct qpt_reader *reader);
QPT_API bool qpt_reader_is_swapped(const struct qpt_reader *reader);
/*
 * Whether a file-mode input is unfinished: its header says data size 0
 * and no feature section table follows (perf record and qpt record write
 * both when they finish; perf 6.1 warns and reads no record of such a
 * file).  The reader then reads the records up to the end of the input,
 * over a pipe as they come, and a last record cut short ends them; it says
 * both through the log callback at QPT_LOG_WARN.  Such a file has no
 * features.
 */
QPT_API bool qpt_reader_is_unfinished(const struct qpt_reader *reader);
/*
 * Whether records are read from the input as they are asked for (a pipe or
 * FIFO in pipe mode, or an unfinished file on one): AUXTRACE payloads are
 * then valid until the next call only.  A file-mode file on a pipe is
 * read before the first record, and a regular file is mapped: their
 * payloads stay valid until free.
 */
QPT_API bool qpt_reader_is_stream(const struct qpt_reader *reader);
/*
 * A descriptor on which the input's bytes can be read with pread at the
 * offsets records give (pos, aux_pos): the mapped file's (a named file,
 * or one given as a descriptor, standard input say, or the temporary
 * copy of a file-mode file that came on a pipe); -1 where there is none
 * (a pipe-mode stream, memory).  Reading there leaves the mapping's
 * pages alone, so a second pass over a large file takes no memory for
 * them.  The reader's: valid until free, not to be closed.
 */
QPT_API int qpt_reader_data_fd(const struct qpt_reader *reader);
/* The file header as read (host order); NULL in pipe mode. */
QPT_API const struct qpt_file_header *
qpt_reader_file_header(const struct qpt_reader *reader);

/* Offset and one-line description of the last error; "" when none. */
QPT_API uint64_t qpt_reader_errpos(const struct qpt_reader *reader);
QPT_API const char *qpt_reader_errmsg(const struct qpt_reader *reader);

/* One event description: the attr (any on-disk attr size, host order, in
 * a qpt-owned shape: see QPT_ATTR_BYTES) with its ids and its name when
 * known. */
struct qpt_attr {
	union {
		struct perf_event_attr attr;
		uint8_t attr_bytes[QPT_ATTR_BYTES];
	};
	uint32_t nr_ids;
	const uint64_t *ids;
	const char *name; /* from EVENT_DESC / EVENT_UPDATE, or NULL */
};

/*
 * Attrs known so far (in pipe mode they arrive as HEADER_ATTR records, so
 * the count grows while reading).  Pointers stay valid until free.
 */
QPT_API size_t qpt_reader_nr_attrs(const struct qpt_reader *reader);
QPT_API const struct qpt_attr *qpt_reader_attr(const struct qpt_reader *reader,
					       size_t idx);
/* The attr whose ids contain @id; with one attr, that one; else NULL. */
QPT_API const struct qpt_attr *
qpt_reader_attr_by_id(const struct qpt_reader *reader, uint64_t id);

/*
 * The raw bytes of feature @feat (host order is NOT applied: features are
 * variable structures; use the parsed accessors below), or -ENOENT.
 */
QPT_API int qpt_reader_feature_raw(const struct qpt_reader *reader,
				   enum qpt_feature feat, const void **data,
				   size_t *size);
QPT_API bool qpt_reader_has_feature(const struct qpt_reader *reader,
				    enum qpt_feature feat);
/* A string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID). */
QPT_API const char *qpt_reader_feature_string(const struct qpt_reader *reader,
					      enum qpt_feature feat);

/*
 * The parsed feature sections.  Each part is meaningful only when
 * qpt_reader_has_feature() says the feature is present; strings and arrays
 * are borrowed from the reader until qpt_reader_free().  In pipe mode the
 * features arrive as HEADER_FEATURE records, so this fills while reading.
 */
struct qpt_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;	  /* bytes of @id that are meaningful (20 by default) */
	uint8_t id[20];
	const char *filename;
};

struct qpt_event_desc {
	union { /* as in struct qpt_attr */
		struct perf_event_attr attr;
		uint8_t attr_bytes[QPT_ATTR_BYTES];
	};
	const char *name;
	uint32_t nr_ids;
	const uint64_t *ids;
};

struct qpt_cpu_topology_cpu {
	uint32_t core_id, socket_id;
	uint32_t die_id; /* when qpt_features.has_die_id */
};

struct qpt_numa_node {
	uint32_t node;
	uint64_t mem_total, mem_free; /* kB */
	const char *cpus;
};

struct qpt_pmu_mapping {
	uint32_t type;
	const char *name;
};

struct qpt_group_desc {
	const char *name;
	uint32_t leader_idx, nr_members;
};

struct qpt_pmu_cap {
	const char *name, *value;
};

struct qpt_hybrid_node {
	const char *pmu_name, *cpus;
};

struct qpt_cache_level {
	uint32_t level, line_size, sets, ways;
	const char *type, *size, *map;
};

/*
 * The parsed features, owned by the reader.  @struct_size: the bytes of
 * it the library filled (see QPT_SIZED_HAS).  The elements of its arrays
 * of structs lie their @ARRAY_size bytes apart (build_ids_size, ...):
 * read them with QPT_FEATURES_AT(f, ARRAY, i).
 */
struct qpt_features {
	size_t struct_size;
	uint32_t nr_cpus_online, nr_cpus_avail;		/* NRCPUS */
	uint64_t total_mem;				/* TOTAL_MEM, kB */
	size_t nr_cmdline;				/* CMDLINE */
	const char **cmdline;
	size_t nr_build_ids;				/* BUILD_ID */
	const struct qpt_build_id *build_ids;
	size_t nr_event_desc;				/* EVENT_DESC */
	const struct qpt_event_desc *event_desc;
	size_t nr_sibling_cores, nr_sibling_threads, nr_sibling_dies;
	const char **sibling_cores;			/* CPU_TOPOLOGY */
	const char **sibling_threads;
	const char **sibling_dies;
	size_t nr_topology_cpus;
	const struct qpt_cpu_topology_cpu *topology_cpus;
	bool has_die_id;
	size_t nr_numa_nodes;				/* NUMA_TOPOLOGY */
	const struct qpt_numa_node *numa_nodes;
	size_t nr_pmu_mappings;				/* PMU_MAPPINGS */
	const struct qpt_pmu_mapping *pmu_mappings;
	size_t nr_groups;				/* GROUP_DESC */
	const struct qpt_group_desc *groups;
	uint64_t sample_time_first, sample_time_last;	/* SAMPLE_TIME */
	uint64_t clockid;				/* CLOCKID (ns res) */
	struct {					/* CLOCK_DATA */
		uint32_t version, clockid;
		uint64_t wall_clock_ns, clk_id_ns;
	} clock_data;
	struct {					/* COMPRESSED */
		uint32_t version, type, level, ratio, mmap_len;
	} compressed;
	size_t nr_cpu_pmu_caps;				/* CPU_PMU_CAPS */
	const struct qpt_pmu_cap *cpu_pmu_caps;
	size_t nr_hybrid_nodes;				/* HYBRID_TOPOLOGY */
	const struct qpt_hybrid_node *hybrid_nodes;
	size_t nr_caches;				/* CACHE */
	const struct qpt_cache_level *caches;
	/* the element sizes of the arrays above */
	size_t build_ids_size, event_desc_size, topology_cpus_size;
	size_t numa_nodes_size, pmu_mappings_size, groups_size;
	size_t cpu_pmu_caps_size, hybrid_nodes_size, caches_size;
};

/* Element @i of the array @array (build_ids, event_desc, topology_cpus,
 * numa_nodes, pmu_mappings, groups, cpu_pmu_caps, hybrid_nodes, caches)
 * of the features @f. */
#define QPT_FEATURES_AT(f, array, i)                                       \
	((__typeof__(&(f)->array[0]))((const char *)(f)->array +           \
				      (size_t)(i) * (f)->array##_size))

/* The parsed features (never NULL for an open reader). */
QPT_API const struct qpt_features *
qpt_reader_features(const struct qpt_reader *reader);

/* The HEADER_AUXTRACE index (file mode), in file order; may be empty. */
QPT_API size_t
qpt_reader_auxtrace_index(const struct qpt_reader *reader,
			  const struct qpt_auxtrace_index_entry **entries);

/* Parsed sample_id_all trailer or sample fields; @present says which. */
struct qpt_sample_id {
	uint64_t present; /* PERF_SAMPLE_* bits that were parsed */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, res;
	uint64_t identifier;
};

/* One record as the reader delivers it. */
struct qpt_record {
	uint64_t pos;	  /* input offset; inner records: of their COMPRESSED */
	uint32_t type;
	uint16_t misc;
	uint32_t size;	  /* header.size */
	unsigned depth;	  /* 1 for records inside a COMPRESSED record */
	const void *data; /* the whole record, host order, header first */
	const struct qpt_attr *attr; /* matched by id, or NULL */
	struct qpt_sample_id sid;    /* parsed where the attr allows */
	/* AUXTRACE only: the payload (header.size excludes it). */
	const void *aux;
	uint64_t aux_size;
	uint64_t aux_pos; /* input offset of the payload */
};

/*
 * Deliver the next record into @rec.  Borrowed pointers in @rec stay valid
 * until the next call, except AUXTRACE payloads of a mapped or in-memory
 * input outside COMPRESSED records: those point into the input (never
 * copied) and stay valid until free.  Payloads of a stream (pipe) are
 * valid until the next call.  After an error every later call returns the
 * same error.
 * Returns 1 with a record, 0 at the end, or a negative error (errpos and
 * errmsg say where and what).
 */
QPT_API int qpt_reader_next_sized(struct qpt_reader *reader,
				  struct qpt_record *rec, size_t size);
static inline int qpt_reader_next(struct qpt_reader *reader,
				  struct qpt_record *rec)
{
	return qpt_reader_next_sized(reader, rec, sizeof(*rec));
}

/*
 * Map or read @size bytes of the input at @pos (AUXTRACE payload access by
 * the index).  File input only; -QPT_E_STATE for pipes.
 */
QPT_API int qpt_reader_read_at(struct qpt_reader *reader, uint64_t pos,
			       uint64_t size, const void **data);

/*
 * The pages of a mapped input that hold [@pos, @pos + @size) may leave
 * memory: touched again, they are read again from the file, so every
 * pointer handed out stays valid.  qpt_reader_next lets the pages before
 * each record go, some MiB at a time, so one pass over a large file
 * takes bounded memory; a caller that reads elsewhere
 * (qpt_reader_read_at) may let those go too.  Other inputs: no-op.
 */
QPT_API void qpt_reader_evict(struct qpt_reader *reader, uint64_t pos,
			      uint64_t size);

/* perf's name for a record type without "PERF_RECORD_", e.g. "MMAP2";
 * NULL for an unknown type. */
QPT_API const char *qpt_record_type_name(uint32_t type);
/* perf's name of a feature, e.g. "HOSTNAME"; NULL for an unknown one. */
QPT_API const char *qpt_feature_name(enum qpt_feature feat);
/* Whether a feature is one perf string (HOSTNAME, OSRELEASE, VERSION, ARCH,
 * CPUDESC, CPUID): what qpt_reader_feature_string() reads and
 * qpt_writer_set_feature_string() writes. */
QPT_API bool qpt_feature_is_string(enum qpt_feature feat);

/* The fields of a MMAP or MMAP2 record. */
struct qpt_mmap_event {
	int32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags; /* MMAP2 (MMAP: 0) */
	uint32_t maj, min;    /* MMAP2 without a build-id (else 0) */
	uint64_t ino, ino_generation;
	bool exec;	      /* MMAP2: PROT_EXEC; MMAP: not MISC_MMAP_DATA */
	const uint8_t *build_id; /* MMAP2 with MISC_MMAP_BUILD_ID, or NULL */
	uint8_t build_id_size;
	/* The file name, borrowed from the record (NUL-terminated within
	 * it, else cut at its end: @filename_len says how much). */
	const char *filename;
	size_t filename_len;
};

/*
 * Parse the MMAP or MMAP2 record @rec (as qpt_reader_next hands it out).
 * Returns 0, -QPT_E_INVAL (another type), -QPT_E_TRUNCATED (too short for
 * its fields).
 */
QPT_API int qpt_mmap_parse_sized(const struct qpt_record *rec,
				 struct qpt_mmap_event *m, size_t size);
static inline int qpt_mmap_parse(const struct qpt_record *rec,
				 struct qpt_mmap_event *m)
{
	return qpt_mmap_parse_sized(rec, m, sizeof(*m));
}

/* The build-id the BUILD_ID feature has for @filename, or NULL. */
QPT_API const struct qpt_build_id *
qpt_reader_build_id(const struct qpt_reader *reader, const char *filename);

/* branch_sample_type's bit for counters after the entries (Linux 6.8);
 * qpt_sample_parse skips them. */
#define QPT_SAMPLE_BRANCH_COUNTERS (1ULL << 19)

/* A sample parsed by its attr's sample_type (every field). */
struct qpt_branch_entry {
	uint64_t from, to, flags;
};

struct qpt_sample {
	uint64_t sample_type;
	uint64_t identifier, ip;
	uint32_t pid, tid;
	uint64_t time, addr, id, stream_id;
	uint32_t cpu, res;
	uint64_t period;
	const void *read; /* raw read_format block */
	size_t read_size;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx; /* when PERF_SAMPLE_BRANCH_HW_INDEX */
	bool has_hw_idx;
	const struct qpt_branch_entry *branches;
	uint64_t user_regs_abi;
	const uint64_t *user_regs;
	uint32_t nr_user_regs;
	uint64_t user_stack_size, user_stack_dyn_size;
	const void *user_stack;
	uint64_t weight;
	uint64_t data_src, transaction;
	uint64_t intr_regs_abi;
	const uint64_t *intr_regs;
	uint32_t nr_intr_regs;
	uint64_t phys_addr, cgroup, data_page_size, code_page_size;
	uint32_t aux_size;
	const void *aux;
};

/*
 * Parse a SAMPLE record @rec (host order, 8-byte aligned as the records
 * qpt_reader_next() hands out are) by @attr.  Pointers borrow @rec; a
 * misaligned @rec is -QPT_E_INVAL.
 * Returns 0 or -QPT_E_FORMAT / -QPT_E_TRUNCATED.
 */
QPT_API int qpt_sample_parse_sized(const struct qpt_attr *attr,
				   const void *rec, size_t size,
				   struct qpt_sample *out, size_t out_size);
static inline int qpt_sample_parse(const struct qpt_attr *attr,
				   const void *rec, size_t size,
				   struct qpt_sample *out)
{
	return qpt_sample_parse_sized(attr, rec, size, out, sizeof(*out));
}

#ifdef __cplusplus
}
#endif

#endif /* QPT_READER_H */
