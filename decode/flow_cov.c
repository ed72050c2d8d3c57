// SPDX-License-Identifier: MIT
/*
 * The flow's coverage (QPT_WANT_COVERAGE): a basic block goes on over
 * the block decoder's blocks as long as each starts where the last one
 * ended with no branch (libipt ends blocks at events that change no
 * flow too: a PSB's, a CBR's) and ends at its first branch, taken or
 * not, or where the trace stops; it is counted when it ends.  Edges are
 * the taken branches (counted with their items, emit_branch) and the
 * fall-throughs of conditional branches.  What libipt decodes again
 * after the fast decoder bailed out is not counted twice: the counts
 * made since the last PSB are skipped, as items are.
 */
#include "decode/flowpriv.h"

/* Whether the next count is made (not one made before a fall-back). */
static bool cov_op(struct flow *f)
{
	if (f->skip_cov) {
		f->skip_cov--;
		return false;
	}
	f->n_cov++;
	return true;
}

void cov_close(struct flow *f)
{
	struct qd_cov *c = f->fc->cov;
	uint64_t size = f->cov_end - f->cov_ip;
	uint32_t i;

	if (!f->cov_open)
		return;
	f->cov_open = false;
	if (!cov_op(f))
		return;
	if (size > UINT32_MAX)
		size = UINT32_MAX;
	i = qd_cov_block(c, f->cov_space, f->cov_ip, (uint32_t)size);
	qd_cov_count_block(c, i, 1);
	if (f->rec)
		path_rec_cov(f, false, i);
}

void cov_walked(struct flow *f, uint64_t ip)
{
	struct qd_space *sp = f->fc->space;

	if (f->cov_open && (ip != f->cov_end || sp != f->cov_space))
		cov_close(f);
	if (!f->cov_open) {
		f->cov_open = true;
		f->cov_ip = ip;
		f->cov_space = sp;
	}
	f->cov_end = f->p_ip + f->p_size;
	if (f->p_kind != QPT_BR_NR)
		cov_close(f);
}

void cov_edge(struct flow *f, uint64_t from, uint64_t to)
{
	struct qd_cov *c = f->fc->cov;
	uint32_t i;

	if (!from || !to)
		return;
	i = qd_cov_edge(c, from, to);
	qd_cov_count_edge(c, i, 1);
	if (f->rec)
		path_rec_cov(f, true, i);
}

void cov_fallthrough(struct flow *f, uint64_t from, uint64_t to)
{
	if (cov_op(f))
		cov_edge(f, from, to);
}
