/* SPDX-License-Identifier: MIT */
/*
 * Crash facts in perf.data: what `qpt record` saw when a traced thread got
 * a fatal signal (or reached a --snapshot-on address), for `qpt crash`.
 *
 * Where (since 0.2): one PERF_RECORD_SAMPLE per fact, of a software event
 * of qpt's own, "qpt:crash" (its attr: qpt_crash_event_attr; its name in
 * EVENT_DESC), which every perf tool reads, shows and passes on (perf
 * script prints it at the faulting instruction, -F +uregs its
 * registers; perf inject keeps it, to a file or a pipe).  sample_type
 * QPT_CRASH_SAMPLE_TYPE, in perf's order: IDENTIFIER (QPT_CRASH_EVENT_ID)  IP
 * (the faulting instruction) TID (pid, tid)  TIME (perf time, ns)  ADDR
 * (si_addr of SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP; else 0)  PERIOD (1) RAW
 * (QPT_CRASH_RAW_SIZE bytes, in the file's byte order): u32 version (1)  u32
 * kind (enum qpt_crash_kind) s32 signo  s32 code (si_code)  s32 errno
 * (si_errno) u32 insn_len (of insn[] that could be read)  u8 insn[16] u64
 * orig_rax, fs_base, gs_base, ds, es, fs, gs (the registers REGS_USER leaves
 * out)  u32 flags (QPT_CRASH_NO_REGS: the source could not read the
 * registers, which are 0; else 0) REGS_USER (ABI_64; QPT_CRASH_REGS_MASK: perf's x86-64
 * user registers) STACK_USER (up to QPT_CRASH_STACK_MAX bytes from rsp up, as
 * perf's dwarf call graphs keep it: size, the bytes, dyn_size)
 *
 * Before (files of qpt 0.1, still read): a feature section of its own,
 * bit QPT_FEAT_QPT_CRASH of the header's adds_features, which perf skips
 * (and which perf's pipe writer does not survive: perf inject -o -
 * crashed on it), in the file's byte order:
 *
 *   u32 version (1)   u32 nr
 *   nr entries, each:
 *     u32 kind (enum qpt_crash_kind)   u32 size (of the entry, bytes)
 *     s32 signo  s32 code (si_code)  s32 errno (si_errno)  s32 pid
 *     s32 tid    u32 nr_regs
 *     u64 addr   u64 ip     u64 time (perf time, ns)
 *     u8  insn[16] (the bytes at ip)
 *     u8  insn_len (how many of them could be read)   u8 pad[7] (0)
 *     u64 regs[nr_regs] (x86-64: struct user_regs_struct order, 27)
 *
 * A reader takes the first fields of an entry it knows and skips to
 * @size, so entries may grow.
 */
#ifndef QPT_CRASH_H
#define QPT_CRASH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qpt/qpt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qpt_reader;
struct qpt_attr;
struct qpt_record;
struct perf_event_attr;

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
	/* The thread's stack from @stack_addr (its rsp) up: @stack_len
	 * bytes at @stack (borrowed: see where the struct comes from), 0
	 * when none was kept (the feature form keeps none). */
	uint64_t stack_addr;
	uint32_t stack_len;
	const uint8_t *stack;
};

/* qpt's crash event: a software event (perf shows its samples by the
 * name), the identifier of its samples, what they hold. */
#define QPT_CRASH_EVENT_NAME "qpt:crash"
#define QPT_CRASH_EVENT_ID 0x7170745f63726173ull /* "qpt_cras" */
#define QPT_CRASH_SAMPLE_TYPE                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |           \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |            \
	 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* AX..SS and R8..R15 (PERF_REG_X86_*): what the kernel gives 64-bit
 * tasks; the segment registers DS..GS are not among them. */
#define QPT_CRASH_REGS_MASK 0xff0fffull
#define QPT_CRASH_NR_PERF_REGS 20
#define QPT_CRASH_RAW_SIZE 100
/* RAW's flags: no registers (a QEMU crash: QEMU's registers are its own). */
#define QPT_CRASH_NO_REGS 1u
/* The stack bytes one sample holds (the record's size is a u16). */
#define QPT_CRASH_STACK_MAX 65184u
#define QPT_CRASH_SAMPLE_MAX 65536u

/* The crash event's attr (its name is QPT_CRASH_EVENT_NAME). */
QPT_API void qpt_crash_event_attr(struct perf_event_attr *attr);

/* Whether @attr is qpt's crash event (by its name, else by its type,
 * config and sample_type). */
QPT_API bool qpt_crash_is_event(const struct qpt_attr *attr);

/*
 * Encode @c as a SAMPLE record of the crash event (host order) into
 * @buf of @size bytes (QPT_CRASH_SAMPLE_MAX are enough): its stack's
 * first QPT_CRASH_STACK_MAX bytes at most.  Returns the record's size,
 * -QPT_E_INVAL (@size too small, nr_regs not QPT_CRASH_MAX_REGS).
 */
QPT_API int qpt_crash_sample_encode(const struct qpt_crash *c, void *buf,
				    size_t size);

/*
 * The crash fact of SAMPLE record @rec of the crash event (@rec as the
 * reader hands it, @rec->attr set; @swapped: the file's byte order is
 * not the host's, as qpt_reader_is_swapped) into @c: the registers in
 * user_regs_struct order, the stack borrowed from @rec.  Returns 0 or
 * -QPT_E_FORMAT (not such a sample, or one that does not parse).
 */
QPT_API int qpt_crash_sample_parse(const struct qpt_record *rec, bool swapped,
				   struct qpt_crash *c);

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
