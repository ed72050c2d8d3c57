// SPDX-License-Identifier: MIT
/*
 * Byte swapping of a foreign-endian perf.data: attrs (with the bitfield
 * word as perf does it), and records by type.  Samples and sample_id
 * trailers are swapped by sample.c, which knows their layout.
 */
#include <string.h>

#include "auxfmt/reader_internal.h"

uint16_t qpt_bswap16(uint16_t v)
{
	return __builtin_bswap16(v);
}

uint32_t qpt_bswap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

uint64_t qpt_bswap64(uint64_t v)
{
	return __builtin_bswap64(v);
}

static void swap_at(uint8_t *p, size_t off, size_t width, size_t len)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (off + width > len)
		return;
	switch (width) {
	case 2:
		memcpy(&v16, p + off, 2);
		v16 = qpt_bswap16(v16);
		memcpy(p + off, &v16, 2);
		break;
	case 4:
		memcpy(&v32, p + off, 4);
		v32 = qpt_bswap32(v32);
		memcpy(p + off, &v32, 4);
		break;
	case 8:
		memcpy(&v64, p + off, 8);
		v64 = qpt_bswap64(v64);
		memcpy(p + off, &v64, 8);
		break;
	}
}

/* Swap @len bytes at @p by @layout: '2', '4', '8' swap a field, '1' or
 * '-' skip a byte.  Returns the bytes the layout covers. */
static size_t swap_layout(uint8_t *p, size_t len, const char *layout)
{
	size_t off = 0;

	for (; *layout; layout++) {
		size_t w = *layout == '-' ? 1 : (size_t)(*layout - '0');

		swap_at(p, off, w, len);
		off += w;
	}
	return off;
}

static void swap_u64s(uint8_t *p, size_t from, size_t to)
{
	for (; from + 8 <= to; from += 8)
		swap_at(p, from, 8, to);
}

static uint8_t revbyte(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
	return b;
}

/*
 * An attr of @len bytes in the other byte order, swapped in place the way
 * perf does it: each field the attr's own size covers, and the bitfield
 * word after read_format by reversing the bits of each byte.
 */
void qpt_attr_swap(void *attr, size_t len)
{
	/* offset/width of every field after type and size */
	static const struct {
		uint8_t off, w;
	} f[] = {
		{8, 8},	  {16, 8},  {24, 8},  {32, 8},	/* config..read_format */
		{48, 4},  {52, 4},  {56, 8},  {64, 8},	/* wakeup..config2 */
		{72, 8},  {80, 8},  {88, 4},  {92, 4},	/* branch..clockid */
		{96, 8},  {104, 4}, {108, 2}, {112, 4}, /* regs_intr.. */
		{120, 8}, {128, 8},			/* sig_data, config3 */
	};
	uint8_t *p = attr;
	uint32_t size;
	size_t i, lim;

	swap_at(p, 0, 4, len);
	swap_at(p, 4, 4, len);
	if (len < 8)
		return;
	memcpy(&size, p + 4, 4);
	lim = size ? size : PERF_ATTR_SIZE_VER0;
	if (lim > len)
		lim = len;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		swap_at(p, f[i].off, f[i].w, lim);
	if (lim >= 48)
		for (i = 40; i < 48; i++)
			p[i] = revbyte(p[i]);
	/* a later kernel's fields: their widths are unknown here */
	if (len > 136)
		memset(p + 136, 0, len - 136);
}

/*
 * A branch entry's flags word after a 64-bit swap: move each bitfield of
 * struct perf_branch_entry from its big-endian position to the host's, as
 * perf does (the value of each field is kept).
 */
uint64_t qpt_branch_flags_swap(uint64_t v)
{
	static const uint8_t widths[] = {1, 1, 1, 1, 16, 4, 2, 4, 3, 31};
	uint64_t out = 0;
	unsigned pos = 0, i;

	for (i = 0; i < sizeof(widths); i++) {
		unsigned w = widths[i];
		uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;

		out |= ((v >> (64 - pos - w)) & mask) << pos;
		pos += w;
	}
	return out;
}

/* The cpu map data of CPU_MAP and EVENT_UPDATE(CPUS), from @off. */
static void swap_cpu_map(uint8_t *p, size_t off, size_t len)
{
	uint16_t type, nr, long_size;
	size_t i;

	swap_at(p, off, 2, len);
	if (off + 2 > len)
		return;
	memcpy(&type, p + off, 2);
	off += 2;
	switch (type) {
	case 0: /* PERF_CPU_MAP__CPUS: u16 nr, u16 cpu[nr] */
		swap_at(p, off, 2, len);
		if (off + 2 > len)
			return;
		memcpy(&nr, p + off, 2);
		for (i = 0; i < nr; i++)
			swap_at(p, off + 2 + 2 * i, 2, len);
		break;
	case 1: /* PERF_CPU_MAP__MASK: u16 nr, u16 long_size, masks */
		swap_at(p, off, 2, len);
		swap_at(p, off + 2, 2, len);
		if (off + 4 > len)
			return;
		memcpy(&nr, p + off, 2);
		memcpy(&long_size, p + off + 2, 2);
		if (long_size != 4 && long_size != 8)
			return;
		/* 64-bit masks are 8-aligned in the record */
		off += long_size == 8 ? 6 : 4;
		for (i = 0; i < nr; i++)
			swap_at(p, off + long_size * i, long_size, len);
		break;
	case 2: /* PERF_CPU_MAP__RANGE_CPUS: u8 any, u8 pad, u16 start, end */
		swap_at(p, off + 2, 2, len);
		swap_at(p, off + 4, 2, len);
		break;
	}
}

static void swap_user_record(uint8_t *p, size_t len, uint32_t type)
{
	uint64_t nr, t;
	uint32_t asz;
	size_t i;

	switch (type) {
	case QPT_RECORD_HEADER_ATTR:
		if (len < 8 + 8)
			return;
		memcpy(&asz, p + 8 + 4, 4);
		asz = qpt_bswap32(asz);
		if (!asz)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz > len - 8)
			asz = (uint32_t)(len - 8);
		qpt_attr_swap(p + 8, asz);
		swap_u64s(p, 8 + asz, len);
		break;
	case QPT_RECORD_HEADER_EVENT_TYPE:
	case QPT_RECORD_FINISHED_ROUND:
	case QPT_RECORD_FINISHED_INIT:
	case QPT_RECORD_COMPRESSED:
		swap_layout(p + 8, len - 8, type == QPT_RECORD_HEADER_EVENT_TYPE ?
						 "8" : "");
		break;
	case QPT_RECORD_HEADER_TRACING_DATA:
	case QPT_RECORD_HEADER_BUILD_ID:
		swap_at(p, 8, 4, len);
		break;
	case QPT_RECORD_ID_INDEX:
	case QPT_RECORD_STAT_CONFIG:
	case QPT_RECORD_STAT_ROUND:
		swap_u64s(p, 8, len);
		break;
	case QPT_RECORD_AUXTRACE_INFO:
		swap_at(p, 8, 4, len);
		swap_at(p, 12, 4, len);
		swap_u64s(p, 16, len);
		break;
	case QPT_RECORD_AUXTRACE:
		swap_layout(p + 8, len - 8, "8884444");
		break;
	case QPT_RECORD_AUXTRACE_ERROR:
		i = swap_layout(p + 8, len - 8, "44444488");
		swap_at(p, 8 + i + QPT_AUXTRACE_ERROR_MSG_SIZE, 4, len);
		swap_at(p, 8 + i + QPT_AUXTRACE_ERROR_MSG_SIZE + 4, 4, len);
		break;
	case QPT_RECORD_THREAD_MAP:
		swap_at(p, 8, 8, len);
		if (len < 16)
			return;
		memcpy(&nr, p + 8, 8);
		for (i = 0; i < nr && 16 + 24 * i + 8 <= len; i++)
			swap_at(p, 16 + 24 * i, 8, len);
		break;
	case QPT_RECORD_CPU_MAP:
		swap_cpu_map(p, 8, len);
		break;
	case QPT_RECORD_STAT:
		swap_layout(p + 8, len - 8, "844888");
		break;
	case QPT_RECORD_EVENT_UPDATE:
		swap_layout(p + 8, len - 8, "88");
		if (len < 16)
			return;
		memcpy(&t, p + 8, 8);
		if (t == 1) /* SCALE: a double */
			swap_at(p, 24, 8, len);
		else if (t == 3) /* CPUS */
			swap_cpu_map(p, 24, len);
		break;
	case QPT_RECORD_TIME_CONV:
		swap_layout(p + 8, len - 8, "88888");
		break;
	case QPT_RECORD_HEADER_FEATURE:
	case QPT_RECORD_COMPRESSED2:
		swap_at(p, 8, 8, len);
		break;
	}
}

/* The fixed fields of each kernel record after its header. */
static const char *const kernel_layout[PERF_RECORD_MAX] = {
	[PERF_RECORD_MMAP] = "44888",
	[PERF_RECORD_LOST] = "88",
	[PERF_RECORD_COMM] = "44",
	[PERF_RECORD_EXIT] = "44448",
	[PERF_RECORD_THROTTLE] = "888",
	[PERF_RECORD_UNTHROTTLE] = "888",
	[PERF_RECORD_FORK] = "44448",
	[PERF_RECORD_READ] = "44",
	[PERF_RECORD_MMAP2] = "44888448844",
	[PERF_RECORD_AUX] = "888",
	[PERF_RECORD_ITRACE_START] = "44",
	[PERF_RECORD_LOST_SAMPLES] = "8",
	[PERF_RECORD_SWITCH] = "",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "44",
	[PERF_RECORD_NAMESPACES] = "448",
	[PERF_RECORD_KSYMBOL] = "8422",
	[PERF_RECORD_BPF_EVENT] = "224",
	[PERF_RECORD_CGROUP] = "8",
	[PERF_RECORD_TEXT_POKE] = "822",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "8",
};

int qpt_record_swap(struct qpt_reader *r, uint8_t *p, size_t len)
{
	const struct qpt_attr *a;
	uint32_t type;
	uint16_t misc;
	size_t end = len, off;
	uint64_t nr, i;

	memcpy(&type, p, 4);
	memcpy(&misc, p + 4, 2);
	if (type >= QPT_RECORD_HEADER_ATTR) {
		swap_user_record(p, len, type);
		return 0;
	}
	if (type >= PERF_RECORD_MAX)
		return 0; /* unknown: left as it is */
	/* p's header is host order already; match with the body swapped */
	a = qpt_reader_match(r, type, p, len, true);
	if (type == PERF_RECORD_SAMPLE)
		return a ? qpt_sample_swap(&a->attr, p, len) : 0;
	if (a && a->attr.sample_id_all) {
		size_t n = qpt_sample_id_size(a->attr.sample_type);

		if (n + 8 <= len) {
			qpt_sample_id_swap(&a->attr, p, len);
			end = len - n;
		}
	}
	if (type == PERF_RECORD_MMAP2 && (misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		off = 8 + swap_layout(p + 8, end - 8, "44888----------------"
						       "--------44");
	else if (kernel_layout[type])
		off = 8 + swap_layout(p + 8, end - 8, kernel_layout[type]);
	else
		off = 8; /* type 0: nothing known */
	if (type == PERF_RECORD_READ) {
		swap_u64s(p, off, end);
	} else if (type == PERF_RECORD_NAMESPACES && off <= end) {
		memcpy(&nr, p + off - 8, 8);
		for (i = 0; i < 2 * nr && off + 8 * i + 8 <= end; i++)
			swap_at(p, off + 8 * i, 8, end);
	}
	return 0;
}
