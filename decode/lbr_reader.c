// SPDX-License-Identifier: MIT
/*
 * The samples of a perf.data that carry a branch stack, with their call
 * stacks as perf builds them for --call-graph lbr: the kernel part of the
 * callchain, then (a CALL_STACK LBR with entries) the newest entry's
 * target and every entry's call site, optionally stitched; else the user
 * part of the callchain.  Addresses are symbolized from the MMAP records
 * and the files they name (found as qpt decode finds them).
 */
#include <errno.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/internal.h"
#include "decode/lbr_priv.h"
#include "qpt/reader.h"

#define KERNEL_START 0xffff800000000000ULL

struct comm {
	char name[17];
};

struct qpt_lbr_reader {
	struct qpt_lbr_reader_opts o;
	struct qd_files files;
	struct qd_space **spaces; /* by pid */
	size_t nr_spaces, cap_spaces;
	struct qd_tidmap pids;
	struct qd_space *kernel;
	struct comm *comms; /* by tid */
	size_t nr_comms, cap_comms;
	struct qd_tidmap tids;
	struct qpt_lbr_stitch *stitch;
	unsigned max_lbr;
	bool warned;
	struct qd_space *cur; /* the sample's space, for link() */
	struct qpt_lbr_entry *ents;
	struct qpt_lbr_frame *frames;
	uint64_t *calls;
	size_t cap;
	uint64_t errpos;
	char errmsg[256];
};

void qpt_lbr_reader_opts_init_sized(struct qpt_lbr_reader_opts *out, size_t size)
{
	struct qpt_lbr_reader_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_lbr_reader_new(const struct qpt_lbr_reader_opts *opts,
		       struct qpt_lbr_reader **out)
{
	struct qpt_lbr_reader_opts o;
	struct qpt_lbr_reader *r;

	if (!out)
		return -QPT_E_INVAL;
	qpt_lbr_reader_opts_init(&o);
	if (opts && qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(size_t)))
		return -QPT_E_INVAL;
	if (o.max_lbr > QPT_LBR_MAX_DEPTH)
		return -QPT_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->o = o;
	elf_version(EV_CURRENT);
	r->files.sysroot = o.sysroot;
	r->files.buildid_dir = o.buildid_dir;
	r->files.log = o.log;
	r->files.log_ctx = o.log_ctx;
	r->files.demangle = o.demangle;
	*out = r;
	return 0;
}

static void reset(struct qpt_lbr_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_spaces; i++)
		qd_space_free(r->spaces[i]);
	r->nr_spaces = 0;
	qd_tidmap_free(&r->pids);
	qd_space_free(r->kernel);
	r->kernel = NULL;
	r->nr_comms = 0;
	qd_tidmap_free(&r->tids);
	qpt_lbr_stitch_free(r->stitch);
	r->stitch = NULL;
	r->max_lbr = 0;
	r->warned = false;
	r->errpos = 0;
	r->errmsg[0] = '\0';
}

void qpt_lbr_reader_free(struct qpt_lbr_reader *r)
{
	if (!r)
		return;
	reset(r);
	qd_files_free(&r->files);
	free(r->spaces);
	free(r->comms);
	free(r->ents);
	free(r->frames);
	free(r->calls);
	free(r);
}

uint64_t qpt_lbr_reader_errpos(const struct qpt_lbr_reader *r)
{
	return r ? r->errpos : 0;
}

const char *qpt_lbr_reader_errmsg(const struct qpt_lbr_reader *r)
{
	return r ? r->errmsg : "";
}

static int fail(struct qpt_lbr_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct qpt_lbr_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/* The address space of @pid (made when @make), or NULL. */
static struct qd_space *space_of(struct qpt_lbr_reader *r, int32_t pid,
				 bool make)
{
	struct qd_space **ns;
	size_t idx;

	if (qd_tidmap_get(&r->pids, pid, &idx))
		return r->spaces[idx];
	if (!make)
		return NULL;
	if (qd_grow(&r->spaces, &r->cap_spaces, r->nr_spaces + 1, sizeof(*ns)))
		return NULL;
	r->spaces[r->nr_spaces] = qd_space_new(pid);
	if (!r->spaces[r->nr_spaces] ||
	    qd_tidmap_put(&r->pids, pid, r->nr_spaces)) {
		qd_space_free(r->spaces[r->nr_spaces]);
		return NULL;
	}
	return r->spaces[r->nr_spaces++];
}

static int on_mmap(struct qpt_lbr_reader *r, const struct qpt_reader *rd,
		   const struct qpt_record *rec)
{
	const struct qpt_build_id *b;
	struct qpt_mmap_event m;
	struct qd_space *sp;
	struct qd_file *file;
	char path[4096];
	size_t n;

	if (qpt_mmap_parse(rec, &m) || !m.exec)
		return 0;
	n = m.filename_len < sizeof(path) ? m.filename_len : sizeof(path) - 1;
	memcpy(path, m.filename, n);
	path[n] = '\0';
	b = m.build_id ? NULL : qpt_reader_build_id(rd, path);
	file = qd_files_get(&r->files, path, b ? b->id : m.build_id,
			    b ? (b->size ? b->size : 20) : m.build_id_size,
			    false);
	if (m.pid == -1) {
		if (!r->kernel && !(r->kernel = qd_space_new(-1)))
			return -ENOMEM;
		sp = r->kernel;
	} else {
		sp = space_of(r, m.pid, true);
	}
	if (!file || !sp)
		return -ENOMEM;
	return qd_space_map(sp, NULL, m.start, m.len, m.pgoff, file);
}

static int on_comm(struct qpt_lbr_reader *r, const struct qpt_record *rec)
{
	const uint8_t *d = rec->data;
	int32_t pid, tid;
	size_t idx, n;
	long slot;
	bool made;

	if (rec->size < 17)
		return 0;
	memcpy(&pid, d + 8, 4);
	memcpy(&tid, d + 12, 4);
	slot = qd_tid_slot(&r->tids, &r->comms, &r->nr_comms, &r->cap_comms,
			   sizeof(*r->comms), tid, &made);
	if (slot < 0)
		return -ENOMEM;
	idx = (size_t)slot;
	n = strnlen((const char *)d + 16, rec->size - 16);
	n = n < 16 ? n : 16;
	memcpy(r->comms[idx].name, d + 16, n);
	r->comms[idx].name[n] = '\0';
	if ((rec->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    qd_tidmap_get(&r->pids, pid, &idx)) {
		/* exec: a new address space */
		struct qd_space *sp = qd_space_new(pid);

		if (!sp)
			return -ENOMEM;
		qd_space_free(r->spaces[idx]);
		r->spaces[idx] = sp;
	}
	return 0;
}

static int on_fork(struct qpt_lbr_reader *r, const struct qpt_record *rec)
{
	const uint8_t *d = rec->data;
	struct qd_space *parent, *child;
	int32_t pid, ppid;

	if (rec->size < 16)
		return 0;
	memcpy(&pid, d + 8, 4);
	memcpy(&ppid, d + 12, 4);
	if (pid == ppid || space_of(r, pid, false) ||
	    !(parent = space_of(r, ppid, false)))
		return 0;
	child = space_of(r, pid, true);
	if (!child)
		return -ENOMEM;
	/* the child's space becomes a copy of the parent's */
	parent = qd_space_clone(parent, pid);
	if (!parent)
		return -ENOMEM;
	qd_space_free(child);
	r->spaces[r->nr_spaces - 1] = parent;
	return 0;
}

static struct qd_space *space_at(struct qpt_lbr_reader *r, uint64_t addr)
{
	return addr >= KERNEL_START ? r->kernel : r->cur;
}

static void symbolize(struct qpt_lbr_reader *r, struct qpt_lbr_frame *f)
{
	struct qd_space *sp = space_at(r, f->addr);
	const struct qd_map *m = sp ? qd_space_find(sp, f->addr) : NULL;

	f->sym = sp ? qd_space_sym(sp, f->addr, &f->symoff) : NULL;
	f->dso = m ? m->file->path : NULL;
	f->dso_addr = m ? f->addr - m->start + m->pgoff : f->addr;
	f->srcfile = sp && r->o.srcline
			     ? qd_space_srcline(sp, f->addr, &f->srcline)
			     : NULL;
	if (!f->srcfile)
		f->srcline = 0;
}

/* Symbols say whether call site @from lies in the function entered at
 * @to (a PLT entry links to whatever it reaches); without symbols, the
 * call site must be at most 1 MiB past the entry. */
static bool link(uint64_t to, uint64_t from, void *ctx)
{
	struct qpt_lbr_reader *r = ctx;
	struct qd_space *sp = r->cur;
	uint64_t to_off = 0, from_off = 0, to_start;
	const char *ts = sp ? qd_space_sym(sp, to, &to_off) : NULL;
	const char *fs;
	size_t n;

	if (!ts)
		return from >= to && from - to < (1u << 20);
	to_start = to - to_off;
	n = strlen(ts);
	if (n > 4 && !strcmp(ts + n - 4, "@plt"))
		return true;
	fs = qd_space_sym(sp, from, &from_off);
	return fs ? from - from_off == to_start :
		    from >= to && from - to < (1u << 20);
}

/* Room for @n entries, frames and calls. */
static int reserve(struct qpt_lbr_reader *r, size_t n)
{
	size_t a = r->cap, b = r->cap;

	if (qd_grow(&r->ents, &a, n, sizeof(*r->ents)) ||
	    qd_grow(&r->frames, &b, n, sizeof(*r->frames)) ||
	    qd_grow(&r->calls, &r->cap, n, sizeof(*r->calls)))
		return -ENOMEM;
	return 0;
}

/* The LBR depth: the option, else the file's CPU_PMU_CAPS "branches". */
static unsigned max_lbr(const struct qpt_reader *rd,
			const struct qpt_lbr_reader *r)
{
	const struct qpt_features *f = qpt_reader_features(rd);
	size_t i;

	if (r->o.max_lbr)
		return r->o.max_lbr;
	for (i = 0; f && i < f->nr_cpu_pmu_caps; i++) {
		const struct qpt_pmu_cap *c = &f->cpu_pmu_caps[i];
		unsigned long v;

		if (!c->name || !c->value || strcmp(c->name, "branches"))
			continue;
		v = strtoul(c->value, NULL, 10);
		return v && v <= QPT_LBR_MAX_DEPTH ? (unsigned)v : 0;
	}
	return 0;
}

static int stitcher(struct qpt_lbr_reader *r, const struct qpt_reader *rd)
{
	struct qpt_lbr_stitch_opts so;

	if (r->stitch || !r->o.stitch || r->warned)
		return 0;
	r->max_lbr = max_lbr(rd, r);
	if (!r->max_lbr) {
		r->warned = true;
		if (r->o.log)
			r->o.log(QPT_LOG_WARN,
				 "the LBR depth is unknown (no CPU_PMU_CAPS "
				 "branches): nothing is stitched", r->o.log_ctx);
		return 0;
	}
	qpt_lbr_stitch_opts_init(&so);
	so.max_lbr = r->max_lbr;
	so.link = link;
	so.link_ctx = r;
	return qpt_lbr_stitch_new(&so, &r->stitch);
}

static void frame(struct qpt_lbr_reader *r, size_t *n, uint64_t addr,
		  unsigned source)
{
	struct qpt_lbr_frame *f = &r->frames[(*n)++];

	f->addr = addr;
	f->source = source;
	symbolize(r, f);
}

/* The frames of @s: the kernel callchain, then the LBR's (@fr, @nfr, the
 * last @stitched from memory) or the user callchain. */
static size_t frames(struct qpt_lbr_reader *r, const struct qpt_sample *s,
		     bool cs, const struct qpt_lbr_entry *fr, size_t nfr,
		     size_t stitched)
{
	uint64_t i, user = 0;
	size_t n = 0, k;
	bool has_user = false;

	for (i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = s->callchain[i];

		if (ip == PERF_CONTEXT_USER) {
			has_user = true;
			user = i + 1;
			break;
		}
		if (ip < PERF_CONTEXT_MAX)
			frame(r, &n, ip, QPT_FRAME_KERNEL);
	}
	if (cs && nfr && (has_user || !s->callchain_nr)) {
		frame(r, &n, fr[0].to, QPT_FRAME_LBR_LEAF);
		for (k = 0; k < nfr; k++)
			frame(r, &n, fr[k].from, k < nfr - stitched ?
				  QPT_FRAME_LBR : QPT_FRAME_STITCHED);
		return n;
	}
	for (i = user; has_user && i < s->callchain_nr; i++)
		if (s->callchain[i] < PERF_CONTEXT_MAX)
			frame(r, &n, s->callchain[i], QPT_FRAME_CALLCHAIN);
	if (!s->callchain_nr)
		frame(r, &n, s->ip, QPT_FRAME_CALLCHAIN);
	return n;
}

static int on_sample(struct qpt_lbr_reader *r, const struct qpt_reader *rd,
		     const struct qpt_record *rec, qpt_lbr_sample_fn fn,
		     void *ctx)
{
	const struct qpt_lbr_entry *fr;
	struct qpt_lbr_sample out;
	struct qpt_sample s;
	size_t nfr, stitched = 0, i, idx;
	bool cs;
	int err;

	if (qpt_sample_parse(rec->attr, rec->data, rec->size, &s))
		return 0; /* the reader reports malformed samples */
	cs = rec->attr->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;
	if (reserve(r, s.callchain_nr + s.branch_nr + 2))
		return -ENOMEM;
	for (i = 0; i < s.branch_nr; i++)
		qpt_lbr_entry_from_perf(s.branches[i].from, s.branches[i].to,
					s.branches[i].flags, &r->ents[i]);
	r->cur = space_of(r, (int32_t)s.pid, false);
	fr = r->ents;
	nfr = (size_t)s.branch_nr;
	if (cs && s.has_hw_idx && (err = stitcher(r, rd)))
		return err;
	if (cs && s.has_hw_idx && r->stitch) {
		err = qpt_lbr_stitch_sample(r->stitch, (int32_t)s.tid, r->ents,
					    nfr, s.branch_hw_idx, &fr,
					    &stitched);
		if (err < 0)
			return err;
		nfr = (size_t)err;
		if (reserve(r, s.callchain_nr + nfr + 2))
			return -ENOMEM;
	}
	memset(&out, 0, sizeof(out));
	out.struct_size = sizeof(out);
	out.frame_size = sizeof(*out.frames);
	out.pid = (int32_t)s.pid;
	out.tid = (int32_t)s.tid;
	out.cpu = s.cpu;
	out.time = s.time;
	out.ip = s.ip;
	out.period = s.sample_type & PERF_SAMPLE_PERIOD ?
			     s.period : rec->attr->attr.sample_period;
	out.comm = qd_tidmap_get(&r->tids, out.tid, &idx) ?
			   r->comms[idx].name : NULL;
	out.event = rec->attr->name;
	out.call_stack = cs;
	out.branch_nr = s.branch_nr;
	out.has_hw_idx = s.has_hw_idx;
	out.hw_idx = s.branch_hw_idx;
	out.nr_frames = frames(r, &s, cs, fr, nfr, stitched);
	out.frames = r->frames;
	for (i = 0; cs && i < nfr; i++)
		r->calls[i] = fr[i].from;
	out.nr_calls = cs ? nfr : 0;
	out.stitched = cs ? stitched : 0;
	out.calls = r->calls;
	return fn(&out, ctx);
}

static bool any_branch_stack(const struct qpt_reader *rd)
{
	size_t i, n = qpt_reader_nr_attrs(rd);

	for (i = 0; i < n; i++)
		if (qpt_reader_attr(rd, i)->attr.sample_type &
		    PERF_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

static int on_record(struct qpt_lbr_reader *r, const struct qpt_reader *rd,
		     const struct qpt_record *rec, qpt_lbr_sample_fn fn,
		     void *ctx, int *count)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(r, rd, rec);
	case PERF_RECORD_COMM:
		return on_comm(r, rec);
	case PERF_RECORD_FORK:
		return on_fork(r, rec);
	case PERF_RECORD_SAMPLE:
		if (!rec->attr ||
		    !(rec->attr->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
			return 0;
		(*count)++;
		return on_sample(r, rd, rec, fn, ctx);
	default:
		return 0;
	}
}

static const char no_branch_stack[] =
	"no event of this file samples a branch stack (record with -b, "
	"-j or --call-graph lbr)";

int qpt_lbr_reader_run(struct qpt_lbr_reader *r, const char *path,
		       qpt_lbr_sample_fn fn, void *ctx)
{
	struct qpt_reader_opts ro;
	struct qpt_reader *rd = NULL;
	struct qpt_record rec;
	int err, count = 0;

	if (!r || !path || !fn)
		return -QPT_E_INVAL;
	reset(r);
	qpt_reader_opts_init(&ro);
	ro.log = r->o.log;
	ro.log_ctx = r->o.log_ctx;
	err = qpt_reader_open(path, &ro, &rd);
	if (!err && !qpt_reader_is_pipe(rd) && !any_branch_stack(rd))
		err = fail(r, -QPT_E_UNSUPPORTED, "%s", no_branch_stack);
	while (!err && (err = qpt_reader_next(rd, &rec)) > 0)
		err = on_record(r, rd, &rec, fn, ctx, &count);
	if (!err && !count && !any_branch_stack(rd))
		err = fail(r, -QPT_E_UNSUPPORTED, "%s", no_branch_stack);
	if (err < 0 && rd && qpt_reader_errmsg(rd)[0]) {
		r->errpos = qpt_reader_errpos(rd);
		snprintf(r->errmsg, sizeof(r->errmsg), "%s",
			 qpt_reader_errmsg(rd));
	}
	qpt_reader_free(rd);
	return err < 0 ? err : count;
}
