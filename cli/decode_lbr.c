// SPDX-License-Identifier: MIT
/*
 * qpt decode --lbr: each LBR record as one text block or one JSON object
 * ("tid", "ip", "time", "point", "entries": [{"from", "to", "kind",
 * "cycles"}]), or as TIME and LAST_BRANCH records of a perfmon buffer.
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/decode_lbr.h"

static const char *const point_names[QPT_LBR_POINT_NR] = {
	[QPT_LBR_AT_END] = "end", [QPT_LBR_AT_CRASH] = "crash",
	[QPT_LBR_AT_SAMPLE] = "sample", [QPT_LBR_AT_PERIOD] = "period",
};

unsigned lbr_want(const struct lbr_args *a)
{
	return QPT_WANT_BRANCH | QPT_WANT_EVENT | QPT_WANT_CYCLES |
	       (a->period ? QPT_WANT_INSN : 0);
}

static const char *kind_name(unsigned kind)
{
	return kind < QPT_BR_NR ? qpt_branch_kind_name(kind) : "unknown";
}

static void json_record(struct out *w, const struct qpt_lbr_record *r)
{
	size_t i;

	out_begin(w);
	out_kv_i64(w, "tid", r->tid);
	out_kv_hex(w, "ip", r->ip);
	if (r->has_time)
		out_kv_u64(w, "time", r->time);
	out_kv_cstr(w, "point", point_names[r->point]);
	out_array(w, "entries");
	for (i = 0; i < r->nr; i++) {
		const struct qpt_lbr_entry *e = qpt_lbr_record_entry(r, i);

		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "from", e->from);
		out_kv_hex(w, "to", e->to);
		out_kv_cstr(w, "kind", kind_name(e->kind));
		out_kv_u64(w, "cycles", e->cycles);
		if (e->flags & QPT_LBR_IN_TX)
			out_kv_bool(w, "in_tx", true);
		if (e->flags & QPT_LBR_ABORT)
			out_kv_bool(w, "abort", true);
		out_end(w);
	}
	out_array_end(w);
	out_end(w);
}

/* "    TID SEC.NSEC: lbr POINT ip IP, N entries", then one line each:
 * "	 N: FROM => TO KIND [cycles C] [in_tx] [abort]". */
static void text_record(struct out *w, const struct qpt_lbr_record *r)
{
	size_t i;

	out_dec_pad(w, r->tid < 0 ? 0 : (uint64_t)r->tid, 7, ' ');
	if (r->has_time) {
		out_char(w, ' ');
		out_dec(w, r->time / 1000000000);
		out_char(w, '.');
		out_dec_pad(w, r->time % 1000000000, 9, '0');
	}
	out_lit(w, ": lbr ");
	out_cstr(w, point_names[r->point]);
	out_lit(w, " ip ");
	out_hex(w, r->ip);
	out_lit(w, ", ");
	out_dec(w, r->nr);
	out_cstr(w, r->nr == 1 ? " entry\n" : " entries\n");
	for (i = 0; i < r->nr; i++) {
		const struct qpt_lbr_entry *e = qpt_lbr_record_entry(r, i);

		out_char(w, '\t');
		out_dec_pad(w, i, 3, ' ');
		out_lit(w, ": ");
		out_hex_pad(w, e->from, 16);
		out_lit(w, " => ");
		out_hex_pad(w, e->to, 16);
		out_char(w, ' ');
		out_cstr(w, kind_name(e->kind));
		if (e->cycles) {
			out_lit(w, " cycles ");
			out_dec(w, e->cycles);
		}
		if (e->flags & QPT_LBR_IN_TX)
			out_lit(w, " in_tx");
		if (e->flags & QPT_LBR_ABORT)
			out_lit(w, " abort");
		out_char(w, '\n');
	}
}

/* TIME (perf time, ns: the buffer says 1e9 ticks per second) and
 * LAST_BRANCH (at most 32 entries; aspace: the process id, cr3 being
 * unknown). */
static int perfmon_record(struct qpt_perfmon_writer *pm,
			  const struct qpt_lbr_record *r)
{
	struct qpt_perfmon_record rec;
	size_t i;
	int err;

	memset(&rec, 0, sizeof(rec));
	rec.type = QPT_PERFMON_TIME;
	rec.time = (int64_t)r->time;
	err = qpt_perfmon_writer_add(pm, &rec);
	if (err)
		return err;
	rec.type = QPT_PERFMON_LAST_BRANCH;
	rec.time = 0;
	rec.aspace = r->pid < 0 ? 0 : (uint64_t)r->pid;
	rec.num_branches = r->nr < QPT_PERFMON_MAX_BRANCHES ?
				   (uint32_t)r->nr : QPT_PERFMON_MAX_BRANCHES;
	for (i = 0; i < rec.num_branches; i++) {
		const struct qpt_lbr_entry *e = qpt_lbr_record_entry(r, i);

		rec.branches[i].from = e->from;
		rec.branches[i].to = e->to;
		rec.branches[i].info =
			(e->cycles > 0xffff ? 0xffff : e->cycles) |
			(e->flags & QPT_LBR_MISPRED ? QPT_PERFMON_INFO_MISPRED :
						      0);
	}
	return qpt_perfmon_writer_add(pm, &rec);
}

static int on_record(const struct qpt_lbr_record *r, void *ctx)
{
	struct lbr_run *lr = ctx;

	lr->records++;
	if (lr->pm)
		return perfmon_record(lr->pm, r);
	if (lr->w->json)
		json_record(lr->w, r);
	else
		text_record(lr->w, r);
	return lr->w->err;
}

int lbr_start(struct lbr_run *lr, const struct lbr_args *a, struct out *w,
	      const char *input)
{
	struct qpt_perfmon_header h = { 0, QPT_PERFMON_ARCH_X86_64, 0,
					1000000000, 0 };
	struct qpt_lbr_opts o;
	int err;

	memset(lr, 0, sizeof(*lr));
	lr->a = a;
	lr->w = w;
	qpt_lbr_opts_init(&o);
	o.depth = a->depth;
	o.period = a->period;
	err = qpt_lbr_new(&o, on_record, lr, &lr->lbr);
	if (!err && a->perfmon)
		err = qpt_perfmon_writer_new(&h, &lr->pm);
	if (err) {
		cli_error(NULL, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	if (!input)
		return 0;
	err = qpt_lbr_add_file_samples(lr->lbr, input);
	if (err >= 0)
		return 0;
	if (qpt_lbr_errmsg(lr->lbr)[0])
		cli_error_at(input, qpt_lbr_errpos(lr->lbr), "%s",
			     qpt_lbr_errmsg(lr->lbr));
	else
		cli_error(input, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

int lbr_end(struct lbr_run *lr, int err)
{
	return err ? err : qpt_lbr_finish(lr->lbr);
}

int lbr_save(struct lbr_run *lr)
{
	int err;

	if (!lr->pm)
		return QPT_EXIT_OK;
	err = qpt_perfmon_writer_save(lr->pm, lr->a->output);
	if (!err)
		return QPT_EXIT_OK;
	cli_error(lr->a->output, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

void lbr_free(struct lbr_run *lr)
{
	qpt_lbr_free(lr->lbr);
	qpt_perfmon_writer_free(lr->pm);
	memset(lr, 0, sizeof(*lr));
}
