// SPDX-License-Identifier: MIT
/*
 * Fuchsia perfmon buffers: the header and record codec (little-endian,
 * bounded by the buffer and capture_end) and the reader over a buffer.
 * The writer and the file input are in perfmon_file.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "auxfmt/perfmon_priv.h"

static const char *const type_names[QPT_PERFMON_TYPE_NR] = {
	[QPT_PERFMON_TIME] = "TIME",	[QPT_PERFMON_TICK] = "TICK",
	[QPT_PERFMON_COUNT] = "COUNT",	[QPT_PERFMON_VALUE] = "VALUE",
	[QPT_PERFMON_PC] = "PC",	[QPT_PERFMON_LAST_BRANCH] = "LAST_BRANCH",
};

/* The fixed size of each type (LAST_BRANCH: without its branches). */
static const uint8_t fixed_size[QPT_PERFMON_TYPE_NR] = {
	[QPT_PERFMON_TIME] = 12, [QPT_PERFMON_TICK] = 4,
	[QPT_PERFMON_COUNT] = 12, [QPT_PERFMON_VALUE] = 12,
	[QPT_PERFMON_PC] = 20,	  [QPT_PERFMON_LAST_BRANCH] = 16,
};

#define BRANCH_SIZE 24u

const char *qpt_perfmon_type_name(unsigned type)
{
	return type < QPT_PERFMON_TYPE_NR ? type_names[type] : NULL;
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

size_t qpt_perfmon_record_size(const struct qpt_perfmon_record *rec)
{
	if (!rec || rec->type == QPT_PERFMON_RESERVED ||
	    rec->type >= QPT_PERFMON_TYPE_NR)
		return 0;
	if (rec->type != QPT_PERFMON_LAST_BRANCH)
		return fixed_size[rec->type];
	if (rec->num_branches > QPT_PERFMON_MAX_BRANCHES)
		return 0;
	return fixed_size[rec->type] + (size_t)rec->num_branches * BRANCH_SIZE;
}

void qpt_perfmon_encode_header(const struct qpt_perfmon_header *h, void *out)
{
	uint8_t *p = out;

	put_le(p, h->version, 2);
	put_le(p + 2, h->arch, 2);
	put_le(p + 4, h->flags, 4);
	put_le(p + 8, (uint64_t)h->ticks_per_second, 8);
	put_le(p + 16, h->capture_end, 8);
}

int qpt_perfmon_encode_record(const struct qpt_perfmon_record *rec,
			      void *out, size_t cap)
{
	size_t size = qpt_perfmon_record_size(rec);
	uint8_t *p = out;
	uint32_t i;

	if (!size)
		return -QPT_E_INVAL;
	if (cap < size)
		return -ENOSPC;
	p[0] = rec->type;
	p[1] = rec->reserved_flags;
	put_le(p + 2, rec->event, 2);
	switch (rec->type) {
	case QPT_PERFMON_TIME:
		put_le(p + 4, (uint64_t)rec->time, 8);
		break;
	case QPT_PERFMON_COUNT:
	case QPT_PERFMON_VALUE:
		put_le(p + 4, rec->value, 8);
		break;
	case QPT_PERFMON_PC:
		put_le(p + 4, rec->aspace, 8);
		put_le(p + 12, rec->pc, 8);
		break;
	case QPT_PERFMON_LAST_BRANCH:
		put_le(p + 4, rec->num_branches, 4);
		put_le(p + 8, rec->aspace, 8);
		for (i = 0; i < rec->num_branches; i++) {
			uint8_t *b = p + 16 + i * BRANCH_SIZE;

			put_le(b, rec->branches[i].from, 8);
			put_le(b + 8, rec->branches[i].to, 8);
			put_le(b + 16, rec->branches[i].info, 8);
		}
		break;
	default: /* TICK: the header only */
		break;
	}
	return (int)size;
}

/* Why the header at @buf is not one this reads, or NULL. */
static const char *header_problem(const struct qpt_perfmon_header *h,
				  size_t len, int *err)
{
	*err = -QPT_E_FORMAT;
	if (h->version) {
		*err = -QPT_E_UNSUPPORTED;
		return "buffer version";
	}
	if (h->arch > QPT_PERFMON_ARCH_ARM64)
		return "arch";
	if (h->flags & ~QPT_PERFMON_BUFFER_FLAG_FULL)
		return "flags";
	if (h->capture_end < QPT_PERFMON_HEADER_SIZE)
		return "capture_end (inside the header)";
	if (h->capture_end > len) {
		*err = -QPT_E_TRUNCATED;
		return "capture_end (past the end of the buffer)";
	}
	return NULL;
}

static void parse_header(const uint8_t *p, struct qpt_perfmon_header *h)
{
	h->version = (uint16_t)get_le(p, 2);
	h->arch = (uint16_t)get_le(p + 2, 2);
	h->flags = (uint32_t)get_le(p + 4, 4);
	h->ticks_per_second = (int64_t)get_le(p + 8, 8);
	h->capture_end = get_le(p + 16, 8);
}

bool qpt_perfmon_probe(const void *buf, size_t len)
{
	struct qpt_perfmon_header h;
	int err;

	if (!buf || len < QPT_PERFMON_HEADER_SIZE)
		return false;
	parse_header(buf, &h);
	return !header_problem(&h, len, &err);
}

int qpt_perfmon_fail(struct qpt_perfmon *pm, uint64_t pos, int err,
		     const char *fmt, ...)
{
	va_list ap;

	pm->err = err;
	pm->errpos = pos;
	va_start(ap, fmt);
	vsnprintf(pm->errmsg, sizeof(pm->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

int qpt_perfmon_start(struct qpt_perfmon *pm)
{
	struct qpt_perfmon_header *h = &pm->hdr;
	const char *why;
	int err;

	if (pm->len < QPT_PERFMON_HEADER_SIZE)
		return qpt_perfmon_fail(pm, 0, -QPT_E_TRUNCATED,
					"perfmon buffer header cut short "
					"(%zu of 24 bytes)", pm->len);
	parse_header(pm->buf, h);
	why = header_problem(h, pm->len, &err);
	if (why)
		return qpt_perfmon_fail(
			pm, 0, err,
			"not a perfmon buffer: %s (version %u, arch %u, flags "
			"0x%x, capture_end 0x%llx, 0x%zx bytes)", why,
			h->version, h->arch, h->flags,
			(unsigned long long)h->capture_end, pm->len);
	pm->pos = QPT_PERFMON_HEADER_SIZE;
	return 0;
}

const struct qpt_perfmon_header *qpt_perfmon_header(const struct qpt_perfmon *pm)
{
	return &pm->hdr;
}

uint64_t qpt_perfmon_trailing(const struct qpt_perfmon *pm)
{
	return pm->len - pm->hdr.capture_end;
}

uint64_t qpt_perfmon_errpos(const struct qpt_perfmon *pm)
{
	return pm ? pm->errpos : 0;
}

const char *qpt_perfmon_errmsg(const struct qpt_perfmon *pm)
{
	return pm ? pm->errmsg : "";
}

static void parse_branches(const uint8_t *p, struct qpt_perfmon_record *rec)
{
	uint32_t i;

	for (i = 0; i < rec->num_branches; i++) {
		const uint8_t *b = p + 16 + i * BRANCH_SIZE;

		rec->branches[i].from = get_le(b, 8);
		rec->branches[i].to = get_le(b + 8, 8);
		rec->branches[i].info = get_le(b + 16, 8);
	}
}

static int perfmon_next(struct qpt_perfmon *pm, struct qpt_perfmon_record *rec,
			uint64_t *pos)
{
	uint64_t at = pm->pos, left = pm->hdr.capture_end - at;
	const uint8_t *p = pm->buf + at;
	size_t size;

	if (pm->err)
		return pm->err;
	if (!left)
		return 0;
	memset(rec, 0, sizeof(*rec));
	if (left < 4)
		return qpt_perfmon_fail(pm, at, -QPT_E_TRUNCATED,
					"record header cut short by "
					"capture_end 0x%llx",
					(unsigned long long)pm->hdr.capture_end);
	rec->type = p[0];
	rec->reserved_flags = p[1];
	rec->event = (uint16_t)get_le(p + 2, 2);
	if (rec->type == QPT_PERFMON_RESERVED || rec->type >= QPT_PERFMON_TYPE_NR)
		return qpt_perfmon_fail(pm, at, -QPT_E_FORMAT,
					"record type %u is %s", rec->type,
					rec->type ? "unknown" : "reserved");
	if (rec->type == QPT_PERFMON_LAST_BRANCH && left >= 8) {
		rec->num_branches = (uint32_t)get_le(p + 4, 4);
		if (rec->num_branches > QPT_PERFMON_MAX_BRANCHES)
			return qpt_perfmon_fail(pm, at, -QPT_E_FORMAT,
						"LAST_BRANCH record of %u "
						"branches (at most 32)",
						rec->num_branches);
	}
	size = qpt_perfmon_record_size(rec);
	if (size > left)
		return qpt_perfmon_fail(pm, at, -QPT_E_TRUNCATED,
					"%s record of %zu bytes runs past "
					"capture_end 0x%llx",
					type_names[rec->type], size,
					(unsigned long long)pm->hdr.capture_end);
	switch (rec->type) {
	case QPT_PERFMON_TIME:
		rec->time = (int64_t)get_le(p + 4, 8);
		break;
	case QPT_PERFMON_COUNT:
	case QPT_PERFMON_VALUE:
		rec->value = get_le(p + 4, 8);
		break;
	case QPT_PERFMON_PC:
		rec->aspace = get_le(p + 4, 8);
		rec->pc = get_le(p + 12, 8);
		break;
	case QPT_PERFMON_LAST_BRANCH:
		rec->aspace = get_le(p + 8, 8);
		parse_branches(p, rec);
		break;
	default:
		break;
	}
	if (pos)
		*pos = at;
	pm->pos = at + size;
	return 1;
}

/* The first version's record ends with its 32 branches. */
#define PERFMON_RECORD_SIZE_V1                                                 \
	(offsetof(struct qpt_perfmon_record, branches) +                       \
	 QPT_PERFMON_MAX_BRANCHES * sizeof(struct qpt_perfmon_branch))

int qpt_perfmon_next_sized(struct qpt_perfmon *pm,
			   struct qpt_perfmon_record *rec, size_t size,
			   uint64_t *pos)
{
	struct qpt_perfmon_record full;
	int ret;

	if (!pm || !rec || size < PERFMON_RECORD_SIZE_V1)
		return -QPT_E_INVAL;
	if (size == sizeof(full))
		return perfmon_next(pm, rec, pos);
	memset(&full, 0, sizeof(full));
	ret = perfmon_next(pm, &full, pos);
	qpt_sized_copy(rec, size, &full, sizeof(full));
	return ret;
}
