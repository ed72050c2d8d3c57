// SPDX-License-Identifier: MIT
/*
 * qpt dump's text summaries of the common records, in the layout of
 * `perf report -D` (tests/shell/dump_text.sh holds them to perf's).
 */
#include <string.h>

#include "cli/dump.h"

/* printf's "%#x": 0x... but plain 0. */
static void alt_hex(struct out *w, uint64_t v)
{
	if (v)
		out_lit(w, "0x");
	out_hex(w, v);
}

/* printf's "%02x" */
static void hex02(struct out *w, uint64_t v)
{
	if (v < 16)
		out_char(w, '0');
	out_hex(w, v);
}

static void i32(struct out *w, const struct qpt_record *r, size_t off)
{
	out_i64(w, (int32_t)dump_u32(r, off));
}

/* " PID/TID" */
static void pid_tid(struct out *w, const struct qpt_record *r, size_t off)
{
	out_char(w, ' ');
	i32(w, r, off);
	out_char(w, '/');
	i32(w, r, off + 4);
}

/* " PID/TID: [ADDR(LEN) @ PGOFF" of MMAP and MMAP2 */
static void mmap_head(struct out *w, const struct qpt_record *r)
{
	pid_tid(w, r, 8);
	out_lit(w, ": [");
	alt_hex(w, dump_u64(r, 16));
	out_char(w, '(');
	alt_hex(w, dump_u64(r, 24));
	out_lit(w, ") @ ");
	alt_hex(w, dump_u64(r, 32));
}

static void text_mmap(struct out *w, const struct qpt_record *r)
{
	mmap_head(w, r);
	out_lit(w, "]: ");
	out_char(w, r->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x');
	out_char(w, ' ');
	dump_str(w, r, 40);
}

static void text_mmap2(struct out *w, const struct qpt_record *r)
{
	uint32_t prot = dump_u32(r, 64);
	char *p;

	mmap_head(w, r);
	if (!(r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		out_char(w, ' ');
		hex02(w, dump_u32(r, 40));
		out_char(w, ':');
		hex02(w, dump_u32(r, 44));
		out_char(w, ' ');
		out_dec(w, dump_u64(r, 48));
		out_char(w, ' ');
		out_dec(w, dump_u64(r, 56));
	}
	p = out_reserve(w, 8);
	memcpy(p, "]: ", 3);
	p[3] = prot & 1 ? 'r' : '-';
	p[4] = prot & 2 ? 'w' : '-';
	p[5] = prot & 4 ? 'x' : '-';
	p[6] = dump_u32(r, 68) & 1 ? 's' : 'p';
	p[7] = ' ';
	out_commit(w, p + 8);
	dump_str(w, r, 72);
}

/* "(IP, MISC): PID/TID: IP period: N addr: ADDR"; false when the sample
 * does not parse. */
static bool text_sample(struct out *w, const struct qpt_record *r)
{
	struct qpt_sample s;

	if (!r->attr || qpt_sample_parse(r->attr, r->data, r->size, &s))
		return false;
	/* like perf: a fixed period comes from the attr */
	if (!(s.sample_type & PERF_SAMPLE_PERIOD))
		s.period = r->attr->attr.sample_period;
	out_lit(w, "(IP, 0x");
	out_hex(w, r->misc);
	out_lit(w, "): ");
	out_i64(w, (int32_t)s.pid);
	out_char(w, '/');
	out_i64(w, (int32_t)s.tid);
	out_lit(w, ": ");
	alt_hex(w, s.ip);
	out_lit(w, " period: ");
	out_dec(w, s.period);
	out_lit(w, " addr: ");
	alt_hex(w, s.addr);
	return true;
}

static void text_comm(struct out *w, const struct qpt_record *r)
{
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC)
		out_lit(w, " exec");
	out_lit(w, ": ");
	dump_str(w, r, 16);
	out_char(w, ':');
	i32(w, r, 8);
	out_char(w, '/');
	i32(w, r, 12);
}

/* FORK and EXIT: "(PID:TID):(PPID:PTID)" */
static void text_task(struct out *w, const struct qpt_record *r)
{
	out_char(w, '(');
	i32(w, r, 8);
	out_char(w, ':');
	i32(w, r, 16);
	out_lit(w, "):(");
	i32(w, r, 12);
	out_char(w, ':');
	i32(w, r, 20);
	out_char(w, ')');
}

static void text_aux(struct out *w, const struct qpt_record *r)
{
	uint64_t flags = dump_u64(r, 24);

	out_lit(w, " offset: ");
	alt_hex(w, dump_u64(r, 8));
	out_lit(w, " size: ");
	alt_hex(w, dump_u64(r, 16));
	out_lit(w, " flags: ");
	alt_hex(w, flags);
	out_lit(w, " [");
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		out_char(w, 'T');
	if (flags & PERF_AUX_FLAG_OVERWRITE)
		out_char(w, 'O');
	if (flags & PERF_AUX_FLAG_PARTIAL)
		out_char(w, 'P');
	out_char(w, ']');
}

static void text_switch(struct out *w, const struct qpt_record *r)
{
	bool out = r->misc & PERF_RECORD_MISC_SWITCH_OUT;

	if (out)
		out_lit(w, " OUT");
	else
		out_lit(w, " IN ");
	if (r->type != PERF_RECORD_SWITCH_CPU_WIDE)
		return;
	if (out)
		out_lit(w, "  next pid/tid:");
	else
		out_lit(w, "  prev pid/tid:");
	pid_tid(w, r, 8);
}

static void text_auxtrace(struct out *w, const struct qpt_record *r)
{
	out_lit(w, " size: ");
	alt_hex(w, dump_u64(r, 8));
	out_lit(w, "  offset: ");
	alt_hex(w, dump_u64(r, 16));
	out_lit(w, "  ref: ");
	alt_hex(w, dump_u64(r, 24));
	out_lit(w, "  idx: ");
	out_dec(w, dump_u32(r, 32));
	out_lit(w, "  tid: ");
	i32(w, r, 36);
	out_lit(w, "  cpu: ");
	i32(w, r, 40);
}

bool dump_summary(struct out *w, const struct qpt_record *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
		text_mmap(w, r);
		return true;
	case PERF_RECORD_MMAP2:
		text_mmap2(w, r);
		return true;
	case PERF_RECORD_COMM:
		text_comm(w, r);
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		text_task(w, r);
		return true;
	case PERF_RECORD_SAMPLE:
		return text_sample(w, r);
	case PERF_RECORD_AUX:
		text_aux(w, r);
		return true;
	case PERF_RECORD_ITRACE_START:
		out_lit(w, " pid: ");
		out_dec(w, dump_u32(r, 8));
		out_lit(w, " tid: ");
		out_dec(w, dump_u32(r, 12));
		return true;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		text_switch(w, r);
		return true;
	case QPT_RECORD_AUXTRACE:
		text_auxtrace(w, r);
		return true;
	case PERF_RECORD_LOST:
		out_lit(w, " lost ");
		out_dec(w, dump_u64(r, 16));
		return true;
	}
	return false;
}

/* printf's "%016llx" */
static void hex016(struct out *w, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;

	out_raw(w, "0000000000000000", (size_t)(16 - n));
	out_hex(w, v);
}

/* "..... %2u: %016x" */
static void ix_line(struct out *w, uint64_t i, uint64_t v)
{
	out_lit(w, ".....");
	out_dec_pad(w, i, 3, ' ');
	out_lit(w, ": ");
	hex016(w, v);
	out_char(w, '\n');
}

/* perf's LBR call chain: the kernel callchain up to PERF_CONTEXT_USER,
 * the newest entry's target, every entry's source. */
static void lbr_chain(struct out *w, const struct qpt_sample *s)
{
	uint64_t i, k, n = s->callchain_nr;

	for (k = 0; k < n && s->callchain[k] != PERF_CONTEXT_USER; k++)
		;
	if (k == n || !s->branch_nr)
		return;
	out_lit(w, "... LBR call chain: nr:");
	out_dec(w, k + 2 + s->branch_nr);
	out_char(w, '\n');
	for (i = 0; i <= k; i++)
		ix_line(w, i, s->callchain[i]);
	ix_line(w, k + 1, s->branches[0].to);
	for (i = 0; i < s->branch_nr; i++)
		ix_line(w, k + 2 + i, s->branches[i].from);
}

/* perf's names of the branch types (PERF_BR_*): "" for unknown. */
static const char *const br_types[16] = {
	"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX",
	"",
};

/* "..... %2u: FROM -> TO C cycles MPAT 0 TYPE" */
static void branch_entry(struct out *w, uint64_t i,
			 const struct qpt_branch_entry *b)
{
	struct perf_branch_entry e;

	memcpy(&e, b, sizeof(*b));
	out_lit(w, ".....");
	out_dec_pad(w, i, 3, ' ');
	out_lit(w, ": ");
	hex016(w, b->from);
	out_lit(w, " -> ");
	hex016(w, b->to);
	out_char(w, ' ');
	out_dec(w, e.cycles);
	out_lit(w, " cycles ");
	out_char(w, e.mispred ? 'M' : ' ');
	out_char(w, e.predicted ? 'P' : ' ');
	out_char(w, e.abort ? 'A' : ' ');
	out_char(w, e.in_tx ? 'T' : ' ');
	out_char(w, ' ');
	out_hex(w, e.reserved);
	out_char(w, ' ');
	out_cstr(w, br_types[e.type]);
	out_char(w, '\n');
}

void dump_sample_lines(struct out *w, const struct qpt_record *r)
{
	struct qpt_sample s;
	uint64_t i;
	bool cs;

	if (!r->attr || qpt_sample_parse(r->attr, r->data, r->size, &s))
		return;
	cs = r->attr->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;
	if (s.sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (cs && (s.sample_type & PERF_SAMPLE_BRANCH_STACK))
			lbr_chain(w, &s);
		out_lit(w, "... FP chain: nr:");
		out_dec(w, s.callchain_nr);
		out_char(w, '\n');
		for (i = 0; i < s.callchain_nr; i++)
			ix_line(w, i, s.callchain[i]);
	}
	if (!(s.sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	out_cstr(w, cs ? "... branch callstack: nr:" : "... branch stack: nr:");
	out_dec(w, s.branch_nr + cs);
	out_char(w, '\n');
	for (i = 0; i < s.branch_nr; i++) {
		if (!cs) {
			branch_entry(w, i, &s.branches[i]);
			continue;
		}
		if (!i)
			ix_line(w, 0, s.branches[0].to);
		ix_line(w, i + 1, s.branches[i].from);
	}
}
