// SPDX-License-Identifier: MIT
/*
 * The crash facts as samples of qpt's crash event (include/qpt/crash.h):
 * one encoder, one bounded parser.  The registers go in perf's order
 * (REGS_USER) and the rest of user_regs_struct in RAW; RAW's fields are
 * in the file's byte order, which perf does not swap.
 */
#include <string.h>

#include "auxfmt/reader_internal.h"
#include "qpt/crash.h"
#include "qpt/reader.h"

/* REGS_USER's registers, in mask order, as user_regs_struct indexes. */
static const uint8_t perf_to_user[QPT_CRASH_NR_PERF_REGS] = {
    10, 5,  11, 12, 13, 14, 4, 19, 16, 18, /* ax bx cx dx si di bp sp ip fl */
    17, 20,				   /* cs ss */
    9,	8,  7,	6,  3,	2,  1, 0,	   /* r8 .. r15 */
};
/* The rest, in RAW: orig_rax, fs_base, gs_base, ds, es, fs, gs. */
#define NR_EXTRA 7
static const uint8_t extra_user[NR_EXTRA] = {15, 21, 22, 23, 24, 25, 26};

#define RAW_EXTRA 40 /* the extra registers' offset in RAW */
/* The fixed part of a sample: header, IDENTIFIER, IP, TID, TIME, ADDR,
 * PERIOD, RAW (its size and bytes), REGS_USER, STACK_USER's size and
 * dyn_size. */
#define FIXED                                                                  \
	(8 + 6 * 8 + 4 + QPT_CRASH_RAW_SIZE + 8 + 8 * QPT_CRASH_NR_PERF_REGS + \
	 16)
_Static_assert((4 + QPT_CRASH_RAW_SIZE) % 8 == 0, "RAW keeps u64 alignment");
_Static_assert(FIXED + QPT_CRASH_STACK_MAX <= 65535, "a sample fits a u16");

void qpt_crash_event_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = sizeof(*attr);
	attr->config = PERF_COUNT_SW_BPF_OUTPUT;
	attr->sample_period = 1;
	attr->sample_type = QPT_CRASH_SAMPLE_TYPE;
	attr->sample_regs_user = QPT_CRASH_REGS_MASK;
	attr->sample_stack_user = QPT_CRASH_STACK_MAX;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
}

bool qpt_crash_is_event(const struct qpt_attr *a)
{
	if (!a)
		return false;
	if (a->name)
		return !strcmp(a->name, QPT_CRASH_EVENT_NAME);
	return a->attr.type == PERF_TYPE_SOFTWARE &&
	       a->attr.config == PERF_COUNT_SW_BPF_OUTPUT &&
	       a->attr.sample_type == QPT_CRASH_SAMPLE_TYPE;
}

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	return put(p, &v, 8);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	return put(p, &v, 4);
}

static uint8_t *encode_raw(const struct qpt_crash *c, uint8_t *p)
{
	size_t i;

	p = put32(p, QPT_CRASH_RAW_SIZE);
	p = put32(p, 1);
	p = put32(p, c->kind);
	p = put32(p, (uint32_t)c->signo);
	p = put32(p, (uint32_t)c->code);
	p = put32(p, (uint32_t)c->err);
	p = put32(p, c->insn_len > 16 ? 16 : c->insn_len);
	p = put(p, c->insn, 16);
	for (i = 0; i < NR_EXTRA; i++)
		p = put64(p, c->regs[extra_user[i]]);
	return put32(p, c->nr_regs ? 0 : QPT_CRASH_NO_REGS);
}

int qpt_crash_sample_encode(const struct qpt_crash *c, void *buf, size_t size)
{
	uint32_t stack = c->stack ? c->stack_len : 0;
	uint64_t stack_size;
	uint8_t *p = buf;
	struct perf_event_header h;
	size_t i, total;

	if (stack > QPT_CRASH_STACK_MAX)
		stack = QPT_CRASH_STACK_MAX;
	stack_size = (stack + 7u) & ~7u;
	total = FIXED + (size_t)stack_size;
	if (!buf || size < total ||
	    (c->nr_regs && c->nr_regs != QPT_CRASH_MAX_REGS))
		return -QPT_E_INVAL;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	h.size = (uint16_t)total;
	p = put(p, &h, sizeof(h));
	p = put64(p, QPT_CRASH_EVENT_ID);
	p = put64(p, c->ip);
	p = put32(p, (uint32_t)c->pid);
	p = put32(p, (uint32_t)c->tid);
	p = put64(p, c->time);
	p = put64(p, c->addr);
	p = put64(p, 1); /* period */
	p = encode_raw(c, p);
	p = put64(p, PERF_SAMPLE_REGS_ABI_64);
	for (i = 0; i < QPT_CRASH_NR_PERF_REGS; i++)
		p = put64(p, c->regs[perf_to_user[i]]);
	p = put64(p, stack_size);
	if (stack)
		memcpy(p, c->stack, stack);
	memset(p + stack, 0, (size_t)stack_size - stack);
	p += stack_size;
	put64(p, stack);
	return (int)total;
}

/* RAW's fields (the file's byte order) into @c. */
static int parse_raw(const uint8_t *raw, uint32_t len, bool swap,
		     struct qpt_crash *c)
{
	uint32_t v[6];
	uint64_t r;
	size_t i;

	if (len < QPT_CRASH_RAW_SIZE)
		return -QPT_E_FORMAT;
	memcpy(v, raw, sizeof(v));
	for (i = 0; swap && i < 6; i++)
		v[i] = qpt_bswap32(v[i]);
	if (v[0] != 1)
		return -QPT_E_FORMAT;
	c->kind = v[1];
	c->signo = (int32_t)v[2];
	c->code = (int32_t)v[3];
	c->err = (int32_t)v[4];
	c->insn_len = (uint8_t)(v[5] > 16 ? 16 : v[5]);
	memcpy(c->insn, raw + 24, 16);
	for (i = 0; i < NR_EXTRA; i++) {
		memcpy(&r, raw + RAW_EXTRA + 8 * i, 8);
		c->regs[extra_user[i]] = swap ? qpt_bswap64(r) : r;
	}
	memcpy(&v[0], raw + RAW_EXTRA + 8 * NR_EXTRA, 4);
	c->nr_regs = ((swap ? qpt_bswap32(v[0]) : v[0]) & QPT_CRASH_NO_REGS)
			     ? 0
			     : QPT_CRASH_MAX_REGS;
	return 0;
}

int qpt_crash_sample_parse(const struct qpt_record *rec, bool swapped,
			   struct qpt_crash *c)
{
	struct qpt_sample s;
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	if (!rec || rec->type != PERF_RECORD_SAMPLE ||
	    !qpt_crash_is_event(rec->attr) ||
	    (rec->attr->attr.sample_type & QPT_CRASH_SAMPLE_TYPE) !=
		QPT_CRASH_SAMPLE_TYPE ||
	    rec->attr->attr.sample_regs_user != QPT_CRASH_REGS_MASK)
		return -QPT_E_FORMAT;
	err = qpt_sample_parse(rec->attr, rec->data, rec->size, &s);
	if (err)
		return -QPT_E_FORMAT;
	if (parse_raw(s.raw, s.raw_size, swapped, c) ||
	    s.user_regs_abi != PERF_SAMPLE_REGS_ABI_64 ||
	    s.nr_user_regs != QPT_CRASH_NR_PERF_REGS ||
	    s.user_stack_dyn_size > s.user_stack_size)
		return -QPT_E_FORMAT;
	c->pid = (int32_t)s.pid;
	c->tid = (int32_t)s.tid;
	c->ip = s.ip;
	c->addr = s.addr;
	c->time = s.time;
	for (i = 0; c->nr_regs && i < QPT_CRASH_NR_PERF_REGS; i++)
		c->regs[perf_to_user[i]] = s.user_regs[i];
	c->stack_addr = c->regs[19]; /* rsp */
	c->stack_len = (uint32_t)s.user_stack_dyn_size;
	c->stack = c->stack_len ? s.user_stack : NULL;
	return 0;
}
