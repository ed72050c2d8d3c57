// SPDX-License-Identifier: MIT
/*
 * The flow's profile counts (QPT_WANT_PROFILE): a block's instructions
 * are counted at once against their function when the block lies in the
 * range of addresses whose symbol lookup (qd_space_sym) gives that one
 * function; that range is kept for the next block, so a loop in one
 * function costs an add per block.
 */
#include <string.h>

#include "decode/flowpriv.h"

/* The function of @ip, and the range of addresses that share it. */
static struct qpt_profile_func *find_fn(struct flow *f, uint64_t ip,
					uint64_t *plo, uint64_t *phi)
{
	struct qd_space *sp = f->fc->space;
	const struct qd_map *m = sp ? qd_space_find(sp, ip) : NULL;
	const struct qd_sym *s = NULL;
	uint64_t lo = 0, hi = UINT64_MAX;

	if (m) {
		lo = m->start;
		hi = m->end;
	}
	if (m && m->has_bias && m->file->nr_syms) {
		uint64_t b = (uint64_t)m->sym_bias, slo, shi;

		s = qd_file_sym_range(m->file, ip - b, &slo, &shi);
		if (slo + b > lo)
			lo = slo + b;
		if (shi != UINT64_MAX && shi + b < hi)
			hi = shi + b;
	}
	if (!m) { /* no mapping: this address alone */
		lo = ip;
		hi = ip + 1;
	}
	*plo = lo;
	*phi = hi;
	return qd_prof_func(f->fc->prof, s ? s->name : NULL, s ? NULL : m);
}

/* The function of @ip: of the ranges kept (moved first), else found. */
static struct qpt_profile_func *prof_fn(struct flow *f, uint64_t ip)
{
	const struct qd_space *sp = f->fc->space;
	unsigned i, n = sizeof(f->pf) / sizeof(f->pf[0]);

	for (i = 0; i < n; i++)
		if (f->pf[i].fn && f->pf[i].space == sp && ip >= f->pf[i].lo &&
		    ip < f->pf[i].hi)
			break;
	if (i == n) {
		i = n - 1;
		f->pf[i].fn = find_fn(f, ip, &f->pf[i].lo, &f->pf[i].hi);
		f->pf[i].space = sp;
	}
	if (i) {
		__typeof__(f->pf[0]) e = f->pf[i];

		memmove(&f->pf[1], &f->pf[0], i * sizeof(f->pf[0]));
		f->pf[0] = e;
	}
	return f->pf[0].fn;
}

static struct qpt_profile_thread *prof_th(struct flow *f)
{
	struct qd_flow_ctx *fc = f->fc;

	if (!f->pth || f->pth->tid != fc->tid || f->pth->pid != fc->pid)
		f->pth = qd_prof_thread(fc->prof, fc->pid, fc->tid);
	return f->pth;
}

void prof_insns(struct flow *f, uint64_t ip, uint64_t n)
{
	struct qpt_profile_thread *th = prof_th(f);
	struct qpt_profile_func *fn = prof_fn(f, ip);

	if (th)
		th->insns += n;
	if (fn)
		fn->insns += n;
	if (f->rec)
		path_rec_prof(f, fn, n, 0, 0);
}

void prof_branch(struct flow *f, unsigned kind, uint64_t to)
{
	struct qpt_profile_thread *th;
	struct qpt_profile_func *fn;

	if (kind == QPT_BR_TRACE_BEGIN || kind == QPT_BR_TRACE_END)
		return;
	th = prof_th(f);
	if (th)
		th->branches++;
	if (kind != QPT_BR_CALL && kind != QPT_BR_IND_CALL) {
		if (f->rec)
			path_rec_prof(f, NULL, 0, 1, 0);
		return;
	}
	fn = prof_fn(f, to);
	if (fn)
		fn->calls++;
	if (f->rec)
		path_rec_prof(f, fn, 0, 1, 1);
}

void prof_path(struct flow *f, uint64_t insns, uint64_t branches,
	       const struct qd_path_fn *fn, unsigned n)
{
	struct qpt_profile_thread *th = prof_th(f);
	unsigned i;

	if (th) {
		th->insns += insns;
		th->branches += branches;
	}
	for (i = 0; i < n; i++) {
		fn[i].fn->insns += fn[i].insns;
		fn[i].fn->calls += fn[i].calls;
	}
}

void prof_block(struct flow *f, const struct pt_block *b, int bits)
{
	uint64_t ip = b->ip;
	unsigned k;

	prof_fn(f, ip);
	if (b->end_ip >= f->pf[0].lo && b->end_ip < f->pf[0].hi) {
		prof_insns(f, ip, b->ninsn - 1u);
		return;
	}
	/* across functions: one at a time (straight-line code) */
	for (k = 0; k + 1 < b->ninsn; k++) {
		const struct qx86_cached *e;
		struct qx86_cached tmp;

		e = flow_insn_at(f, b, false, ip, bits, &tmp);
		if (!e)
			return; /* the walk says what is wrong */
		prof_insns(f, ip, 1);
		ip += e->insn.len;
	}
}
