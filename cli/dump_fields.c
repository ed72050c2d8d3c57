// SPDX-License-Identifier: MIT
/*
 * qpt dump: the decoded fields of every record type qpt knows, as key and
 * value members.  Most record types are a table of fields at fixed
 * offsets; the few that are not (MMAP2's two forms, SAMPLE, AUXTRACE's
 * payload, ...) add a function after their table.
 */
#include <stddef.h>
#include <string.h>

#include "cli/dump.h"

enum kind {
	F_U8, F_U16, F_U32, F_I32, F_U64, F_X64,
	F_SIZE,	 /* a size_t (struct qpt_sample only) */
	F_STR,	 /* a string up to its NUL or the record's end */
	F_MSG,	 /* AUXTRACE_ERROR's msg: at most 64 bytes, when present */
	F_MISC,	 /* a bool: whether the header's misc has @bit */
};

struct field {
	const char *key;
	unsigned char kind;
	unsigned short off;
	/* F_MISC: the misc bit; in the SAMPLE tables: the PERF_SAMPLE_* bit
	 * that brings the field */
	uint64_t bit;
};

/* One record type: its fields, then what the table cannot say. */
struct layout {
	const struct field *fields;
	void (*more)(struct out *w, const struct qpt_record *r);
};

#define FIELDS(...) ((const struct field[]){ __VA_ARGS__, { NULL, 0, 0, 0 } })
#define PID_TID { "pid", F_I32, 8, 0 }, { "tid", F_I32, 12, 0 }

uint64_t dump_u64(const struct qpt_record *r, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= r->size)
		memcpy(&v, (const uint8_t *)r->data + off, 8);
	return v;
}

uint32_t dump_u32(const struct qpt_record *r, size_t off)
{
	uint32_t v = 0;

	if (off + 4 <= r->size)
		memcpy(&v, (const uint8_t *)r->data + off, 4);
	return v;
}

void dump_str(struct out *w, const struct qpt_record *r, size_t off)
{
	const char *s = (const char *)r->data + off;

	if (off < r->size)
		out_esc(w, s, strnlen(s, r->size - off));
}

/* The unsigned value of @f in [@base, @base + @size): 0 beyond it. */
static uint64_t value(const struct field *f, const void *base, size_t size)
{
	static const unsigned char width[] = {
		[F_U8] = 1, [F_U16] = 2, [F_U32] = 4, [F_I32] = 4,
		[F_U64] = 8, [F_X64] = 8, [F_SIZE] = sizeof(size_t),
	};
	const uint8_t *p = (const uint8_t *)base + f->off;
	uint64_t v8 = 0;
	uint32_t v4 = 0;
	uint16_t v2 = 0;

	if (f->off + width[f->kind] > size)
		return 0;
	switch (width[f->kind]) {
	case 1: return *p;
	case 2: memcpy(&v2, p, 2); return v2;
	case 4: memcpy(&v4, p, 4); return v4;
	case 8: memcpy(&v8, p, 8); return v8;
	default: return 0;
	}
}

/*
 * The fields of @f (up to its NULL key) read from [@base, @base + @size):
 * for a record, @base is its data and @misc its header's misc; for a
 * parsed sample, @present is its sample_type (fields with a bit that
 * @present lacks are left out).
 */
static void put_fields(struct out *w, const struct field *f,
		       const void *base, size_t size, unsigned misc,
		       uint64_t present)
{
	const char *s;
	size_t max;

	for (; f->key; f++) {
		if (f->kind != F_MISC && f->bit && !(present & f->bit))
			continue;
		switch (f->kind) {
		case F_I32:
			out_kv_i64(w, f->key, (int32_t)value(f, base, size));
			break;
		case F_X64:
			out_kv_hex(w, f->key, value(f, base, size));
			break;
		case F_MISC:
			out_kv_bool(w, f->key, misc & f->bit);
			break;
		case F_STR:
		case F_MSG:
			if (f->kind == F_MSG && f->off > size)
				break;
			max = f->off < size ? size - f->off : 0;
			if (f->kind == F_MSG && max > QPT_AUXTRACE_ERROR_MSG_SIZE)
				max = QPT_AUXTRACE_ERROR_MSG_SIZE;
			s = (const char *)base + f->off;
			out_kv_str(w, f->key, s, max ? strnlen(s, max) : 0);
			break;
		default:
			out_kv_u64(w, f->key, value(f, base, size));
		}
	}
}

static void record_fields(struct out *w, const struct qpt_record *r,
			  const struct field *f)
{
	put_fields(w, f, r->data, r->size, r->misc, 0);
}

/* SAMPLE: the fields its sample_type brings, in perf's order. */
#define S(key, kind, member, bit)                                          \
	{ key, kind, offsetof(struct qpt_sample, member), PERF_SAMPLE_##bit }

static const struct field sample_head[] = {
	S("identifier", F_U64, identifier, IDENTIFIER),
	S("ip", F_X64, ip, IP),
	S("pid", F_I32, pid, TID),
	S("tid", F_I32, tid, TID),
	S("time", F_U64, time, TIME),
	S("addr", F_X64, addr, ADDR),
	S("id", F_U64, id, ID),
	S("stream_id", F_U64, stream_id, STREAM_ID),
	S("cpu", F_U32, cpu, CPU),
	S("period", F_U64, period, PERIOD),
	S("read_size", F_SIZE, read_size, READ),
	{ NULL, 0, 0, 0 },
};

static const struct field sample_tail[] = {
	S("user_regs_abi", F_U64, user_regs_abi, REGS_USER),
	S("user_stack_size", F_U64, user_stack_size, STACK_USER),
	S("weight", F_U64, weight, WEIGHT_TYPE),
	S("data_src", F_X64, data_src, DATA_SRC),
	S("transaction", F_X64, transaction, TRANSACTION),
	S("intr_regs_abi", F_U64, intr_regs_abi, REGS_INTR),
	S("phys_addr", F_X64, phys_addr, PHYS_ADDR),
	S("cgroup", F_U64, cgroup, CGROUP),
	S("data_page_size", F_U64, data_page_size, DATA_PAGE_SIZE),
	S("code_page_size", F_U64, code_page_size, CODE_PAGE_SIZE),
	S("aux_sample_size", F_U32, aux_size, AUX),
	{ NULL, 0, 0, 0 },
};

static void sample_stacks(struct out *w, const struct qpt_sample *s)
{
	uint64_t i;

	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		out_array(w, "callchain");
		for (i = 0; i < s->callchain_nr; i++) {
			out_elem(w);
			out_val_hex(w, s->callchain[i]);
		}
		out_array_end(w);
	}
	if (s->sample_type & PERF_SAMPLE_RAW)
		out_kv_u64(w, "raw_size", s->raw_size);
	if (!(s->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	out_kv_u64(w, "branch_nr", s->branch_nr);
	if (s->has_hw_idx)
		out_kv_i64(w, "hw_idx", (int64_t)s->branch_hw_idx);
	out_array(w, "branches");
	for (i = 0; i < s->branch_nr; i++) {
		out_elem(w);
		out_val_hex(w, s->branches[i].from);
		out_elem(w);
		out_val_hex(w, s->branches[i].to);
		out_elem(w);
		out_val_hex(w, s->branches[i].flags);
	}
	out_array_end(w);
}

static void sample(struct out *w, const struct qpt_record *r)
{
	struct qpt_sample s;

	if (!r->attr || qpt_sample_parse(r->attr, r->data, r->size, &s))
		return;
	if (r->attr->name)
		out_kv_str(w, "event", r->attr->name,
			   strnlen(r->attr->name, 256));
	put_fields(w, sample_head, &s, sizeof(s), 0, s.sample_type);
	sample_stacks(w, &s);
	put_fields(w, sample_tail, &s, sizeof(s), 0, s.sample_type);
}

/* MMAP2: a build-id, or the device and inode; then prot, flags, name. */
static void mmap2(struct out *w, const struct qpt_record *r)
{
	const uint8_t *p = r->data;

	if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t n = r->size > 40 ? p[40] : 0;

		out_kv_hexbytes(w, "build_id", p + 44,
				r->size >= 64 && n <= 20 ? n : 0);
	} else {
		record_fields(w, r, FIELDS({ "maj", F_U32, 40, 0 },
					   { "min", F_U32, 44, 0 },
					   { "ino", F_U64, 48, 0 },
					   { "ino_generation", F_U64, 56, 0 }));
	}
	record_fields(w, r, FIELDS({ "prot", F_U32, 64, 0 },
				   { "flags", F_U32, 68, 0 },
				   { "filename", F_STR, 72, 0 }));
}

/* HEADER_BUILD_ID: 20 bytes of a 24-byte slot, then the file name. */
static void build_id(struct out *w, const struct qpt_record *r)
{
	if (r->size >= 36)
		out_kv_hexbytes(w, "build_id", (const uint8_t *)r->data + 12,
				20);
	record_fields(w, r, FIELDS({ "filename", F_STR, 36, 0 }));
}

static void auxtrace_info(struct out *w, const struct qpt_record *r)
{
	uint64_t i, n = r->size > 16 ? (r->size - 16) / 8 : 0;

	out_array(w, "priv");
	for (i = 0; i < n; i++) {
		out_elem(w);
		out_val_hex(w, dump_u64(r, 16 + 8 * i));
	}
	out_array_end(w);
}

static void auxtrace(struct out *w, const struct qpt_record *r)
{
	out_kv_hex(w, "payload_offset", r->aux_pos);
}

static void event_update(struct out *w, const struct qpt_record *r)
{
	if (dump_u64(r, 8) == 2)
		record_fields(w, r, FIELDS({ "name", F_STR, 24, 0 }));
	else if (dump_u64(r, 8) == 0)
		record_fields(w, r, FIELDS({ "unit", F_STR, 24, 0 }));
}

static void time_conv(struct out *w, const struct qpt_record *r)
{
	if (r->size >= 56)
		record_fields(w, r,
			      FIELDS({ "time_cycles", F_U64, 32, 0 },
				     { "time_mask", F_X64, 40, 0 },
				     { "cap_user_time_zero", F_U8, 48, 0 },
				     { "cap_user_time_short", F_U8, 49, 0 }));
}

static void header_feature(struct out *w, const struct qpt_record *r)
{
	const char *name = qpt_feature_name((enum qpt_feature)dump_u64(r, 8));

	if (name)
		out_kv_str(w, "feature", name, strnlen(name, 64));
}

static void compressed(struct out *w, const struct qpt_record *r)
{
	out_kv_u64(w, "data_size", r->size - 8u);
}

/* clang-format off: one record type at a time reads best */
static const struct layout layouts[QPT_RECORD_USER_MAX] = {
	[PERF_RECORD_MMAP] = { FIELDS(PID_TID,
		{ "addr", F_X64, 16, 0 }, { "len", F_X64, 24, 0 },
		{ "pgoff", F_X64, 32, 0 }, { "filename", F_STR, 40, 0 }) },
	[PERF_RECORD_MMAP2] = { FIELDS(PID_TID,
		{ "addr", F_X64, 16, 0 }, { "len", F_X64, 24, 0 },
		{ "pgoff", F_X64, 32, 0 }), mmap2 },
	[PERF_RECORD_COMM] = { FIELDS(PID_TID, { "comm", F_STR, 16, 0 },
		{ "exec", F_MISC, 0, PERF_RECORD_MISC_COMM_EXEC }) },
	[PERF_RECORD_EXIT] = { FIELDS({ "pid", F_I32, 8, 0 },
		{ "ppid", F_I32, 12, 0 }, { "tid", F_I32, 16, 0 },
		{ "ptid", F_I32, 20, 0 }, { "time", F_U64, 24, 0 }) },
	[PERF_RECORD_FORK] = { FIELDS({ "pid", F_I32, 8, 0 },
		{ "ppid", F_I32, 12, 0 }, { "tid", F_I32, 16, 0 },
		{ "ptid", F_I32, 20, 0 }, { "time", F_U64, 24, 0 }) },
	[PERF_RECORD_LOST] = { FIELDS({ "id", F_U64, 8, 0 },
		{ "lost", F_U64, 16, 0 }) },
	[PERF_RECORD_THROTTLE] = { FIELDS({ "time", F_U64, 8, 0 },
		{ "id", F_U64, 16, 0 }, { "stream_id", F_U64, 24, 0 }) },
	[PERF_RECORD_UNTHROTTLE] = { FIELDS({ "time", F_U64, 8, 0 },
		{ "id", F_U64, 16, 0 }, { "stream_id", F_U64, 24, 0 }) },
	[PERF_RECORD_READ] = { FIELDS(PID_TID) },
	[PERF_RECORD_SAMPLE] = { NULL, sample },
	[PERF_RECORD_AUX] = { FIELDS({ "aux_offset", F_X64, 8, 0 },
		{ "aux_size", F_X64, 16, 0 }, { "flags", F_X64, 24, 0 }) },
	[PERF_RECORD_ITRACE_START] = { FIELDS(PID_TID) },
	[PERF_RECORD_LOST_SAMPLES] = { FIELDS({ "lost", F_U64, 8, 0 }) },
	[PERF_RECORD_SWITCH] = { FIELDS(
		{ "out", F_MISC, 0, PERF_RECORD_MISC_SWITCH_OUT }) },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { FIELDS(
		{ "out", F_MISC, 0, PERF_RECORD_MISC_SWITCH_OUT },
		{ "next_prev_pid", F_I32, 8, 0 },
		{ "next_prev_tid", F_I32, 12, 0 }) },
	[PERF_RECORD_NAMESPACES] = { FIELDS(PID_TID,
		{ "nr_namespaces", F_U64, 16, 0 }) },
	[PERF_RECORD_KSYMBOL] = { FIELDS({ "addr", F_X64, 8, 0 },
		{ "len", F_U32, 16, 0 }, { "ksym_type", F_U16, 20, 0 },
		{ "flags", F_U16, 22, 0 }, { "name", F_STR, 24, 0 }) },
	[PERF_RECORD_BPF_EVENT] = { FIELDS({ "bpf_type", F_U16, 8, 0 },
		{ "flags", F_U16, 10, 0 }, { "id", F_U32, 12, 0 }) },
	[PERF_RECORD_CGROUP] = { FIELDS({ "id", F_U64, 8, 0 },
		{ "path", F_STR, 16, 0 }) },
	[PERF_RECORD_TEXT_POKE] = { FIELDS({ "addr", F_X64, 8, 0 },
		{ "old_len", F_U16, 16, 0 }, { "new_len", F_U16, 18, 0 }) },
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = { FIELDS({ "hw_id", F_U64, 8, 0 }) },
	[QPT_RECORD_HEADER_ATTR] = { FIELDS({ "attr_type", F_U32, 8, 0 },
		{ "attr_size", F_U32, 12, 0 }, { "config", F_X64, 16, 0 },
		{ "sample_type", F_X64, 32, 0 }) },
	[QPT_RECORD_HEADER_EVENT_TYPE] = { FIELDS(
		{ "event_id", F_U64, 8, 0 }, { "name", F_STR, 16, 0 }) },
	[QPT_RECORD_HEADER_TRACING_DATA] = { FIELDS(
		{ "tracing_data_size", F_U32, 8, 0 }) },
	[QPT_RECORD_HEADER_BUILD_ID] = { FIELDS({ "pid", F_I32, 8, 0 }),
		build_id },
	[QPT_RECORD_AUXTRACE_INFO] = { FIELDS(
		{ "auxtrace_type", F_U32, 8, 0 }), auxtrace_info },
	[QPT_RECORD_AUXTRACE] = { FIELDS({ "aux_size", F_U64, 8, 0 },
		{ "aux_offset", F_X64, 16, 0 }, { "reference", F_X64, 24, 0 },
		{ "idx", F_U32, 32, 0 }, { "tid", F_I32, 36, 0 },
		{ "cpu", F_I32, 40, 0 }), auxtrace },
	[QPT_RECORD_AUXTRACE_ERROR] = { FIELDS(
		{ "error_type", F_U32, 8, 0 }, { "code", F_U32, 12, 0 },
		{ "cpu", F_I32, 16, 0 }, { "pid", F_I32, 20, 0 },
		{ "tid", F_I32, 24, 0 }, { "ip", F_X64, 32, 0 },
		{ "time", F_U64, 40, 0 }, { "msg", F_MSG, 48, 0 }) },
	[QPT_RECORD_ID_INDEX] = { FIELDS({ "nr", F_U64, 8, 0 }) },
	[QPT_RECORD_THREAD_MAP] = { FIELDS({ "nr", F_U64, 8, 0 }) },
	[QPT_RECORD_STAT_CONFIG] = { FIELDS({ "nr", F_U64, 8, 0 }) },
	[QPT_RECORD_CPU_MAP] = { FIELDS({ "map_type", F_U16, 8, 0 }) },
	[QPT_RECORD_STAT] = { FIELDS({ "id", F_U64, 8, 0 },
		{ "cpu", F_I32, 16, 0 }, { "thread", F_I32, 20, 0 },
		{ "val", F_U64, 24, 0 }, { "ena", F_U64, 32, 0 },
		{ "run", F_U64, 40, 0 }) },
	[QPT_RECORD_STAT_ROUND] = { FIELDS({ "stat_type", F_U64, 8, 0 },
		{ "time", F_U64, 16, 0 }) },
	[QPT_RECORD_EVENT_UPDATE] = { FIELDS({ "update_type", F_U64, 8, 0 },
		{ "id", F_U64, 16, 0 }), event_update },
	[QPT_RECORD_TIME_CONV] = { FIELDS({ "time_shift", F_U64, 8, 0 },
		{ "time_mult", F_U64, 16, 0 }, { "time_zero", F_U64, 24, 0 }),
		time_conv },
	[QPT_RECORD_HEADER_FEATURE] = { FIELDS({ "feat_id", F_U64, 8, 0 }),
		header_feature },
	[QPT_RECORD_COMPRESSED] = { NULL, compressed },
	[QPT_RECORD_COMPRESSED2] = { FIELDS({ "data_size", F_U64, 8, 0 }) },
};
/* clang-format on */

/* The sample_id trailer of the records that are not samples. */
#define SID(key, member, kind, bit)                                          \
	{ key, kind, offsetof(struct qpt_sample_id, member), PERF_SAMPLE_##bit }
static const struct field sample_id[] = {
	SID("sample_pid", pid, F_I32, TID),
	SID("sample_tid", tid, F_I32, TID),
	SID("sample_time", time, F_U64, TIME),
	SID("sample_id", id, F_U64, ID),
	SID("sample_stream_id", stream_id, F_U64, STREAM_ID),
	SID("sample_cpu", cpu, F_U32, CPU),
	SID("sample_identifier", identifier, F_U64, IDENTIFIER),
	{ NULL, 0, 0, 0 },
};

void dump_fields(struct out *w, const struct qpt_record *r)
{
	const struct layout *l = r->type < QPT_RECORD_USER_MAX ?
					 &layouts[r->type] : NULL;

	if (l && l->fields)
		record_fields(w, r, l->fields);
	if (l && l->more)
		l->more(w, r);
	if (r->type != PERF_RECORD_SAMPLE)
		put_fields(w, sample_id, &r->sid, sizeof(r->sid), 0,
			   r->sid.present);
}
