// SPDX-License-Identifier: MIT
/*
 * qpt dump: every record of a perf.data in file order, as one-line
 * summaries like `perf report -D`, or with --json as one JSON object per
 * line: "offset", "type" (perf's name), "size", "misc" and the decoded
 * fields.  Addresses are "0x..." strings (JSON numbers lose 64-bit values);
 * other integers are numbers.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "qpt/reader.h"

struct out {
	FILE *f;
	bool json;
	bool first;
	const struct qpt_record *rec;
};

static void key(struct out *o, const char *k)
{
	if (o->json)
		fprintf(o->f, "%s\"%s\":", o->first ? "" : ",", k);
	else
		fprintf(o->f, " %s=", k);
	o->first = false;
}

static void put_u(struct out *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRIu64, v);
}

static void put_i(struct out *o, const char *k, int64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRId64, v);
}

static void put_x(struct out *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o->f, o->json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v);
}

static void put_b(struct out *o, const char *k, bool v)
{
	key(o, k);
	fputs(v ? "true" : "false", o->f);
}

/* A string of at most @max bytes (it need not be terminated). */
static void put_s(struct out *o, const char *k, const char *s, size_t max)
{
	size_t i, n = strnlen(s, max);

	key(o, k);
	if (o->json)
		fputc('"', o->f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (o->json && (c == '"' || c == '\\'))
			fprintf(o->f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(o->f, o->json ? "\\u%04x" : "\\x%02x", c);
		else
			fputc(c, o->f);
	}
	if (o->json)
		fputc('"', o->f);
}

static void put_hexbytes(struct out *o, const char *k, const uint8_t *p,
			 size_t n)
{
	size_t i;

	key(o, k);
	if (o->json)
		fputc('"', o->f);
	for (i = 0; i < n; i++)
		fprintf(o->f, "%02x", p[i]);
	if (o->json)
		fputc('"', o->f);
}

static void list_open(struct out *o, const char *k)
{
	key(o, k);
	fputc('[', o->f);
	o->first = true;
}

static void list_close(struct out *o)
{
	fputc(']', o->f);
	o->first = false;
}

static void item_x(struct out *o, uint64_t v)
{
	if (!o->first)
		fputc(',', o->f);
	o->first = false;
	fprintf(o->f, o->json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v);
}

/* Record field access, bounded by the record's size: 0 beyond it. */
static uint64_t f64(const struct qpt_record *r, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= r->size)
		memcpy(&v, (const uint8_t *)r->data + off, 8);
	return v;
}

static uint32_t f32(const struct qpt_record *r, size_t off)
{
	uint32_t v = 0;

	if (off + 4 <= r->size)
		memcpy(&v, (const uint8_t *)r->data + off, 4);
	return v;
}

static uint16_t f16(const struct qpt_record *r, size_t off)
{
	uint16_t v = 0;

	if (off + 2 <= r->size)
		memcpy(&v, (const uint8_t *)r->data + off, 2);
	return v;
}

static void fstr(struct out *o, const char *k, size_t off)
{
	const struct qpt_record *r = o->rec;

	if (!k) { /* text summaries: the bare string */
		if (off < r->size)
			fprintf(o->f, "%.*s", (int)strnlen((const char *)r->data +
							   off, r->size - off),
				(const char *)r->data + off);
		return;
	}

	if (off >= r->size)
		put_s(o, k, "", 0);
	else
		put_s(o, k, (const char *)r->data + off, r->size - off);
}

static void dump_sample(struct out *o)
{
	const struct qpt_record *r = o->rec;
	struct qpt_sample s;
	uint64_t st, i;

	if (!r->attr || qpt_sample_parse(r->attr, r->data, r->size, &s))
		return;
	st = s.sample_type;
	if (r->attr->name)
		put_s(o, "event", r->attr->name, 256);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u(o, "identifier", s.identifier);
	if (st & PERF_SAMPLE_IP)
		put_x(o, "ip", s.ip);
	if (st & PERF_SAMPLE_TID) {
		put_i(o, "pid", (int32_t)s.pid);
		put_i(o, "tid", (int32_t)s.tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u(o, "time", s.time);
	if (st & PERF_SAMPLE_ADDR)
		put_x(o, "addr", s.addr);
	if (st & PERF_SAMPLE_ID)
		put_u(o, "id", s.id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u(o, "stream_id", s.stream_id);
	if (st & PERF_SAMPLE_CPU)
		put_u(o, "cpu", s.cpu);
	if (st & PERF_SAMPLE_PERIOD)
		put_u(o, "period", s.period);
	if (st & PERF_SAMPLE_READ)
		put_u(o, "read_size", s.read_size);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		list_open(o, "callchain");
		for (i = 0; i < s.callchain_nr; i++)
			item_x(o, s.callchain[i]);
		list_close(o);
	}
	if (st & PERF_SAMPLE_RAW)
		put_u(o, "raw_size", s.raw_size);
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		put_u(o, "branch_nr", s.branch_nr);
		if (s.has_hw_idx)
			put_i(o, "hw_idx", (int64_t)s.branch_hw_idx);
		list_open(o, "branches");
		for (i = 0; i < s.branch_nr; i++) {
			item_x(o, s.branches[i].from);
			item_x(o, s.branches[i].to);
			item_x(o, s.branches[i].flags);
		}
		list_close(o);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		put_u(o, "user_regs_abi", s.user_regs_abi);
	if (st & PERF_SAMPLE_STACK_USER)
		put_u(o, "user_stack_size", s.user_stack_size);
	if (st & PERF_SAMPLE_WEIGHT_TYPE)
		put_u(o, "weight", s.weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put_x(o, "data_src", s.data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		put_x(o, "transaction", s.transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		put_u(o, "intr_regs_abi", s.intr_regs_abi);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		put_x(o, "phys_addr", s.phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		put_u(o, "cgroup", s.cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u(o, "data_page_size", s.data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u(o, "code_page_size", s.code_page_size);
	if (st & PERF_SAMPLE_AUX)
		put_u(o, "aux_sample_size", s.aux_size);
}

static void dump_mmap(struct out *o, bool two)
{
	const struct qpt_record *r = o->rec;

	put_i(o, "pid", (int32_t)f32(r, 8));
	put_i(o, "tid", (int32_t)f32(r, 12));
	put_x(o, "addr", f64(r, 16));
	put_x(o, "len", f64(r, 24));
	put_x(o, "pgoff", f64(r, 32));
	if (!two) {
		fstr(o, "filename", 40);
		return;
	}
	if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t n = r->size > 40 ? ((const uint8_t *)r->data)[40] : 0;

		put_hexbytes(o, "build_id", (const uint8_t *)r->data + 44,
			     r->size >= 64 && n <= 20 ? n : 0);
	} else {
		put_u(o, "maj", f32(r, 40));
		put_u(o, "min", f32(r, 44));
		put_u(o, "ino", f64(r, 48));
		put_u(o, "ino_generation", f64(r, 56));
	}
	put_u(o, "prot", f32(r, 64));
	put_u(o, "flags", f32(r, 68));
	fstr(o, "filename", 72);
}

static void dump_kernel(struct out *o)
{
	const struct qpt_record *r = o->rec;

	switch (r->type) {
	case PERF_RECORD_MMAP:
		dump_mmap(o, false);
		break;
	case PERF_RECORD_MMAP2:
		dump_mmap(o, true);
		break;
	case PERF_RECORD_COMM:
		put_i(o, "pid", (int32_t)f32(r, 8));
		put_i(o, "tid", (int32_t)f32(r, 12));
		fstr(o, "comm", 16);
		put_b(o, "exec", r->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		put_i(o, "pid", (int32_t)f32(r, 8));
		put_i(o, "ppid", (int32_t)f32(r, 12));
		put_i(o, "tid", (int32_t)f32(r, 16));
		put_i(o, "ptid", (int32_t)f32(r, 20));
		put_u(o, "time", f64(r, 24));
		break;
	case PERF_RECORD_LOST:
		put_u(o, "id", f64(r, 8));
		put_u(o, "lost", f64(r, 16));
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		put_u(o, "time", f64(r, 8));
		put_u(o, "id", f64(r, 16));
		put_u(o, "stream_id", f64(r, 24));
		break;
	case PERF_RECORD_READ:
	case PERF_RECORD_ITRACE_START:
		put_i(o, "pid", (int32_t)f32(r, 8));
		put_i(o, "tid", (int32_t)f32(r, 12));
		break;
	case PERF_RECORD_SAMPLE:
		dump_sample(o);
		break;
	case PERF_RECORD_AUX:
		put_x(o, "aux_offset", f64(r, 8));
		put_x(o, "aux_size", f64(r, 16));
		put_x(o, "flags", f64(r, 24));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		put_u(o, "lost", f64(r, 8));
		break;
	case PERF_RECORD_SWITCH:
		put_b(o, "out", r->misc & PERF_RECORD_MISC_SWITCH_OUT);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_b(o, "out", r->misc & PERF_RECORD_MISC_SWITCH_OUT);
		put_i(o, "next_prev_pid", (int32_t)f32(r, 8));
		put_i(o, "next_prev_tid", (int32_t)f32(r, 12));
		break;
	case PERF_RECORD_NAMESPACES:
		put_i(o, "pid", (int32_t)f32(r, 8));
		put_i(o, "tid", (int32_t)f32(r, 12));
		put_u(o, "nr_namespaces", f64(r, 16));
		break;
	case PERF_RECORD_KSYMBOL:
		put_x(o, "addr", f64(r, 8));
		put_u(o, "len", f32(r, 16));
		put_u(o, "ksym_type", f16(r, 20));
		put_u(o, "flags", f16(r, 22));
		fstr(o, "name", 24);
		break;
	case PERF_RECORD_BPF_EVENT:
		put_u(o, "bpf_type", f16(r, 8));
		put_u(o, "flags", f16(r, 10));
		put_u(o, "id", f32(r, 12));
		break;
	case PERF_RECORD_CGROUP:
		put_u(o, "id", f64(r, 8));
		fstr(o, "path", 16);
		break;
	case PERF_RECORD_TEXT_POKE:
		put_x(o, "addr", f64(r, 8));
		put_u(o, "old_len", f16(r, 16));
		put_u(o, "new_len", f16(r, 18));
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put_u(o, "hw_id", f64(r, 8));
		break;
	}
}

/* The AUX area's user records: AUXTRACE_INFO, AUXTRACE, AUXTRACE_ERROR. */
static void dump_aux_area(struct out *o)
{
	const struct qpt_record *r = o->rec;
	uint64_t i, n;

	switch (r->type) {
	case QPT_RECORD_AUXTRACE_INFO:
		put_u(o, "auxtrace_type", f32(r, 8));
		n = r->size > 16 ? (r->size - 16) / 8 : 0;
		list_open(o, "priv");
		for (i = 0; i < n; i++)
			item_x(o, f64(r, 16 + 8 * i));
		list_close(o);
		break;
	case QPT_RECORD_AUXTRACE:
		put_u(o, "aux_size", f64(r, 8));
		put_x(o, "aux_offset", f64(r, 16));
		put_x(o, "reference", f64(r, 24));
		put_u(o, "idx", f32(r, 32));
		put_i(o, "tid", (int32_t)f32(r, 36));
		put_i(o, "cpu", (int32_t)f32(r, 40));
		put_x(o, "payload_offset", r->aux_pos);
		break;
	case QPT_RECORD_AUXTRACE_ERROR:
		put_u(o, "error_type", f32(r, 8));
		put_u(o, "code", f32(r, 12));
		put_i(o, "cpu", (int32_t)f32(r, 16));
		put_i(o, "pid", (int32_t)f32(r, 20));
		put_i(o, "tid", (int32_t)f32(r, 24));
		put_x(o, "ip", f64(r, 32));
		put_u(o, "time", f64(r, 40));
		if (r->size >= 48)
			put_s(o, "msg", (const char *)r->data + 48,
			      r->size - 48 < QPT_AUXTRACE_ERROR_MSG_SIZE ?
				      r->size - 48 : QPT_AUXTRACE_ERROR_MSG_SIZE);
		break;
	}
}

/* perf stat's user records and the ones it shares with it. */
static void dump_stat(struct out *o)
{
	const struct qpt_record *r = o->rec;

	switch (r->type) {
	case QPT_RECORD_ID_INDEX:
	case QPT_RECORD_THREAD_MAP:
	case QPT_RECORD_STAT_CONFIG:
		put_u(o, "nr", f64(r, 8));
		break;
	case QPT_RECORD_CPU_MAP:
		put_u(o, "map_type", f16(r, 8));
		break;
	case QPT_RECORD_STAT:
		put_u(o, "id", f64(r, 8));
		put_i(o, "cpu", (int32_t)f32(r, 16));
		put_i(o, "thread", (int32_t)f32(r, 20));
		put_u(o, "val", f64(r, 24));
		put_u(o, "ena", f64(r, 32));
		put_u(o, "run", f64(r, 40));
		break;
	case QPT_RECORD_STAT_ROUND:
		put_u(o, "stat_type", f64(r, 8));
		put_u(o, "time", f64(r, 16));
		break;
	case QPT_RECORD_EVENT_UPDATE:
		put_u(o, "update_type", f64(r, 8));
		put_u(o, "id", f64(r, 16));
		if (f64(r, 8) == 2 || f64(r, 8) == 0)
			fstr(o, f64(r, 8) == 2 ? "name" : "unit", 24);
		break;
	}
}

static void dump_user(struct out *o)
{
	const struct qpt_record *r = o->rec;

	switch (r->type) {
	case QPT_RECORD_HEADER_ATTR:
		put_u(o, "attr_type", f32(r, 8));
		put_u(o, "attr_size", f32(r, 12));
		put_x(o, "config", f64(r, 16));
		put_x(o, "sample_type", f64(r, 32));
		break;
	case QPT_RECORD_HEADER_EVENT_TYPE:
		put_u(o, "event_id", f64(r, 8));
		fstr(o, "name", 16);
		break;
	case QPT_RECORD_HEADER_TRACING_DATA:
		put_u(o, "tracing_data_size", f32(r, 8));
		break;
	case QPT_RECORD_HEADER_BUILD_ID:
		put_i(o, "pid", (int32_t)f32(r, 8));
		if (r->size >= 36)
			put_hexbytes(o, "build_id",
				     (const uint8_t *)r->data + 12, 20);
		fstr(o, "filename", 36);
		break;
	case QPT_RECORD_AUXTRACE_INFO:
	case QPT_RECORD_AUXTRACE:
	case QPT_RECORD_AUXTRACE_ERROR:
		dump_aux_area(o);
		break;
	case QPT_RECORD_ID_INDEX:
	case QPT_RECORD_THREAD_MAP:
	case QPT_RECORD_STAT_CONFIG:
	case QPT_RECORD_CPU_MAP:
	case QPT_RECORD_STAT:
	case QPT_RECORD_STAT_ROUND:
	case QPT_RECORD_EVENT_UPDATE:
		dump_stat(o);
		break;
	case QPT_RECORD_TIME_CONV:
		put_u(o, "time_shift", f64(r, 8));
		put_u(o, "time_mult", f64(r, 16));
		put_u(o, "time_zero", f64(r, 24));
		if (r->size >= 56) {
			put_u(o, "time_cycles", f64(r, 32));
			put_x(o, "time_mask", f64(r, 40));
			put_u(o, "cap_user_time_zero",
			      ((const uint8_t *)r->data)[48]);
			put_u(o, "cap_user_time_short",
			      ((const uint8_t *)r->data)[49]);
		}
		break;
	case QPT_RECORD_HEADER_FEATURE:
		put_u(o, "feat_id", f64(r, 8));
		if (qpt_feature_name((enum qpt_feature)f64(r, 8)))
			put_s(o, "feature",
			      qpt_feature_name((enum qpt_feature)f64(r, 8)),
			      64);
		break;
	case QPT_RECORD_COMPRESSED:
		put_u(o, "data_size", r->size - 8u);
		break;
	case QPT_RECORD_COMPRESSED2:
		put_u(o, "data_size", f64(r, 8));
		break;
	}
}

static void dump_sid(struct out *o)
{
	const struct qpt_sample_id *s = &o->rec->sid;

	if (o->rec->type == PERF_RECORD_SAMPLE || !s->present)
		return;
	if (s->present & PERF_SAMPLE_TID) {
		put_i(o, "sample_pid", (int32_t)s->pid);
		put_i(o, "sample_tid", (int32_t)s->tid);
	}
	if (s->present & PERF_SAMPLE_TIME)
		put_u(o, "sample_time", s->time);
	if (s->present & PERF_SAMPLE_ID)
		put_u(o, "sample_id", s->id);
	if (s->present & PERF_SAMPLE_STREAM_ID)
		put_u(o, "sample_stream_id", s->stream_id);
	if (s->present & PERF_SAMPLE_CPU)
		put_u(o, "sample_cpu", s->cpu);
	if (s->present & PERF_SAMPLE_IDENTIFIER)
		put_u(o, "sample_identifier", s->identifier);
}

static char prot_char(uint32_t prot, uint32_t bit, char c)
{
	return prot & bit ? c : '-';
}

/* perf report -D's MMAP and MMAP2 text. */
static void text_mmap(struct out *o, bool two)
{
	const struct qpt_record *r = o->rec;
	FILE *f = o->f;
	uint32_t prot;

	if (!two) {
		fprintf(f, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
			   "]: %c ",
			(int32_t)f32(r, 8), (int32_t)f32(r, 12), f64(r, 16),
			f64(r, 24), f64(r, 32),
			r->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x');
		fstr(o, NULL, 40);
		return;
	}
	prot = f32(r, 64);
	fprintf(f, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64,
		(int32_t)f32(r, 8), (int32_t)f32(r, 12), f64(r, 16), f64(r, 24),
		f64(r, 32));
	if (!(r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		fprintf(f, " %02x:%02x %" PRIu64 " %" PRIu64, f32(r, 40),
			f32(r, 44), f64(r, 48), f64(r, 56));
	fprintf(f, "]: %c%c%c%c ", prot_char(prot, 1, 'r'),
		prot_char(prot, 2, 'w'), prot_char(prot, 4, 'x'),
		f32(r, 68) & 1 ? 's' : 'p');
	fstr(o, NULL, 72);
}

/* perf report -D's SAMPLE text; false when the sample does not parse. */
static bool text_sample(struct out *o)
{
	const struct qpt_record *r = o->rec;
	struct qpt_sample s;

	if (!r->attr || qpt_sample_parse(r->attr, r->data, r->size, &s))
		return false;
	/* like perf: a fixed period comes from the attr */
	if (!(s.sample_type & PERF_SAMPLE_PERIOD))
		s.period = r->attr->attr.sample_period;
	fprintf(o->f,
		"(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64
		" addr: %#" PRIx64,
		r->misc, (int32_t)s.pid, (int32_t)s.tid, s.ip, s.period,
		s.addr);
	return true;
}

/* perf report -D's summary of the common records; false for others. */
static bool text_summary(struct out *o)
{
	const struct qpt_record *r = o->rec;
	FILE *f = o->f;

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		text_mmap(o, r->type == PERF_RECORD_MMAP2);
		return true;
	case PERF_RECORD_COMM:
		fprintf(f, "%s: ", r->misc & PERF_RECORD_MISC_COMM_EXEC ?
					   " exec" : "");
		fstr(o, NULL, 16);
		fprintf(f, ":%d/%d", (int32_t)f32(r, 8), (int32_t)f32(r, 12));
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(f, "(%d:%d):(%d:%d)", (int32_t)f32(r, 8),
			(int32_t)f32(r, 16), (int32_t)f32(r, 12),
			(int32_t)f32(r, 20));
		return true;
	case PERF_RECORD_SAMPLE:
		return text_sample(o);
	case PERF_RECORD_AUX:
		fprintf(f, " offset: %#" PRIx64 " size: %#" PRIx64
			   " flags: %#" PRIx64 " [%s%s%s]",
			f64(r, 8), f64(r, 16), f64(r, 24),
			f64(r, 24) & PERF_AUX_FLAG_TRUNCATED ? "T" : "",
			f64(r, 24) & PERF_AUX_FLAG_OVERWRITE ? "O" : "",
			f64(r, 24) & PERF_AUX_FLAG_PARTIAL ? "P" : "");
		return true;
	case PERF_RECORD_ITRACE_START:
		fprintf(f, " pid: %u tid: %u", f32(r, 8), f32(r, 12));
		return true;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		fprintf(f, " %s", r->misc & PERF_RECORD_MISC_SWITCH_OUT ? "OUT"
									: "IN ");
		if (r->type == PERF_RECORD_SWITCH_CPU_WIDE)
			fprintf(f, "  %s pid/tid: %d/%d",
				r->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next"
								      : "prev",
				(int32_t)f32(r, 8), (int32_t)f32(r, 12));
		return true;
	case QPT_RECORD_AUXTRACE:
		fprintf(f, " size: %#" PRIx64 "  offset: %#" PRIx64
			   "  ref: %#" PRIx64 "  idx: %u  tid: %d  cpu: %d",
			f64(r, 8), f64(r, 16), f64(r, 24), f32(r, 32),
			(int32_t)f32(r, 36), (int32_t)f32(r, 40));
		return true;
	case PERF_RECORD_LOST:
		fprintf(f, " lost %" PRIu64, f64(r, 16));
		return true;
	}
	return false;
}

static void dump_record(struct out *o, const struct qpt_record *r)
{
	const char *name = qpt_record_type_name(r->type);
	char unknown[32];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "UNKNOWN_%u", r->type);
		name = unknown;
	}
	o->rec = r;
	if (o->json) {
		fprintf(o->f, "{\"offset\":%" PRIu64 ",\"type\":\"%s\","
			      "\"size\":%u,\"misc\":%u",
			r->pos, name, r->size, r->misc);
		if (r->depth)
			fprintf(o->f, ",\"depth\":%u", r->depth);
		o->first = false;
	} else {
		if (r->sid.present & PERF_SAMPLE_CPU)
			fprintf(o->f, "%u ", r->sid.cpu);
		if (r->sid.present & PERF_SAMPLE_TIME)
			fprintf(o->f, "%" PRIu64 " ", r->sid.time);
		fprintf(o->f, "%s0x%" PRIx64 " [0x%x]: PERF_RECORD_%s",
			r->depth ? "  " : "", r->pos, r->size, name);
		if (text_summary(o)) {
			fputc('\n', o->f);
			return;
		}
	}
	if (r->type < PERF_RECORD_MAX)
		dump_kernel(o);
	else
		dump_user(o);
	dump_sid(o);
	fputs(o->json ? "}\n" : "\n", o->f);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: qpt dump [-i FILE] [--json]\n\n"
		   "Print every record of a perf.data file in file order.\n\n"
		   "  -i, --input FILE  input (default perf.data; - is stdin)\n"
		   "      --json        one JSON object per record and line\n"
		   "  -f, --force       read a file not owned by you or root\n"
		   "  -h, --help        this help\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = "perf.data";
	struct out o = {stdout, false, true, NULL};
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	bool force = false;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			usage(stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("dump");
		}
	}
	if (optind < argc)
		return cli_usage_error("dump", "unexpected argument '%s'",
				       argv[optind]);
	if (cli_open_input(input, force, &r))
		return QPT_EXIT_ERROR;
	while ((err = qpt_reader_next(r, &rec)) > 0) {
		dump_record(&o, &rec);
		err = 0;
	}
	if (err < 0)
		cli_reader_error(input, r, err);
	qpt_reader_free(r);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(NULL, "write error on standard output");
		return QPT_EXIT_ERROR;
	}
	return err < 0 ? QPT_EXIT_ERROR : QPT_EXIT_OK;
}
