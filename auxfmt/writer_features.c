// SPDX-License-Identifier: MIT
/*
 * The writer's feature sections, encoded as perf's util/header.c reads them:
 * strings are a u32 length (NUL and zero padding to 64 bytes included) and
 * the bytes; NRCPUS two u32 (available, online); CMDLINE a u32 count and
 * strings; EVENT_DESC a u32 count, the u32 attr size, and per event the
 * attr, a u32 id count, the name string and the ids; BUILD_ID a run of
 * build_id_event records; AUXTRACE a u64 count and {file_offset, sz}
 * entries; COMPRESSED five u32 (version, type, level, ratio, mmap_len).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/writer_priv.h"
#include "qpt/crash.h"

int qpt_wbuf_reserve(struct qpt_wbuf *b, size_t more)
{
	size_t cap;
	uint8_t *n;

	if (b->cap - b->len >= more)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < more)
		cap *= 2;
	n = realloc(b->data, cap);
	if (!n)
		return -ENOMEM;
	b->data = n;
	b->cap = cap;
	return 0;
}

int qpt_wbuf_add(struct qpt_wbuf *b, const void *data, size_t len)
{
	int err;

	if (!len)
		return 0;
	err = qpt_wbuf_reserve(b, len);
	if (err)
		return err;
	if (data)
		memcpy(b->data + b->len, data, len);
	else
		memset(b->data + b->len, 0, len);
	b->len += len;
	return 0;
}

int qpt_wbuf_add_u32(struct qpt_wbuf *b, uint32_t v)
{
	return qpt_wbuf_add(b, &v, sizeof(v));
}

int qpt_wbuf_add_u64(struct qpt_wbuf *b, uint64_t v)
{
	return qpt_wbuf_add(b, &v, sizeof(v));
}

static size_t name_align(size_t len)
{
	return (len + QPT_NAME_ALIGN - 1) & ~(size_t)(QPT_NAME_ALIGN - 1);
}

int qpt_wbuf_add_string(struct qpt_wbuf *b, const char *s)
{
	size_t olen = strlen(s) + 1, len = name_align(olen);
	int err;

	if (len > UINT32_MAX)
		return -QPT_E_INVAL;
	err = qpt_wbuf_add_u32(b, (uint32_t)len);
	if (!err)
		err = qpt_wbuf_add(b, s, olen);
	if (!err)
		err = qpt_wbuf_add(b, NULL, len - olen);
	return err;
}

void qpt_wbuf_release(struct qpt_wbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

int qpt_feat_encode_nrcpus(struct qpt_wbuf *b, uint32_t avail, uint32_t online)
{
	int err = qpt_wbuf_add_u32(b, avail);

	return err ? err : qpt_wbuf_add_u32(b, online);
}

int qpt_feat_encode_cmdline(struct qpt_wbuf *b, const char *exe, int argc,
			    const char *const argv[])
{
	int i, err;

	if (argc < 0 || (argc && !argv))
		return -QPT_E_INVAL;
	err = qpt_wbuf_add_u32(b, (uint32_t)argc + 1);
	if (!err)
		err = qpt_wbuf_add_string(b, exe ? exe : "");
	for (i = 0; i < argc && !err; i++)
		err = qpt_wbuf_add_string(b, argv[i] ? argv[i] : "");
	return err;
}

int qpt_feat_encode_build_id(struct qpt_wbuf *b, int32_t pid,
			     const uint8_t *build_id, size_t len,
			     const char *filename, uint16_t misc)
{
	uint8_t ev[QPT_BUILD_ID_EVENT_SIZE];
	struct perf_event_header h;
	size_t nlen = strlen(filename) + 1, plen = name_align(nlen);
	int err;

	if (len > QPT_BUILD_ID_MAX || sizeof(ev) + plen > QPT_RECORD_MAX)
		return -QPT_E_INVAL;
	memset(ev, 0, sizeof(ev));
	h.type = QPT_RECORD_HEADER_BUILD_ID;
	h.misc = misc | QPT_MISC_BUILD_ID_SIZE;
	h.size = (uint16_t)(sizeof(ev) + plen);
	memcpy(ev, &h, sizeof(h));
	memcpy(ev + 8, &pid, sizeof(pid));
	if (len)
		memcpy(ev + 12, build_id, len);
	ev[12 + QPT_BUILD_ID_MAX] = (uint8_t)len;
	err = qpt_wbuf_add(b, ev, sizeof(ev));
	if (!err)
		err = qpt_wbuf_add(b, filename, nlen);
	if (!err)
		err = qpt_wbuf_add(b, NULL, plen - nlen);
	return err;
}

static const char *const hw_names[] = {
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
};

static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches",
};

/* perf's names for the generic events; what perf shows for the rest. */
const char *qpt_writer_generic_name(const struct perf_event_attr *attr,
				    char *buf, size_t size)
{
	size_t nr_hw = sizeof(hw_names) / sizeof(hw_names[0]);
	size_t nr_sw = sizeof(sw_names) / sizeof(sw_names[0]);

	if (attr->type == PERF_TYPE_HARDWARE && attr->config < nr_hw)
		return hw_names[attr->config];
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config < nr_sw)
		return sw_names[attr->config];
	snprintf(buf, size, "unknown attr type: %u", attr->type);
	return buf;
}

int qpt_feat_encode_event_desc(const struct qpt_writer *w, struct qpt_wbuf *b)
{
	char tmp[64];
	size_t i;
	int err;

	err = qpt_wbuf_add_u32(b, (uint32_t)w->nr_attrs);
	if (!err)
		err = qpt_wbuf_add_u32(b, sizeof(struct perf_event_attr));
	for (i = 0; i < w->nr_attrs && !err; i++) {
		const struct qpt_writer_attr *a = &w->attrs[i];
		const char *name = a->name;

		if (!name)
			name =
			    qpt_writer_generic_name(&a->attr, tmp, sizeof(tmp));
		err = qpt_wbuf_add(b, &a->attr, sizeof(a->attr));
		if (!err)
			err = qpt_wbuf_add_u32(b, a->nr_ids);
		if (!err)
			err = qpt_wbuf_add_string(b, name);
		if (!err)
			err = qpt_wbuf_add(b, a->ids,
					   a->nr_ids * sizeof(uint64_t));
	}
	return err;
}

int qpt_feat_encode_auxtrace(const struct qpt_writer *w, struct qpt_wbuf *b)
{
	int err = qpt_wbuf_add_u64(b, w->nr_index);

	if (!err)
		err =
		    qpt_wbuf_add(b, w->index, w->nr_index * sizeof(*w->index));
	return err;
}

int qpt_feat_encode_compressed(const struct qpt_writer *w, struct qpt_wbuf *b)
{
	uint32_t ratio = 0;
	int err;

	if (w->z_out)
		ratio = (uint32_t)((double)w->z_in / (double)w->z_out + 0.5);
	err = qpt_wbuf_add_u32(b, QPT_COMP_VER);
	if (!err)
		err = qpt_wbuf_add_u32(b, QPT_COMP_ZSTD);
	if (!err)
		err = qpt_wbuf_add_u32(b, (uint32_t)w->level);
	if (!err)
		err = qpt_wbuf_add_u32(b, ratio);
	if (!err)
		err = qpt_wbuf_add_u32(b, QPT_COMP_MMAP_LEN);
	return err;
}

/* Features perf never sends as HEADER_FEATURE records. */
static bool pipe_skips(int feat)
{
	switch (feat) {
	case QPT_FEAT_TRACING_DATA:
	case QPT_FEAT_BUILD_ID: /* HEADER_BUILD_ID records instead */
	case QPT_FEAT_BRANCH_STACK:
	case QPT_FEAT_AUXTRACE:
	case QPT_FEAT_STAT:
	case QPT_FEAT_CACHE:
		return true;
	default:
		return false;
	}
}

bool qpt_writer_feat_wanted(const struct qpt_writer *w, int feat, bool pipe)
{
	/* qpt's own features (qpt/crash.h) go in files only: perf fails on
	 * a HEADER_FEATURE record it does not know. */
	if (feat == QPT_FEAT_QPT_CRASH)
		return !pipe && w->has_feat[feat];
	/* DIR_FORMAT describes a perf.data directory: never a single file. */
	if (feat <= QPT_FEAT_RESERVED || feat >= QPT_FEAT_LAST ||
	    feat == QPT_FEAT_DIR_FORMAT || (pipe && pipe_skips(feat)))
		return false;
	switch (feat) {
	case QPT_FEAT_EVENT_DESC:
		return w->has_feat[feat] || w->nr_attrs;
	case QPT_FEAT_BUILD_ID:
		return w->build_ids.len;
	case QPT_FEAT_AUXTRACE:
		return w->nr_index;
	case QPT_FEAT_COMPRESSED:
		return w->level > 0;
	default:
		return w->has_feat[feat];
	}
}

int qpt_writer_feat_bytes(const struct qpt_writer *w, int feat,
			  struct qpt_wbuf *b)
{
	b->len = 0;
	switch (feat) {
	case QPT_FEAT_BUILD_ID:
		return qpt_wbuf_add(b, w->build_ids.data, w->build_ids.len);
	case QPT_FEAT_AUXTRACE:
		return qpt_feat_encode_auxtrace(w, b);
	case QPT_FEAT_COMPRESSED:
		return qpt_feat_encode_compressed(w, b);
	case QPT_FEAT_EVENT_DESC:
		if (!w->has_feat[feat])
			return qpt_feat_encode_event_desc(w, b);
		break;
	default:
		break;
	}
	return qpt_wbuf_add(b, w->feat[feat].data, w->feat[feat].len);
}

static bool block_wants(const struct qpt_writer *w, int feat,
			uint64_t index_max)
{
	if (feat == QPT_FEAT_AUXTRACE &&
	    w->nr_index * sizeof(*w->index) > index_max)
		return false;
	return qpt_writer_feat_wanted(w, feat, false);
}

int qpt_writer_feat_block(const struct qpt_writer *w, uint64_t start,
			  struct qpt_wbuf *b, uint64_t bits[4],
			  uint64_t index_max)
{
	struct qpt_file_section sec;
	struct qpt_wbuf one = {0};
	size_t nr = 0, slot = 0;
	int feat, err = 0;

	memset(bits, 0, 4 * sizeof(bits[0]));
	b->len = 0;
	for (feat = 1; feat < QPT_HEADER_FEAT_BITS; feat++)
		if (block_wants(w, feat, index_max))
			nr++;
	if (!nr)
		return 0;
	err = qpt_wbuf_add(b, NULL, nr * sizeof(sec));
	for (feat = 1; feat < QPT_HEADER_FEAT_BITS && !err; feat++) {
		if (!block_wants(w, feat, index_max))
			continue;
		err = qpt_writer_feat_bytes(w, feat, &one);
		if (err)
			break;
		sec.offset = start + b->len;
		sec.size = one.len;
		memcpy(b->data + slot * sizeof(sec), &sec, sizeof(sec));
		slot++;
		bits[feat / 64] |= 1ULL << (feat % 64);
		err = qpt_wbuf_add(b, one.data, one.len);
	}
	qpt_wbuf_release(&one);
	return err;
}

static int feat_record(struct qpt_writer *w, uint64_t feat, const void *data,
		       size_t len)
{
	struct perf_event_header h;
	int err;

	if (16 + len > QPT_RECORD_MAX) {
		qpt_writer_logf(
		    w, QPT_LOG_WARN,
		    "feature %u too large for pipe mode (%zu bytes)",
		    (unsigned)feat, len);
		return 0;
	}
	h.type = QPT_RECORD_HEADER_FEATURE;
	h.misc = 0;
	h.size = (uint16_t)(16 + len);
	err = qpt_writer_emit(w, &h, sizeof(h));
	if (!err)
		err = qpt_writer_emit(w, &feat, sizeof(feat));
	if (!err)
		err = qpt_writer_emit(w, data, len);
	return err;
}

int qpt_writer_feat_record(struct qpt_writer *w, int feat)
{
	struct qpt_wbuf b = {0};
	int err;

	if (!qpt_writer_feat_wanted(w, feat, true))
		return 0;
	err = qpt_writer_feat_bytes(w, feat, &b);
	if (!err)
		err = feat_record(w, (uint64_t)feat, b.data, b.len);
	qpt_wbuf_release(&b);
	return err;
}

int qpt_writer_feat_records(struct qpt_writer *w)
{
	int feat, err = 0;

	for (feat = 1; feat < QPT_FEAT_LAST && !err; feat++)
		err = qpt_writer_feat_record(w, feat);
	/* perf's end-of-features mark: a record for HEADER_LAST_FEATURE. */
	if (!err)
		err = feat_record(w, QPT_FEAT_LAST, NULL, 0);
	return err;
}
