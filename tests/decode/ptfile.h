/* SPDX-License-Identifier: MIT */
/*
 * Hand-built Intel PT recordings for the decode tests (over perfbuild.h):
 * libipt's encoder for the packets, one Intel PT attr (type PTF_TYPE, id
 * 1), AUXTRACE_INFO, MMAP2 records of code files written here, and one
 * AUXTRACE record per queue.  A test adds its own other records with
 * ptf_trailer.
 */
#ifndef QPT_TEST_PTFILE_H
#define QPT_TEST_PTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/perf_event.h>

#include "auxfmt/perfbuild.h"
#include "qpt/perf_format.h"

#define PTF_TYPE 8
#define PTF_ST                                                                 \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct ptf {
	struct pb pb;
	bool times;   /* the sample_type has PERF_SAMPLE_TIME */
	bool per_cpu; /* per-cpu rings, TSC in the trace */
	bool mtc;     /* MTC packets (and TSC) in the trace */
	size_t sect;  /* the header's attrs section */
	size_t data_at;
};

/* One packet: an IP of TIP.PGE or FUP, a TSC, an MTC's or TMA's CTC;
 * TIP.PGD suppresses its IP, MODE is 64-bit exec. */
static inline void ptf_pkt(struct pt_encoder *enc, enum pt_packet_type type,
			   uint64_t val)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	switch (type) {
	case ppt_tip_pge:
	case ppt_fup:
		p.payload.ip = (struct pt_packet_ip){pt_ipc_sext_48, val};
		break;
	case ppt_tip_pgd:
		p.payload.ip.ipc = pt_ipc_suppressed;
		break;
	case ppt_tsc:
		p.payload.tsc.tsc = val;
		break;
	case ppt_mtc:
		p.payload.mtc.ctc = (uint8_t)val;
		break;
	case ppt_tma:
		p.payload.tma.ctc = (uint16_t)val;
		break;
	case ppt_mode:
		p.payload.mode.leaf = pt_mol_exec;
		p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
		break;
	default:
		break;
	}
	assert_true(pt_enc_next(enc, &p) >= 0);
}

/* @len bytes of @buf into a new file; its name into @path. */
static inline void ptf_write(char path[64], const void *buf, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/qpt-test-ptf-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* A record's sample_id (PTF_ST without IP). */
static inline void ptf_trailer(struct ptf *f, int32_t pid, uint64_t time,
			       uint32_t cpu)
{
	pb_u32(&f->pb, (uint32_t)pid);
	pb_u32(&f->pb, (uint32_t)pid);
	if (f->times)
		pb_u64(&f->pb, time);
	pb_u32(&f->pb, cpu);
	pb_u32(&f->pb, 0);
	pb_u64(&f->pb, 1); /* identifier */
}

/* @path's first 4 KiB, read and executable, at @at in @pid. */
static inline void ptf_mmap2(struct ptf *f, int32_t pid, const char *path,
			     uint64_t at, uint64_t t, uint32_t cpu)
{
	struct pb *p = &f->pb;
	size_t r = pb_rec(p, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	pb_u32(p, (uint32_t)pid);
	pb_u32(p, (uint32_t)pid);
	pb_u64(p, at);
	pb_u64(p, 0x1000);
	pb_u64(p, 0); /* pgoff */
	pb_u32(p, 8); /* maj */
	pb_u32(p, 1); /* min */
	pb_u64(p, 1); /* ino */
	pb_u64(p, 0); /* ino_generation */
	pb_u32(p, 5); /* prot: read, exec */
	pb_u32(p, 2); /* flags: private */
	pb_str(p, path, 8);
	ptf_trailer(f, pid, t, cpu);
	pb_end(p, r);
}

/* The header and the attr (its ids section: id 1); then AUXTRACE_INFO. */
static inline void ptf_begin(struct ptf *f)
{
	struct pb *p = &f->pb;
	uint64_t priv[QPT_INTEL_PT_PRIV_NR] = {0}, config = 1;
	size_t r;
	int i;

	memset(p, 0, sizeof(*p));
	pb_u64(p, QPT_PERF_MAGIC2);
	pb_u64(p, 104);
	pb_u64(p, PERF_ATTR_SIZE_VER5 + 16u);
	f->sect = p->n;
	p->n = 104;
	if (f->per_cpu || f->mtc)
		config |= 1u << 10; /* tsc */
	if (f->mtc)
		config |= 1u << 9 | 3u << 14; /* mtc, mtc_period 3 */
	pb_u32(p, PTF_TYPE);
	pb_u32(p, PERF_ATTR_SIZE_VER5);
	pb_u64(p, config);
	pb_u64(p, 1); /* sample_period */
	pb_u64(p, f->times ? PTF_ST : PTF_ST & ~(uint64_t)PERF_SAMPLE_TIME);
	pb_u64(p, 0); /* read_format */
	/* exclude_kernel, mmap, comm, task, sample_id_all, mmap2,
	 * comm_exec */
	pb_attr_flags(p, (1ull << 5) | (1ull << 8) | (1ull << 9) |
			     (1ull << 13) | (1ull << 18) | (1ull << 23) |
			     (1ull << 24));
	while (p->n < 104 + PERF_ATTR_SIZE_VER5)
		pb_u8(p, 0);
	pb_u64(p, 104 + PERF_ATTR_SIZE_VER5 + 16);
	pb_u64(p, 8);
	pb_u64(p, 1);
	f->data_at = p->n;

	r = pb_rec(p, QPT_RECORD_AUXTRACE_INFO, 0);
	pb_u32(p, QPT_AUXTRACE_INTEL_PT);
	pb_u32(p, 0);
	priv[QPT_INTEL_PT_PMU_TYPE] = PTF_TYPE;
	priv[QPT_INTEL_PT_TIME_MULT] = 1; /* TSC = perf time */
	priv[QPT_INTEL_PT_CAP_USER_TIME_ZERO] = 1;
	priv[QPT_INTEL_PT_TSC_BIT] = 1u << 10;
	priv[QPT_INTEL_PT_NORETCOMP_BIT] = 1u << 11;
	priv[QPT_INTEL_PT_PER_CPU_MMAPS] = f->per_cpu;
	priv[QPT_INTEL_PT_MTC_BIT] = 1u << 9;
	priv[QPT_INTEL_PT_MTC_FREQ_BITS] = 0xfu << 14;
	priv[QPT_INTEL_PT_TSC_CTC_N] = 2;
	priv[QPT_INTEL_PT_TSC_CTC_D] = 1;
	for (i = 0; i < QPT_INTEL_PT_PRIV_NR; i++)
		pb_u64(p, priv[i]);
	pb_end(p, r);
}

/* An AUXTRACE record of @trace's @len bytes (padded with PADs to 8),
 * of thread @tid or (per-cpu) cpu 0. */
static inline void ptf_auxtrace(struct ptf *f, const uint8_t *trace,
				size_t len, int32_t tid)
{
	struct pb *p = &f->pb;
	size_t r = pb_rec(p, QPT_RECORD_AUXTRACE, 0), pad;

	pad = (8 - len % 8) % 8;
	pb_u64(p, len + pad);
	pb_u64(p, 0); /* offset */
	pb_u64(p, 0); /* reference */
	pb_u32(p, 0); /* idx */
	pb_u32(p, f->per_cpu ? (uint32_t)-1 : (uint32_t)tid);
	pb_u32(p, f->per_cpu ? 0 : (uint32_t)-1);
	pb_u32(p, 0);
	pb_end(p, r);
	pb_bytes(p, trace, len);
	while (pad--)
		pb_u8(p, 0); /* PAD packets */
}

/* The header's sections set; the file written, its name into @path. */
static inline void ptf_end(struct ptf *f, char path[64])
{
	struct pb *p = &f->pb;

	pb_set_u64(p, f->sect, 104);
	pb_set_u64(p, f->sect + 8, PERF_ATTR_SIZE_VER5 + 16u);
	pb_set_u64(p, f->sect + 16, f->data_at);
	pb_set_u64(p, f->sect + 24, p->n - f->data_at);
	ptf_write(path, p->b, p->n);
}

#endif
