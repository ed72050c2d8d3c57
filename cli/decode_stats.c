// SPDX-License-Identifier: MIT
/*
 * qpt decode --stats: the exact flat profile the decoder counts
 * (QPT_WANT_PROFILE: instructions and taken branches per thread,
 * instructions and calls per function), with the errors, losses and
 * overflows of each thread from the items that still come (errors always
 * do), as text or JSON Lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/decode_stats.h"

static struct stats_thread *thread_of(struct stats_run *st, int32_t pid,
				      int32_t tid)
{
	struct stats_thread *t;
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (st->th[i].pid == pid && st->th[i].tid == tid)
			return &st->th[i];
	t = realloc(st->th, (st->nr + 1) * sizeof(*t));
	if (!t)
		return NULL;
	st->th = t;
	t = &st->th[st->nr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

int stats_item(const struct qpt_item *it, void *ctx)
{
	struct stats_run *st = ctx;
	struct stats_thread *t;

	if (it->type != QPT_ITEM_EVENT)
		return 0;
	t = thread_of(st, it->pid, it->tid);
	if (!t)
		return -ENOMEM;
	if (it->kind == QPT_EV_ERROR || it->kind == QPT_EV_LOST)
		t->errors++;
	else if (it->kind == QPT_EV_OVERFLOW)
		t->overflows++;
	return 0;
}

static int by_insns(const void *a, const void *b)
{
	const struct qpt_profile_func *x = a, *y = b;
	int c;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	return c ? c
		 : strcmp(x->image ? x->image : "", y->image ? y->image : "");
}

/* a pid or tid 9 wide (-1: unknown) */
static void put_id(struct out *w, int32_t v)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%9" PRId32 " ", v);

	out_raw(w, buf, (size_t)n);
}

static void text_threads(struct out *w, const struct stats_run *st)
{
	size_t i;

	out_lit(w, "threads\n      PID       TID         INSNS     BRANCHES   "
		   "ERRORS OVERFLOWS\n");
	for (i = 0; i < st->nr; i++) {
		const struct stats_thread *t = &st->th[i];

		put_id(w, t->pid);
		put_id(w, t->tid);
		out_dec_pad(w, t->insns, 12, ' ');
		out_char(w, ' ');
		out_dec_pad(w, t->branches, 12, ' ');
		out_char(w, ' ');
		out_dec_pad(w, t->errors, 8, ' ');
		out_char(w, ' ');
		out_dec_pad(w, t->overflows, 9, ' ');
		out_char(w, '\n');
	}
}

static void text_funcs(struct out *w, const struct qpt_profile_func *fn,
		       size_t n, uint64_t total)
{
	size_t i;

	out_lit(w, "functions\n       INSNS       %        CALLS  FUNCTION "
		   "(IMAGE)\n");
	for (i = 0; i < n; i++) {
		out_dec_pad(w, fn[i].insns, 12, ' ');
		out_char(w, ' ');
		out_fixed(w,
			  total ? 100.0 * (double)fn[i].insns / (double)total
				: 0.0,
			  7, 2);
		out_char(w, ' ');
		out_dec_pad(w, fn[i].calls, 12, ' ');
		out_lit(w, "  ");
		if (fn[i].name)
			out_esc(w, fn[i].name, strlen(fn[i].name));
		else
			out_lit(w, "[unknown]");
		if (fn[i].image) {
			out_lit(w, " (");
			out_esc(w, fn[i].image, strlen(fn[i].image));
			out_char(w, ')');
		}
		out_char(w, '\n');
	}
}

static void json_out(struct out *w, const struct stats_run *st,
		     const struct qpt_profile_func *fn, size_t n,
		     const struct stats_thread *sum,
		     const struct qpt_decode_stats *ds)
{
	size_t i;

	out_begin(w);
	out_kv_cstr(w, "stats", "total");
	out_kv_u64(w, "insns", sum->insns);
	out_kv_u64(w, "branches", sum->branches);
	out_kv_u64(w, "errors", sum->errors);
	out_kv_u64(w, "overflows", sum->overflows);
	out_kv_u64(w, "fast_insns", ds->fast_insns);
	out_kv_u64(w, "trace_bytes", ds->trace_bytes);
	out_end(w);
	for (i = 0; i < st->nr; i++) {
		out_begin(w);
		out_kv_cstr(w, "stats", "thread");
		out_kv_i64(w, "pid", st->th[i].pid);
		out_kv_i64(w, "tid", st->th[i].tid);
		out_kv_u64(w, "insns", st->th[i].insns);
		out_kv_u64(w, "branches", st->th[i].branches);
		out_kv_u64(w, "errors", st->th[i].errors);
		out_kv_u64(w, "overflows", st->th[i].overflows);
		out_end(w);
	}
	for (i = 0; i < n; i++) {
		out_begin(w);
		out_kv_cstr(w, "stats", "function");
		if (fn[i].name)
			out_kv_cstr(w, "name", fn[i].name);
		if (fn[i].image)
			out_kv_cstr(w, "image", fn[i].image);
		out_kv_u64(w, "insns", fn[i].insns);
		out_kv_u64(w, "calls", fn[i].calls);
		out_end(w);
	}
}

int stats_print(struct stats_run *st, struct qpt_decoder *dec, struct out *w,
		bool json)
{
	const struct qpt_profile_thread *th;
	const struct qpt_profile_func *fl;
	struct qpt_profile_func *fn = NULL;
	struct qpt_decode_stats ds;
	struct stats_thread sum = {0};
	size_t n = qpt_decoder_profile_threads(dec, &th), i;

	for (i = 0; i < n; i++) {
		struct stats_thread *t = thread_of(st, th[i].pid, th[i].tid);

		if (!t)
			return -ENOMEM;
		t->insns = th[i].insns;
		t->branches = th[i].branches;
	}
	for (i = 0; i < st->nr; i++) {
		sum.insns += st->th[i].insns;
		sum.branches += st->th[i].branches;
		sum.errors += st->th[i].errors;
		sum.overflows += st->th[i].overflows;
	}
	n = qpt_decoder_profile_funcs(dec, &fl);
	if (n) {
		fn = malloc(n * sizeof(*fn));
		if (!fn)
			return -ENOMEM;
		memcpy(fn, fl, n * sizeof(*fn));
		qsort(fn, n, sizeof(*fn), by_insns);
	}
	qpt_decoder_stats(dec, &ds);
	if (json) {
		json_out(w, st, fn, n, &sum, &ds);
	} else {
		out_lit(w, "total: ");
		out_dec(w, sum.insns);
		out_lit(w, " instructions, ");
		out_dec(w, sum.branches);
		out_lit(w, " taken branches, ");
		out_dec(w, sum.errors);
		out_lit(w, " errors, ");
		out_dec(w, sum.overflows);
		out_lit(w, " overflows (fast decoder: ");
		out_dec(w, ds.fast_insns);
		out_lit(w, " instructions)\n");
		text_threads(w, st);
		text_funcs(w, fn, n, sum.insns);
	}
	free(fn);
	return 0;
}

void stats_free(struct stats_run *st)
{
	free(st->th);
	st->th = NULL;
	st->nr = 0;
}
