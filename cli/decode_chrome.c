// SPDX-License-Identifier: MIT
/*
 * qpt decode --calls --format=chrome-trace: the call flow (callflow.h) as
 * Chrome's trace-event JSON (the object form: {"traceEvents": [...]}),
 * which chrome://tracing and Perfetto UI open.  Each call is a complete
 * event ("ph": "X") on its thread, named by the function it entered (the
 * symbol of its first instruction), written when its frame goes (a
 * return, or the end of the trace).  The timeline counts the thread's
 * instructions (one a microsecond on the viewers' scale), not time: the
 * trace's clock ticks far more coarsely than calls come, and slices of
 * equal times nest ambiguously; where the trace has time, a slice's perf
 * time (ns) is in its "args".  Thread and process names are metadata
 * events ("ph": "M").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/views.h"

struct ct_slice {
	const char *name; /* NULL until its first instruction */
	uint64_t start, time;
	bool has_time;
};

struct ct_thread {
	struct ct_slice *s; /* the open slices, outermost first */
	size_t cap;
	uint64_t insns; /* the thread's clock */
	int32_t pid, tid;
};

struct chrome {
	struct out *w;
	struct ct_thread *t;
	size_t nr_t;
	bool first; /* no event written yet */
};

static struct ct_thread *ct_thread(struct chrome *c, size_t i, size_t level)
{
	struct ct_thread *t;

	if (i >= c->nr_t) {
		t = realloc(c->t, (i + 1) * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + c->nr_t, 0, (i + 1 - c->nr_t) * sizeof(*t));
		c->t = t;
		c->nr_t = i + 1;
	}
	t = &c->t[i];
	if (level >= t->cap) {
		size_t cap = 2 * (level + 1);
		struct ct_slice *s = realloc(t->s, cap * sizeof(*s));

		if (!s)
			return NULL;
		t->s = s;
		t->cap = cap;
	}
	return t;
}

/* The separator before each event of the array. */
static void next_event(struct chrome *c)
{
	if (!c->first)
		out_char(c->w, ',');
	c->first = false;
}

static void put_ids(struct chrome *c, const struct ct_thread *t)
{
	out_kv_i64(c->w, "pid", t->pid >= 0 ? t->pid : t->tid);
	out_kv_i64(c->w, "tid", t->tid);
}

static int ct_push(void *ctx, size_t i, size_t level,
		   const struct qpt_crash_frame *f, const struct qpt_item *it)
{
	struct chrome *c = ctx;
	struct ct_thread *t = ct_thread(c, i, level);
	struct ct_slice *s;

	if (!t)
		return -ENOMEM;
	t->pid = it->pid;
	t->tid = it->tid;
	s = &t->s[level];
	s->start = t->insns;
	s->has_time = it->flags & QPT_ITEM_HAS_TIME;
	s->time = it->time;
	/* a call names its target; a signal frame its handler, at its first
	 * instruction */
	s->name = it->kind == QPT_BR_CALL || it->kind == QPT_BR_IND_CALL
		      ? it->to_sym
		      : NULL;
	return 0;
}

static int ct_pop(void *ctx, size_t i, size_t level, const struct qpt_item *it)
{
	struct chrome *c = ctx;
	struct ct_thread *t = &c->t[i];
	const struct ct_slice *s = &t->s[level];
	struct out *w = c->w;

	next_event(c);
	out_begin(w);
	out_kv_cstr(w, "name", s->name ? s->name : "[unknown]");
	out_kv_cstr(w, "cat", "call");
	out_kv_cstr(w, "ph", "X");
	out_kv_u64(w, "ts", s->start);
	out_kv_u64(w, "dur", t->insns - s->start);
	put_ids(c, t);
	if (s->has_time) {
		out_key(w, "args");
		out_begin(w);
		out_kv_u64(w, "time", s->time);
		out_end(w);
	}
	out_end(w);
	return w->err;
}

static int ct_insn(void *ctx, size_t i, size_t depth, const struct qpt_item *it)
{
	struct chrome *c = ctx;
	struct ct_thread *t = ct_thread(c, i, depth);

	if (!t)
		return -ENOMEM;
	if (depth && !t->s[depth - 1].name)
		t->s[depth - 1].name = it->sym;
	t->pid = it->pid;
	t->tid = it->tid;
	t->insns++;
	return 0;
}

static const struct callflow_ops chrome_ops = {
    .push = ct_push,
    .pop = ct_pop,
    .insn = ct_insn,
};

/* The names of the threads and processes seen. */
static void put_names(struct chrome *c)
{
	char name[48];
	size_t i;
	int k;

	for (i = 0; i < c->nr_t; i++)
		for (k = 0; k < 2; k++) {
			next_event(c);
			out_begin(c->w);
			out_kv_cstr(c->w, "name",
				    k ? "process_name" : "thread_name");
			out_kv_cstr(c->w, "ph", "M");
			put_ids(c, &c->t[i]);
			out_key(c->w, "args");
			out_begin(c->w);
			snprintf(name, sizeof(name), "%s %d", k ? "pid" : "tid",
				 (int)(k && c->t[i].pid >= 0 ? c->t[i].pid
							     : c->t[i].tid));
			out_kv_cstr(c->w, "name", name);
			out_end(c->w);
			out_end(c->w);
		}
}

int chrome_start(struct view *v)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->w = &v->w;
	c->first = true;
	v->ctx = c;
	out_lit(&v->w, "{\"traceEvents\":[\n");
	return callflow_init(&v->cf, &chrome_ops, c);
}

int chrome_finish(struct view *v)
{
	struct chrome *c = v->ctx;
	int err = callflow_finish(&v->cf);

	if (err)
		return err;
	put_names(c);
	out_lit(&v->w, "],\"displayTimeUnit\":\"ns\",\"otherData\":"
		       "{\"clock\":\"instructions\",\"producer\":\"qpt\"}}\n");
	return v->w.err;
}

void chrome_free(struct view *v)
{
	struct chrome *c = v->ctx;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_t; i++)
		free(c->t[i].s);
	free(c->t);
	free(c);
	v->ctx = NULL;
}
