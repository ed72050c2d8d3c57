/* SPDX-License-Identifier: MIT */
/*
 * Crash facts in perf.data: what `qpt record` saw when a traced thread got
 * a fatal signal (or reached a --snapshot-on address), for `qpt crash`.
 *
 * Where: a feature section of its own, bit QPT_FEAT_QPT_CRASH of the
 * header's adds_features, far above perf's features.  perf reads only the
 * feature bits it knows and skips the sections of the others (perf
 * report --header-only does not show it; perf script decodes the file as
 * without it).  A record type of its own would not do: perf stops at
 * a record type it does not know.  Pipe mode carries no crash facts (perf
 * fails on a HEADER_FEATURE record of a feature it does not know).
 *
 * Layout, in the file's byte order (like every perf.data field):
 *
 *   u32 version (1)   u32 nr
 *   nr entries, each:
 *     u32 kind (enum qpt_crash_kind)   u32 size (of the entry, bytes)
 *     s32 signo  s32 code (si_code)  s32 errno (si_errno)  s32 pid
 *     s32 tid    u32 nr_regs
 *     u64 addr (si_addr of SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP; else 0)
 *     u64 ip     u64 time (perf time, ns)
 *     u8  insn[16] (the bytes at ip)
 *     u8  insn_len (how many of them could be read)   u8 pad[7] (0)
 *     u64 regs[nr_regs] (x86-64: struct user_regs_struct order, 27)
 *
 * A reader takes the first fields of an entry it knows and skips to
 * @size, so entries may grow.
 */
#ifndef QPT_CRASH_H
#define QPT_CRASH_H

#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_reader;

/* The feature bit (perf's features end below 40). */
#define QPT_FEAT_QPT_CRASH 192
#define QPT_CRASH_VERSION 1
#define QPT_CRASH_MAX_REGS 27

enum qpt_crash_kind {
	QPT_CRASH_SIGNAL = 1,  /* a thread got a fatal signal: it dies */
	QPT_CRASH_TRIGGER = 2, /* a thread reached a --snapshot-on address */
};

struct qpt_crash {
	uint32_t kind; /* enum qpt_crash_kind */
	int32_t signo, code, err;
	int32_t pid, tid;
	uint64_t addr, ip, time;
	uint8_t insn[16];
	uint8_t insn_len;
	uint32_t nr_regs;
	uint64_t regs[QPT_CRASH_MAX_REGS];
};

/*
 * Encode @nr entries as the feature's bytes, host order, into a buffer
 * the caller frees (*@buf, *@len).  Returns 0, -ENOMEM, -QPT_E_INVAL
 * (nr_regs over QPT_CRASH_MAX_REGS).
 */
QPT_API int qpt_crash_encode(const struct qpt_crash *c, size_t nr,
			     void **buf, size_t *len);

/*
 * The entries of @reader's crash feature (byte order applied), in a
 * buffer the caller frees (*@list, NULL when none).  Returns the count (0
 * without the feature), -ENOMEM, -QPT_E_FORMAT (a section that does not
 * parse: bad version, an entry past the end or shorter than its fields).
 */
QPT_API int qpt_crash_read(const struct qpt_reader *reader,
			   struct qpt_crash **list);

/* The size of one entry on disk with @nr_regs registers. */
#define QPT_CRASH_ENTRY_SIZE(nr_regs) (80 + 8 * (size_t)(nr_regs))

#ifdef __cplusplus
}
#endif

#endif /* QPT_CRASH_H */
