/* SPDX-License-Identifier: MIT */
/*
 * Splitting an Intel PT perf.data into standalone shards cut at PSBs, so
 * that other machines (or processes) decode them independently: the
 * decode of each shard, in shard order, is the decode of the whole file.
 *
 * The whole file's decode goes queue after queue (in the order the
 * queues' AUXTRACE records first come), each queue's bytes in order; the
 * units of a split are the stretches of a queue from one PSB to the next
 * (the bytes before a queue's first PSB, or after a loss, go with the
 * first), cut in that order into contiguous parts of about equal trace
 * bytes.  A decoder needs no state across a PSB.  Each shard holds the
 * input's attrs, features (build-ids...), AUXTRACE_INFO and every
 * sideband record, and the AUXTRACE bytes of its units at their aux
 * offsets in their queues (idx, tid, cpu kept), where the input had them
 * among the sideband; a loss the kernel recorded (AUX TRUNCATED) is a
 * loss in the one shard whose decode tells it, and an AUXTRACE_ERROR
 * record goes to the shard that tells it at its queue's start.
 */
#ifndef QPT_SPLIT_H
#define QPT_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most shards of a split (each is open while the input is read). */
#define QPT_SPLIT_MAX 512u

struct qpt_split_opts {
	size_t size;	 /* sizeof(struct qpt_split_opts) */
	uint32_t shards; /* at most this many, 1..QPT_SPLIT_MAX */
};

QPT_API void qpt_split_opts_init_sized(struct qpt_split_opts *opts,
				       size_t size);
static inline void qpt_split_opts_init(struct qpt_split_opts *opts)
{
	qpt_split_opts_init_sized(opts, sizeof(*opts));
}

struct qpt_split_result {
	size_t size;	  /* sizeof(struct qpt_split_result) */
	uint32_t shards;  /* written: fewer than asked when fewer units */
	uint64_t units;	  /* PSB-to-PSB stretches of the queues (each at
			   * least a sixteenth of a shard's share, but at a
			   * loss or a queue's end) */
	uint64_t errpos;  /* a failure's input offset (0: none known) */
	char errmsg[160]; /* a failure in one line, or "" */
};

/* "DIR/shard-NNN.data", shard @i's name, into @buf of @len bytes.
 * Returns its length or -QPT_E_INVAL (it does not fit). */
QPT_API int qpt_split_name(const char *dir, uint32_t i, char *buf, size_t len);

/*
 * Split the perf.data file @path (file mode, host byte order; not a pipe)
 * into shards in the existing directory @dir, named by qpt_split_name
 * (created 0600, replacing files of those names); the vDSO bytes kept
 * beside @path (PATH.vdso) are copied beside each shard.  @res (its size
 * set) says how many shards and units, or why it failed; on failure no
 * shard is left.  Returns 0, -errno (reading, creating, writing),
 * -QPT_E_FORMAT or -QPT_E_TRUNCATED (the input), -QPT_E_UNSUPPORTED (no
 * Intel PT trace, a pipe or byte-swapped input, an AUXTRACE_ERROR that
 * queues of two shards would tell), -QPT_E_INVAL (bad opts, NULL).
 */
QPT_API int qpt_split_file(const char *path, const char *dir,
			   const struct qpt_split_opts *opts,
			   struct qpt_split_result *res);

#ifdef __cplusplus
}
#endif

#endif /* QPT_SPLIT_H */
