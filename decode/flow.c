// SPDX-License-Identifier: MIT
/*
 * The instruction flow: libipt's instruction decoder over one PT stream,
 * turned into instruction, branch and event items.  A taken branch is
 * known when the next instruction (or event) arrives, so the last branch-
 * like instruction is kept pending until then.  Errors become items with
 * their trace offset, and decoding resumes at the next PSB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/x86/x86.h"
#include "decode/flowpriv.h"

/* The flow handed out (internal.h): the state is flowpriv.h's. */
struct qd_flow {
	struct flow f;
};

uint64_t qd_tsc_to_time(const struct qd_time_conv *tc, uint64_t tsc)
{
	uint64_t quot, rem;

	if (!tc->valid || tc->shift >= 64) /* a shift no clock has */
		return tsc;
	quot = tsc >> tc->shift;
	rem = tsc & (((uint64_t)1 << tc->shift) - 1);
	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> tc->shift);
}

/* The branch kind of each class of the x86 layer. */
static const uint8_t branch_kind[QX86_NCLASSES] = {
	[QX86_NONE] = QPT_BR_NR,	   [QX86_JCC] = QPT_BR_JCC,
	[QX86_LOOP] = QPT_BR_JCC,	   [QX86_JMP] = QPT_BR_JMP,
	[QX86_JMP_IND] = QPT_BR_IND_JMP,  [QX86_CALL] = QPT_BR_CALL,
	[QX86_CALL_IND] = QPT_BR_IND_CALL, [QX86_RET] = QPT_BR_RET,
	[QX86_FAR_JMP] = QPT_BR_FAR,	   [QX86_FAR_CALL] = QPT_BR_FAR,
	[QX86_FAR_RET] = QPT_BR_FAR,	   [QX86_SYSCALL] = QPT_BR_SYSCALL,
	[QX86_SYSENTER] = QPT_BR_SYSCALL, [QX86_SYSRET] = QPT_BR_SYSRET,
	[QX86_INT] = QPT_BR_INT,	   [QX86_IRET] = QPT_BR_IRET,
};

static void item_init(struct flow *f, struct qpt_item *it,
		      enum qpt_item_type type, unsigned kind)
{
	struct qd_flow_ctx *fc = f->fc;

	memset(it, 0, offsetof(struct qpt_item, raw));
	it->struct_size = sizeof(*it);
	it->type = type;
	it->kind = kind;
	it->via = QPT_BR_NR;
	it->pid = fc->pid;
	it->tid = fc->tid;
	it->cpu = fc->cpu;
	it->queue = fc->queue;
	it->sym = NULL;
	it->symoff = 0;
	it->to_sym = NULL;
	it->to_symoff = 0;
	it->cycles = 0;
	it->srcfile = NULL;
	it->srcline = 0;
	it->msg = NULL;
	it->mode = 0;
	it->size = 0;
	it->time = 0; /* after raw: not cleared above */
	it->offset = 0;
	it->run = 0;
	it->run_len = 0;
	if (fc->tid >= 0)
		it->flags |= QPT_ITEM_HAS_TID;
	if (fc->cpu >= 0)
		it->flags |= QPT_ITEM_HAS_CPU;
	if (f->has_time) {
		it->flags |= QPT_ITEM_HAS_TIME;
		it->time = f->time;
	}
}

static int mode_bits(enum pt_exec_mode mode)
{
	return mode == ptem_16bit ? 16 : mode == ptem_32bit ? 32 : 64;
}

/* QPT_WANT_BRANCH_INSN: the branch instruction at @it->ip, its bytes
 * and mode (none when its code is not at hand). */
static void branch_insn(struct flow *f, struct qpt_item *it)
{
	const struct pt_block none = { .mode = f->mode };
	struct qx86_cached tmp;
	const struct qx86_cached *e;
	int bits = mode_bits(f->mode);

	e = flow_insn_at(f, &none, false, it->ip, bits, &tmp);
	if (!e)
		return;
	it->size = e->insn.len;
	it->mode = (uint8_t)bits;
	memcpy(it->raw, e->raw, sizeof(it->raw));
}

/* The source line of @it's ip, when asked. */
static void item_src(const struct qd_flow_ctx *fc, struct qpt_item *it)
{
	if ((fc->want & QPT_WANT_SRCLINE) && fc->space && it->ip)
		it->srcfile = qd_space_srcline(fc->space, it->ip, &it->srcline);
}

/*
 * The flow of a part of a queue that starts at a PSB reaches the first
 * place where the carried state (the pending instruction) matters: the
 * head ends.  A flow that leaves out its head (QD_HEAD_DROP) emits from
 * here on; one that makes only its head (QD_HEAD_ONLY) stops here.
 */
static int head_cut(struct flow *f)
{
	if (__builtin_expect(!f->head, 1))
		return 0;
	f->head = false;
	f->fc->head_done = true;
	return f->fc->head == QD_HEAD_ONLY ? QD_HEAD_STOP : 0;
}

/* Whether an item made now is left out (the head of QD_HEAD_DROP). */
static inline bool dropped(const struct flow *f)
{
	return __builtin_expect(f->head, 0) && f->fc->head == QD_HEAD_DROP;
}

/* The symbols of branch item @it, where they are wanted: the recorded
 * ones of a path's branch @br, or looked up. */
static void branch_syms(struct flow *f, struct qpt_item *it,
			const struct qd_path_br *br)
{
	if (!(f->fc->want & QPT_WANT_SYMBOLS) || !f->fc->space)
		return;
	if (br) {
		it->sym = br->sym;
		it->symoff = br->symoff;
		it->to_sym = br->to_sym;
		it->to_symoff = br->to_symoff;
		return;
	}
	if (it->to)
		it->to_sym = qd_space_sym(f->fc->space, it->to, &it->to_symoff);
	if (it->ip)
		it->sym = qd_space_sym(f->fc->space, it->ip, &it->symoff);
}

/*
 * Branch item @it (its kind, ends, reason and cycles set) with its
 * instruction, its symbols (@br's, a path's recorded ones, or looked up)
 * and source line, to the callback; a path being recorded keeps it, to
 * tell it again with no reason and no cycles.
 */
static int send_branch(struct flow *f, struct qpt_item *it,
		       const struct qd_path_br *br)
{
	if ((f->fc->want & QPT_WANT_BRANCH_INSN) && it->ip &&
	    it->kind != QPT_BR_TRACE_BEGIN) {
		it->size = it->mode = 0;
		memset(it->raw, 0, sizeof(it->raw));
		branch_insn(f, it);
	}
	branch_syms(f, it, br);
	if (f->rec)
		path_rec_branch(f, &(struct qd_path_br){it->ip, it->to, it->sym,
			it->to_sym, it->symoff, it->to_symoff, it->kind});
	item_src(f->fc, it);
	return f->fc->fn(it, f->fc->fn_ctx);
}

int flow_tell_branches(struct flow *f, const struct qd_path_br *br,
		       uint32_t n, uint64_t run)
{
	struct qpt_item it;
	uint32_t i;
	int err;

	item_init(f, &it, QPT_ITEM_BRANCH, 0);
	if (!f->rec) { /* a path being recorded keeps each branch */
		it.run = run;
		it.run_len = n;
	}
	for (i = 0; i < n; i++) {
		it.kind = br[i].kind;
		it.ip = br[i].from;
		it.to = br[i].to;
		err = send_branch(f, &it, &br[i]);
		if (err == QPT_ITEM_RUN_TOLD && it.run)
			return 0; /* the consumer told the rest */
		if (err)
			return err;
		it.run = 0;
		it.run_len = 0;
	}
	return 0;
}

/* Branch item @kind from @from to @to; @pend: the pending instruction's,
 * at its time where a PSB+ fixed it (p_timed). */
static int emit_branch(struct flow *f, unsigned kind, uint64_t from,
		       uint64_t to, unsigned via, bool pend)
{
	struct qpt_item it;
	uint64_t cycles = 0;

	if (f->skip_branch) { /* told before libipt decoded it again */
		f->skip_branch--;
		return 0;
	}
	f->n_branch++;
	f->fc->stats->branches++;
	if (f->fc->want & QPT_WANT_PROFILE)
		prof_branch(f, kind, to);
	if ((f->fc->want & QPT_WANT_COVERAGE) && kind != QPT_BR_TRACE_BEGIN &&
	    kind != QPT_BR_TRACE_END)
		cov_edge(f, from, to);
	if (f->cyc) /* direct jumps and calls read no packet */
		cycles = qd_cyc_take(f->cyc, !f->cyc_nodec &&
				     kind != QPT_BR_JMP && kind != QPT_BR_CALL);
	if (!(f->fc->want & QPT_WANT_BRANCH) || dropped(f))
		return 0;
	item_init(f, &it, QPT_ITEM_BRANCH, kind);
	it.ip = from;
	it.to = to;
	it.via = via;
	it.cycles = cycles;
	if (pend && f->p_timed) {
		it.flags |= QPT_ITEM_HAS_TIME;
		it.time = f->p_time;
	}
	return send_branch(f, &it, NULL);
}

static int emit_event(struct flow *f, unsigned kind, uint64_t ip,
		      bool ip_valid, uint64_t value, const char *msg)
{
	struct qpt_item it;

	if (!(f->fc->want & QPT_WANT_EVENT) && kind != QPT_EV_ERROR &&
	    kind != QPT_EV_OVERFLOW && kind != QPT_EV_LOST)
		return 0;
	if (f->skip_event) {
		f->skip_event--;
		return 0;
	}
	f->n_event++;
	if (dropped(f))
		return 0;
	item_init(f, &it, QPT_ITEM_EVENT, kind);
	it.ip = ip;
	if (ip_valid)
		it.flags |= QPT_ITEM_IP_VALID;
	it.value = value;
	it.msg = msg;
	it.offset = f->fc->offset_base + eng_offset(f);
	if (ip_valid && (f->fc->want & QPT_WANT_SYMBOLS) && f->fc->space)
		it.sym = qd_space_sym(f->fc->space, ip, &it.symoff);
	if (ip_valid)
		item_src(f->fc, &it);
	return f->fc->fn(&it, f->fc->fn_ctx);
}

/* @it: prepared by item_init for the block, with the instruction's ip,
 * size, bytes, symbol and source line. */
static int emit_insn(struct flow *f, struct qpt_item *it)
{
	struct qd_flow_ctx *fc = f->fc;
	uint64_t ip = it->ip;

	if (f->skip_insn) {
		f->skip_insn--;
		return 0;
	}
	f->n_insn++;
	fc->stats->insns++;
	fc->stats->fast_insns += f->fast != NULL;
	if (fc->want & QPT_WANT_PROFILE)
		prof_insns(f, ip, 1);
	if (!(fc->want & QPT_WANT_INSN) || dropped(f))
		return 0;
	return fc->fn(it, fc->fn_ctx);
}

/* Tell the held instruction: at @time when @has (its read found a new
 * time), else at the time it was held with. */
static int tell_held(struct flow *f, bool has, uint64_t time)
{
	if (!f->held)
		return 0;
	f->held = false;
	if (has) {
		f->held_it.flags |= QPT_ITEM_HAS_TIME;
		f->held_it.time = time;
	}
	return emit_insn(f, &f->held_it);
}

/* The successor of the pending instruction is @next (0: unknown); the
 * end of the head (the branch to @next belongs to it). */
static int resolve(struct flow *f, uint64_t next, bool known)
{
	bool head = f->head;
	int err = 0;

	f->head = false; /* the branch is emitted and counted */
	if (!f->pending || !known || f->p_kind == QPT_BR_NR) {
		f->pending = false;
	} else if (f->p_kind == QPT_BR_JCC && next == f->p_ip + f->p_size) {
		f->pending = false;
		if (f->cyc && !f->cyc_carried)
			qd_cyc_pass(f->cyc);
		if (f->fc->want & QPT_WANT_COVERAGE)
			cov_fallthrough(f, f->p_ip, next);
	} else {
		f->pending = false;
		f->cyc_nodec = f->cyc_carried;
		err = emit_branch(f, f->p_kind, f->p_ip, next, QPT_BR_NR,
				  true);
		f->cyc_nodec = false;
		if (head)
			f->fc->carry.branched = true;
	}
	f->cyc_carried = false;
	f->head = head;
	return err ? err : head_cut(f);
}

/* The pending instruction is dropped; the end of the head (before the
 * items that follow, which do not depend on it). */
static int drop_pending(struct flow *f)
{
	f->pending = f->cyc_carried = false;
	return head_cut(f);
}

/* Decode against @sp from here on: its image, no code decoded before. */
static void use_space(struct flow *f, struct qd_space *sp)
{
	if (!sp || sp == f->fc->space)
		return;
	f->fc->space = sp;
	eng_set_space(f, sp);
	qx86_cache_use(f->cache, sp);
}

/* The trace's current time stamp counter, when it has one. */
static bool trace_tsc(struct flow *f, uint64_t *tsc)
{
	return eng_time(f, tsc);
}

/* The address space in force at trace offset @off (NULL: unchanged). */
static struct qd_space *locate(struct flow *f, uint64_t off, bool has_tsc,
			       uint64_t tsc)
{
	return eng_locate(f, off, has_tsc, tsc);
}

/*
 * A new timestamp: where the trace now is.  The block at hand was decoded
 * against the current space, so a change of space waits (f->next_space)
 * until it has been walked.  (The items' time comes with the events and
 * ticks: the decoder's time here may be that of an event it has read
 * ahead of the block's end.)
 */
static void update_time(struct flow *f)
{
	uint64_t tsc, off = 0;

	if (!trace_tsc(f, &tsc))
		return;
	if (f->loc_tsc == tsc)
		return; /* located at this time already */
	f->loc_tsc = tsc;
	off = eng_offset(f);
	f->next_space = locate(f, off, true, tsc);
}

static int on_disabled(struct flow *f, const struct pt_event *ev, bool async)
{
	uint64_t from;
	unsigned via = QPT_BR_NR;
	int err;

	if (async) {
		from = ev->variant.async_disabled.at;
		via = QPT_BR_ASYNC;
		err = resolve(f, from, true);
	} else if (f->pending && f->p_kind != QPT_BR_NR) {
		/* the branch that left the traced region */
		from = f->p_ip;
		via = f->p_kind;
		f->pending = false;
		err = 0;
	} else {
		from = f->pending ? f->p_ip : 0;
		f->pending = false;
		err = 0;
	}
	f->enabled = f->cyc_carried = false;
	cov_close(f);
	if (!err)
		err = emit_event(f, QPT_EV_DISABLED, from, from != 0, 0, NULL);
	if (!err)
		err = emit_branch(f, QPT_BR_TRACE_END, from, 0, via, false);
	/* both items depend on the pending instruction: the head's */
	return err ? err : head_cut(f);
}

/* Tracing (re)starts: an event and the branch that begins the trace. */
static int on_trace_enabled(struct flow *f, const struct pt_event *ev)
{
	int err;

	err = drop_pending(f);
	if (err)
		return err;
	f->enabled = true;
	cov_close(f);
	err = emit_event(f, QPT_EV_ENABLED, ev->variant.enabled.ip, true,
			 ev->variant.enabled.resumed, NULL);
	return err ? err : emit_branch(f, QPT_BR_TRACE_BEGIN, 0,
				       ev->variant.enabled.ip, QPT_BR_NR,
				       false);
}

static int on_async_branch(struct flow *f, const struct pt_event *ev)
{
	uint64_t from = ev->variant.async_branch.from;
	int err;

	err = resolve(f, from, true);
	cov_close(f);
	return err ? err : emit_branch(f, QPT_BR_ASYNC, from,
				       ev->ip_suppressed
					   ? 0
					   : ev->variant.async_branch.to,
				       QPT_BR_NR, false);
}

/* Packets were dropped; the trace resumes at the overflow's ip (a FUP,
 * which consumed no decision) when it has one. */
static int on_overflow(struct flow *f, const struct pt_event *ev)
{
	int err;

	cov_close(f);
	err = drop_pending(f);
	if (err)
		return err;
	err = emit_event(f, QPT_EV_OVERFLOW, ev->variant.overflow.ip,
			 !ev->ip_suppressed, 0,
			 "trace overflow: packets were dropped");
	f->cyc_nodec = true;
	if (!err && !ev->ip_suppressed)
		err = emit_branch(f, QPT_BR_TRACE_BEGIN, 0,
				  ev->variant.overflow.ip, QPT_BR_NR, false);
	f->cyc_nodec = false;
	return err;
}

/* A transaction's state; an abort is a branch to the abort handler. */
static int on_tsx(struct flow *f, const struct pt_event *ev)
{
	int err = 0;

	if (ev->variant.tsx.aborted) {
		err = resolve(f, ev->variant.tsx.ip, !ev->ip_suppressed);
		cov_close(f);
		f->pending = !ev->ip_suppressed;
		f->p_ip = ev->variant.tsx.ip;
		f->p_size = 0;
		f->p_kind = QPT_BR_TX_ABORT;
	}
	return err ? err : emit_event(f, QPT_EV_TSX, ev->variant.tsx.ip,
				      !ev->ip_suppressed,
				      (ev->variant.tsx.speculative ? 1 : 0) |
					  (ev->variant.tsx.aborted ? 2 : 0),
				      NULL);
}

/* The events that are one event item and nothing else: their kind, ip
 * (@has_ip: whether they have one) and value; false for the others. */
static bool plain_event(const struct pt_event *ev, unsigned *kind,
			uint64_t *ip, bool *has_ip, uint64_t *value)
{
	*ip = 0;
	*has_ip = false;
	*value = ev->type;
	switch (ev->type) {
	case ptev_exec_mode:
		*kind = QPT_EV_EXEC_MODE;
		*ip = ev->variant.exec_mode.ip;
		*has_ip = !ev->ip_suppressed;
		*value = ev->variant.exec_mode.mode;
		return true;
	case ptev_stop:
		*kind = QPT_EV_STOP;
		*value = 0;
		return true;
	case ptev_paging:
	case ptev_async_paging:
		*kind = QPT_EV_PAGING;
		*has_ip = ev->type == ptev_async_paging;
		*ip = *has_ip ? ev->variant.async_paging.ip : 0;
		*value = *has_ip ? ev->variant.async_paging.cr3
				 : ev->variant.paging.cr3;
		return true;
	case ptev_vmcs:
	case ptev_async_vmcs:
		*kind = QPT_EV_VMCS;
		*has_ip = ev->type == ptev_async_vmcs;
		*ip = *has_ip ? ev->variant.async_vmcs.ip : 0;
		*value = *has_ip ? ev->variant.async_vmcs.base
				 : ev->variant.vmcs.base;
		return true;
	case ptev_ptwrite:
		*kind = QPT_EV_PTWRITE;
		*ip = ev->variant.ptwrite.ip;
		*has_ip = !ev->ip_suppressed;
		*value = ev->variant.ptwrite.payload;
		return true;
	case ptev_exstop:
	case ptev_mwait:
	case ptev_pwre:
	case ptev_pwrx:
	case ptev_cbr:
		*kind = QPT_EV_POWER; /* the value: libipt's event type */
		return true;
	default:
		return false;
	}
}

static int on_event(struct flow *f, const struct pt_event *ev)
{
	uint64_t ip, value;
	unsigned kind;
	bool has_ip;

	switch (ev->type) {
	case ptev_enabled:
		return on_trace_enabled(f, ev);
	case ptev_disabled:
		return on_disabled(f, ev, false);
	case ptev_async_disabled:
		return on_disabled(f, ev, true);
	case ptev_async_branch:
		return on_async_branch(f, ev);
	case ptev_overflow:
		return on_overflow(f, ev);
	case ptev_tsx:
		return on_tsx(f, ev);
	default:
		if (ev->type == ptev_exec_mode)
			f->mode = ev->variant.exec_mode.mode;
		if (!plain_event(ev, &kind, &ip, &has_ip, &value))
			return 0;
		return emit_event(f, kind, ip, has_ip, value, NULL);
	}
}

/*
 * Tracing starts (again) at ev's ip: where the code may have changed
 * while it was off (an exec, another process).  The offset is past the
 * TIP.PGE packet: its last byte is the trace position.
 */
static void on_enabled(struct flow *f, const struct pt_event *ev)
{
	uint64_t off = 0, tsc = ev->tsc;
	bool has_tsc = ev->has_tsc && tsc;

	off = eng_offset(f);
	if (!has_tsc)
		has_tsc = trace_tsc(f, &tsc);
	use_space(f, locate(f, off ? off - 1 : 0, has_tsc, tsc));
	f->next_space = NULL;
}

/* Synchronised at a PSB: where the trace is. */
static void on_sync(struct flow *f)
{
	uint64_t off = 0, tsc = 0;
	bool has_tsc = trace_tsc(f, &tsc);

	off = eng_sync_offset(f);
	use_space(f, locate(f, off, has_tsc, tsc));
	f->next_space = NULL;
}

/* Whether the decoder has read past the buffer's own bytes. */
static bool past_own(const struct flow *f)
{
	return eng_offset(f) > f->own;
}

/*
 * The events before the next block, told.  An event with a new time
 * ends the step before anything it times is told (as perf's queue stops
 * at the state whose time passes the next queue's): it is kept, its time
 * the flow's place in the merge (qd_flow_time), and told first at the
 * next step, where the flow's time becomes its own as before (an
 * instruction held until then keeps the time before it).
 */
static int drain_events(struct flow *f, int status)
{
	while (f->ev_held || (status & pts_event_pending)) {
		struct pt_event ev;
		uint64_t new_time;
		bool fresh = !f->ev_held;
		int err;

		if (fresh) {
			status = eng_event(f, &ev);
			if (status < 0)
				return status;
		} else {
			ev = f->held_ev;
			f->ev_held = false;
		}
		if (fresh && ev.status_update && f->own < f->len &&
		    past_own(f)) {
			/* the next buffer's PSB+, which that buffer's flow
			 * tells: this one ends where the trace is at it
			 * (the first of its events with an ip), the held
			 * instruction told as one flow over both tells it
			 * at that PSB+'s first event */
			err = tell_held(f, false, 0);
			if (err) {
				f->stop = err;
				return err;
			}
			if (ev.ip_suppressed || (ev.type != ptev_exec_mode &&
						 ev.type != ptev_tsx &&
						 ev.type != ptev_async_paging &&
						 ev.type != ptev_async_vmcs))
				continue;
			f->done = true;
			return 0;
		}
		/* the flow at a PSB the fast decoder passed: before the
		 * first event that comes after it (a PSB+'s status events
		 * are given again by libipt starting there), not at a tick
		 * for the instruction whose query read that PSB+ */
		if (ev.type != ptev_tick)
			eng_after(f);
		/* a tick times the query that ended the last block, a
		 * disable the branch it binds to; others come after it.
		 * Times only go on (an event bound to a later packet may
		 * come with the time of an earlier one), as perf's; a PSB+'s
		 * core:bus ratio comes before the instructions up to its FUP,
		 * which perf walks before it reads that PSB+'s time. */
		if (ev.type == ptev_cbr && ev.status_update)
			ev.has_tsc = 0;
		if (ev.has_tsc && (!f->has_time ||
				   qd_tsc_to_time(&f->fc->tc, ev.tsc) > f->time))
			new_time = qd_tsc_to_time(&f->fc->tc, ev.tsc);
		else
			new_time = f->time;
		if (fresh && ev.has_tsc &&
		    (!f->has_time || new_time != f->time)) {
			f->held_ev = ev;
			f->held_time = new_time;
			f->ev_held = true;
			return status;
		}
		if (ev.type == ptev_tick || ev.type == ptev_disabled)
			err = tell_held(f, ev.has_tsc, new_time);
		else
			err = tell_held(f, false, 0);
		if (err) {
			f->stop = err; /* the callback's, not libipt's */
			return err;
		}
		if (ev.status_update && ev.has_tsc && f->pending &&
		    !f->p_timed && f->has_time && new_time != f->time) {
			f->p_timed = true; /* decided before this PSB+ */
			f->p_time = f->time;
		}
		if (ev.has_tsc) {
			f->time = new_time;
			f->has_time = true;
		}
		if (ev.type == ptev_enabled)
			on_enabled(f, &ev);
		if (ev.type == ptev_exec_mode && ev.status_update &&
		    !ev.ip_suppressed) {
			f->resume_ip = ev.variant.exec_mode.ip;
			f->resume_known = true;
		}
		err = on_event(f, &ev);
		if (err) {
			f->stop = err; /* the callback's, not libipt's */
			return err;
		}
	}
	return status;
}

/* A decode error: account for it and say so; the caller resyncs. */
static int on_error(struct flow *f, int status, uint64_t ip, bool ip_valid)
{
	struct qd_flow_ctx *fc = f->fc;
	const struct qd_map *m = NULL;
	int err = tell_held(f, false, 0);

	if (!err)
		err = drop_pending(f);
	cov_close(f);
	if (err)
		return err;
	fc->stats->errors++;
	if (status == -pte_nomap && ip_valid && fc->space)
		m = qd_space_find(fc->space, ip);
	if (m && !m->file->found) {
		/* shared by the workers of a parallel run */
		__atomic_fetch_add(&m->file->errors, 1, __ATOMIC_RELAXED);
		snprintf(f->msg, sizeof(f->msg),
			 "no memory image at 0x%llx: %s (%s)",
			 (unsigned long long)ip, m->file->path,
			 m->file->reason ? m->file->reason : "missing");
		return emit_event(f, QPT_EV_LOST, ip, true, 0, f->msg);
	}
	if (status == -pte_nomap && ip_valid)
		snprintf(f->msg, sizeof(f->msg), "no memory image at 0x%llx",
			 (unsigned long long)ip);
	else
		snprintf(f->msg, sizeof(f->msg), "%s",
			 pt_errstr(pt_errcode(status)));
	return emit_event(f, QPT_EV_ERROR, ip, ip_valid, 0, f->msg);
}

/*
 * The instruction at @ip: kept from before, else decoded from the image
 * and kept (the last one of @b from the block's own bytes when it spans
 * sections, into @tmp).  NULL when it does not decode.
 */
const struct qx86_cached *flow_insn_at(struct flow *f,
				       const struct pt_block *b, bool last,
				       uint64_t ip, int bits,
				       struct qx86_cached *tmp)
{
	const struct qx86_cached *e;
	const uint8_t *raw;
	uint8_t buf[16];
	size_t n;
	int len;

	if (last && b->truncated) {
		len = qx86_decode(f->cache->x, b->raw, b->size, bits, ip,
				  &tmp->insn);
		if (len < 0)
			return NULL;
		memset(tmp->raw, 0, sizeof(tmp->raw));
		memcpy(tmp->raw, b->raw, (size_t)len);
		return tmp;
	}
	e = qx86_cache_find(f->cache, ip, bits);
	if (e)
		return e;
	raw = buf;
	n = f->fc->space ? qd_space_code(f->fc->space, ip, buf, &raw) : 0;
	return qx86_cache_add(f->cache, ip, bits, raw, n, &e) < 0 ? NULL : e;
}

/* An instruction that does not decode: an error item; the caller goes on
 * at the next block. */
static int undecodable(struct flow *f, uint64_t ip)
{
	int err = drop_pending(f);

	cov_close(f);
	if (err)
		return err;
	f->fc->stats->errors++;
	snprintf(f->msg, sizeof(f->msg),
		 "cannot decode the instruction at 0x%llx",
		 (unsigned long long)ip);
	return emit_event(f, QPT_EV_ERROR, ip, true, 0, f->msg);
}

/* @n instructions that are counted, not told (those libipt decodes again
 * after the fast decoder are skipped). */
static void count_insns(struct flow *f, uint64_t n)
{
	uint64_t skip = f->skip_insn < n ? f->skip_insn : n;

	f->skip_insn -= skip;
	f->n_insn += n - skip;
	f->fc->stats->insns += n - skip;
	if (f->fast)
		f->fc->stats->fast_insns += n - skip;
}

/* A block of the fast decoder without instruction items: its last
 * instruction is the one the fast decoder reached last. */
static int count_block(struct flow *f, const struct pt_block *b, int bits)
{
	uint64_t ip = b->end_ip;
	uint8_t len, cls;
	int err;

	qd_fpt_last(f->fast, &len, &cls);
	if (b->ninsn > 1) {
		if (f->fc->want & QPT_WANT_PROFILE)
			prof_block(f, b, bits);
		count_insns(f, b->ninsn - 1u);
	}
	if (f->pending || f->head) { /* the block goes on from where it went */
		err = resolve(f, b->ip, true);
		if (err)
			return err;
	}
	if (f->fc->want & QPT_WANT_PROFILE) /* as emit_insn counts it */
		prof_insns(f, ip, 1);
	count_insns(f, 1);
	f->pending = true;
	f->p_timed = false;
	f->p_ip = ip;
	f->p_size = len;
	f->p_kind = branch_kind[cls];
	f->next_ip = ip + len;
	if (f->fc->want & QPT_WANT_COVERAGE)
		cov_walked(f, b->ip);
	return 0;
}

/* Whether the instruction class reads the trace to go on (a TNT bit or a
 * TIP): the block decoder's query for it ends its block. */
static bool asks_trace(unsigned cls)
{
	return cls != QX86_NONE && cls != QX86_JMP && cls != QX86_CALL;
}

/* The instruction at @ip of @b (@last: its last) into *@x: its bytes,
 * class, target and, for instruction items, symbol; NULL when its code
 * is not at hand or does not decode. */
static const struct qd_blk_insn *walk_insn(struct flow *f,
					   const struct pt_block *b,
					   bool last, uint64_t ip, int bits,
					   struct qd_blk_insn *x)
{
	const struct qx86_cached *e;
	struct qx86_cached tmp;

	e = flow_insn_at(f, b, last, ip, bits, &tmp);
	if (!e)
		return NULL;
	x->ip = ip;
	x->target = e->insn.target;
	x->len = e->insn.len;
	x->cls = e->insn.cls;
	memcpy(x->raw, e->raw, sizeof(x->raw));
	x->sym = NULL;
	x->symoff = 0;
	if ((f->fc->want & (QPT_WANT_INSN | QPT_WANT_SYMBOLS)) ==
		(QPT_WANT_INSN | QPT_WANT_SYMBOLS) &&
	    f->fc->space)
		x->sym = qd_space_sym(f->fc->space, ip, &x->symoff);
	return x;
}

/*
 * Walk the instructions of @b: the block gives only its first ip and its
 * count, so lengths come from the bytes of the image and near direct
 * jumps and calls (which libipt follows inside a block) are taken here.
 * Each instruction takes the time of the last packet it, or one before
 * it, read (as perf's decoder times its samples): all but the last the
 * time before the block; the last, when it read the trace (and so ended
 * the block), is held until a tick or its event says whether that packet
 * came with a new time.
 */
static int walk_block(struct flow *f, const struct pt_block *b)
{
	int bits = mode_bits(b->mode);
	uint64_t ip = b->ip;
	struct qpt_item it;
	unsigned k = 0, k0;
	struct qd_blk *blk = NULL; /* the block's instructions, kept */
	bool hit = false;	   /* ... and found there */
	int err;

	if (!(f->fc->want & QPT_WANT_INSN) && f->fast && !f->skip_insn)
		return count_block(f, b, bits); /* no items timed */

	item_init(f, &it, QPT_ITEM_INSN, 0);
	it.mode = (uint8_t)bits;
	if (b->speculative)
		it.flags |= QPT_ITEM_SPECULATIVE;

	/*
	 * Blocks end at every branch (end_on_call, end_on_jump), so without
	 * instruction output only the last one matters: it is at end_ip.
	 */
	/* (profiles: one instruction at a time where libipt's blocks may
	 * hold what the x86 layer does not decode, or some are skipped) */
	if (!(f->fc->want & QPT_WANT_INSN) && b->ninsn > 1 &&
	    !((f->fc->want & QPT_WANT_PROFILE) && (f->skip_insn || !f->fast))) {
		if (f->fc->want & QPT_WANT_PROFILE)
			prof_block(f, b, bits);
		count_insns(f, b->ninsn - 1u);
		if (f->pending || f->head) {
			err = resolve(f, ip, true);
			if (err)
				return err;
		}
		k = b->ninsn - 1u;
		ip = b->end_ip;
	}
	if ((f->fc->want & QPT_WANT_INSN) && f->fc->blks && f->fc->space &&
	    !b->truncated && b->ninsn <= QD_BLK_MAX) {
		blk = qd_blks_slot(f->fc->blks, b->ip);
		hit = qd_blk_is(blk, b->ip, f->fc->space, b->ninsn,
				(uint32_t)bits);
		if (!hit)
			blk->ninsn = 0; /* filled below, keyed at the end */
	}
	for (k0 = k; k < b->ninsn; k++) {
		const struct qd_blk_insn *x;
		struct qd_blk_insn rec;

		if (hit) {
			x = &blk->insn[k];
		} else {
			x = walk_insn(f, b, k + 1 == b->ninsn, ip, bits, &rec);
			if (!x && k > k0 &&
			    (f->fc->want & QPT_WANT_COVERAGE))
				cov_walked(f, b->ip); /* up to the one before */
			if (!x)
				return undecodable(f, ip);
			if (blk)
				blk->insn[k] = rec;
		}
		if (!f->head && f->p_kind == QPT_BR_NR) {
			/* resolve()'s way with the instruction before, which
			 * is no branch (all but a block's first instruction) */
			f->pending = f->cyc_carried = false;
		} else if (f->pending || f->head) {
			err = resolve(f, ip, true);
			if (err)
				return err;
		}
		it.ip = ip;
		it.size = x->len;
		memcpy(it.raw, x->raw, sizeof(it.raw));
		it.sym = x->sym;
		it.symoff = x->symoff;
		item_src(f->fc, &it);
		if (k + 1 == b->ninsn && asks_trace(x->cls) &&
		    (f->fc->want & QPT_WANT_INSN)) {
			f->held = true;
			f->held_it = it;
		} else {
			err = emit_insn(f, &it);
			if (err)
				return err;
		}
		f->pending = true;
		f->p_timed = false;
		f->p_ip = ip;
		f->p_size = x->len;
		f->p_kind = branch_kind[x->cls];
		/* libipt follows direct jumps and calls inside a block */
		if ((x->cls == QX86_JMP || x->cls == QX86_CALL) &&
		    k + 1 < b->ninsn)
			ip = x->target;
		else
			ip += x->len;
	}
	if (blk && !hit) {
		blk->ip = b->ip;
		blk->space = f->fc->space;
		blk->bits = (uint32_t)bits;
		blk->ninsn = b->ninsn;
	}
	f->next_ip = ip;
	if (f->fc->want & QPT_WANT_COVERAGE)
		cov_walked(f, b->ip);
	return 0;
}

/* Account the bytes skipped from @from to the resync point (or end). */
static void account_skip(struct flow *f, uint64_t from, uint64_t to,
			 uint64_t ip, bool ip_valid, int status)
{
	struct qd_flow_ctx *fc = f->fc;
	const struct qd_map *m;

	if (to <= from)
		return;
	fc->stats->skipped_bytes += to - from;
	if (status == -pte_nomap && ip_valid && fc->space) {
		m = qd_space_find(fc->space, ip);
		if (m && !m->file->found)
			__atomic_fetch_add(&m->file->bytes, to - from,
					   __ATOMIC_RELAXED);
	}
}

/* The block decoder synchronized: the cycle counter starts there too. */
static void cyc_sync(struct flow *f)
{
	if (f->cyc)
		qd_cyc_sync(f->cyc, eng_sync_offset(f));
}

int flow_walk(struct flow *f, const struct pt_block *b)
{
	int err;

	err = tell_held(f, false, 0); /* no tick: the time it was held at */
	if (err)
		return err;
	f->resume_known = false;
	if (b->ninsn) {
		err = walk_block(f, b);
		if (err)
			return err;
		flow_block_done(f);
	}
	return 0;
}

void flow_block_done(struct flow *f)
{
	update_time(f);
	use_space(f, f->next_space);
	f->next_space = NULL;
}

bool flow_path_ready(struct flow *f)
{
	uint64_t tsc;

	return !trace_tsc(f, &tsc) || tsc == f->loc_tsc;
}

int flow_path_enter(struct flow *f, uint64_t ip)
{
	update_time(f);
	return resolve(f, ip, true);
}

/* Whether the flow may take paths: counts and branches (no cycles),
 * on the fast decoder. */
static bool paths_on(const struct flow *f)
{
	unsigned want = f->fc->want;

	return f->fc->paths && f->fast &&
	       (want & (QPT_WANT_PROFILE | QPT_WANT_COVERAGE |
			QPT_WANT_BRANCH)) &&
	       !(want & (QPT_WANT_INSN | QPT_WANT_CYCLES));
}

/* The fast decoder bailed out: libipt from its last PSB. */
static int fall_back(struct flow *f)
{
	bool synced;
	int status = eng_fall_back(f, &synced);

	if (status >= 0 && synced)
		on_sync(f);
	return status;
}

/* Every 4096 blocks: the bytes decoded so far, of the run's total. */
static void tell_progress(struct flow *f)
{
	struct qd_progress *p = f->fc->progress;

	if (!(++p->blocks & 0xfff))
		p->fn(p->done + eng_offset(f), p->total, p->ctx);
}

/* The first step: synchronise at the first PSB. */
static int flow_start(struct flow *f)
{
	int status = eng_sync_forward(f);

	f->started = true;
	if (status >= 0) {
		cyc_sync(f);
		if (f->cyc)
			qd_cyc_give(f->cyc, f->fc->carry.cycles,
				    f->fc->carry.cyc_next);
	}
	if (status < 0) {
		f->done = true;
		f->fc->stats->skipped_bytes += f->own;
		if (status == -pte_eos && f->fc->after_loss)
			return 0;
		if (status == -pte_eos)
			return emit_event(f, QPT_EV_ERROR, 0, false, 0,
					  "no PSB found: nothing to decode");
		return on_error(f, status, 0, false);
	}
	on_sync(f);
	f->status = status;
	return 1;
}

/* A decode error at @status: say so and resync at the next PSB (libipt's
 * decoder, then the fast one again when it can). */
static int flow_resync(struct flow *f, int status, uint64_t ip, bool ip_valid)
{
	uint64_t err_off, sync_off = f->own;
	int err;

	if (f->fast) { /* not expected: the fast decoder bails out */
		status = fall_back(f);
		if (status >= 0) {
			f->status = status;
			return 1;
		}
	} else if (status == -pte_retstack_empty ||
		   (f->replay && flow_skipping(f))) {
		/* libipt from the fast decoder's PSB errs where the fast
		 * decoder did not, before it told all the fast one told: a
		 * trace that breaks the rules made that PSB no place to
		 * start (a return whose call came before it, say); from the
		 * synchronisation instead */
		bool synced;
		int sst;

		if (eng_fall_back_far(f, &sst, &synced) && sst >= 0) {
			if (synced)
				on_sync(f);
			f->status = sst;
			return 1;
		}
	}
	err_off = eng_offset(f);
	err = on_error(f, status, ip, ip_valid);
	if (err)
		return err;
	status = pt_blk_sync_forward(f->dec);
	if (status >= 0) {
		pt_blk_get_sync_offset(f->dec, &sync_off);
		cyc_sync(f);
		status = eng_resume(f, status);
	}
	account_skip(f, err_off, sync_off, ip, ip_valid,
		     ip_valid ? -pte_nomap : 0);
	if (status < 0) {
		f->done = f->lost = true;
		return 0;
	}
	on_sync(f);
	f->status = status;
	return 1;
}

/*
 * The end of the flow's bytes: the held instruction told; at the end of
 * the trace (no next part), the pending instruction's successor is @next
 * (as resolve), else the next part's flow resolves it.
 */
static int flow_end(struct flow *f, uint64_t next, bool known)
{
	int err = tell_held(f, false, 0);

	f->done = true;
	if (!err && f->own == f->len)
		err = resolve(f, next, known);
	return err;
}

/* One block (and the events before it), a path of blocks, or a
 * fall-back to libipt. */
static int flow_step(struct flow *f)
{
	struct pt_block block;
	uint64_t ip = 0, time = f->time;
	bool had_time = f->has_time;
	int status, err, st;

	status = drain_events(f, f->status);
	if (f->done)
		return 0;
	if (f->stop)
		return f->stop;
	/* a new time ends the step before the items it times (as perf's
	 * queue stops at the state whose time passes the next queue's,
	 * before its sample): the queues are merged by it first */
	if (f->ev_held || (status >= 0 && !(status & pts_eos) &&
			   f->has_time && (!had_time || f->time != time))) {
		f->status = status;
		return 1;
	}
	if (status == QD_FAST_BAIL) {
		status = fall_back(f);
		if (status >= 0) {
			f->status = status;
			return 1;
		}
	} else if (status >= 0) {
		if (status & pts_eos)
			return flow_end(f, f->resume_ip, f->resume_known);
		memset(&block, 0, sizeof(block));
		st = f->paths && f->fast ? path_step(f, &block, &status) : 0;
		if (st < 0)
			return st;
		if (st == PATH_DONE) {
			f->status = status;
			return 1;
		}
		if (!st)
			status = eng_next(f, &block);
		if (status == QD_FAST_BAIL) {
			status = fall_back(f);
			if (status >= 0) {
				f->status = status;
				return 1;
			}
		}
		err = flow_walk(f, &block);
		if (err)
			return err;
		if (f->fc->progress)
			tell_progress(f);
		if (status >= 0) {
			f->status = status;
			return 1;
		}
		if (status == -pte_eos)
			return flow_end(f, 0, false);
		if (status == -pte_nomap)
			ip = block.ninsn ? f->next_ip : block.ip;
	}
	return flow_resync(f, status, ip, ip != 0);
}

int qd_flow_step(struct qd_flow *qf)
{
	struct flow *f = &qf->f;

	int ret;

	if (f->done)
		return 0;
	/* flows that interleave share the cache */
	qx86_cache_use(f->cache, f->fc->space);
	ret = f->started ? flow_step(f) : flow_start(f);
	if (!ret && f->fc->cov && (f->fc->want & QPT_WANT_COVERAGE))
		ret = qd_cov_err(f->fc->cov);
	return ret;
}

bool qd_flow_time(const struct qd_flow *qf, uint64_t *time)
{
	if (qf->f.ev_held) { /* the time of what it tells next */
		*time = qf->f.held_time;
		return true;
	}
	*time = qf->f.time;
	return qf->f.has_time;
}

void qd_flow_close(struct qd_flow *qf)
{
	struct qd_carry *c;
	struct flow *f;

	if (!qf)
		return;
	f = &qf->f;
	c = &f->fc->carry;
	c->pending = f->pending;
	c->ip = f->p_ip;
	c->size = f->p_size;
	c->kind = f->p_kind;
	/* the pending branch was decided before the cut (the next buffer's
	 * PSB+, whose time this flow did not read): at the time then */
	c->timed = f->pending && (f->p_timed || f->has_time);
	c->time = f->p_timed ? f->p_time : f->time;
	c->cycles = c->cyc_next = 0;
	/* a basic block goes on in the next buffer (its PSB+ is this one's
	 * end), else it ends with the trace */
	if (f->own < f->len && !f->lost && !f->stop) {
		c->cov_open = f->cov_open;
		c->cov_ip = f->cov_ip;
		c->cov_end = f->cov_end;
		c->cov_space = f->cov_space;
	} else {
		cov_close(f);
		c->cov_open = false;
	}
	if (f->fc->progress)
		f->fc->progress->done += f->own;
	if (f->cyc && !f->lost) {
		/* the pending branch's decision is before the cut */
		if (f->pending && f->p_kind != QPT_BR_NR &&
		    f->p_kind != QPT_BR_JMP && f->p_kind != QPT_BR_CALL)
			qd_cyc_pass(f->cyc);
		c->cycles = qd_cyc_rest(f->cyc, f->own, &c->cyc_next);
	}
	qd_cyc_free(f->cyc);
	qx86_cache_free(f->own_cache);
	eng_fini(f);
	free(f->ipt_copy);
	free(qf);
}

int qd_flow_open(struct qd_flow_ctx *fc, const struct pt_config *config,
		 const uint8_t *buf, size_t len, size_t own,
		 struct qd_flow **out)
{
	struct qd_flow *qf = malloc(sizeof(*qf));
	struct flow *f;
	int err;

	*out = NULL;
	if (!qf)
		return -ENOMEM;
	f = &qf->f;
	flow_clear(f); /* the memo holds nothing until written */
	f->fc = fc;
	f->len = len;
	f->own = own < len ? own : len;
	f->own_cfg = *config;
	if (len) { /* @buf may be NULL: no arithmetic on it */
		buf = qd_ipt_buf(buf, len, &f->ipt_copy);
		if (!buf) {
			free(qf);
			return -ENOMEM;
		}
		f->own_cfg.begin = (uint8_t *)buf;
		f->own_cfg.end = (uint8_t *)buf + len;
	}
	f->own_cfg.flags.variant.block.end_on_call = 1;
	f->own_cfg.flags.variant.block.end_on_jump = 1;
	/* a tick for each query that finds a new time: see walk_block */
	f->own_cfg.flags.variant.block.enable_tick_events = 1;
	f->cfg = &f->own_cfg;
	f->pending = fc->carry.pending;
	f->p_ip = fc->carry.ip;
	f->p_size = fc->carry.size;
	f->p_kind = fc->carry.kind;
	f->p_timed = fc->carry.timed;
	f->p_time = fc->carry.time;
	f->cyc_carried = f->pending;
	f->cov_open = fc->carry.cov_open;
	f->cov_ip = fc->carry.cov_ip;
	f->cov_end = fc->carry.cov_end;
	f->cov_space = fc->carry.cov_space;
	f->head = fc->head != QD_HEAD_EMIT;
	fc->head_done = false;
	fc->carry.branched = false;
	fc->stats->trace_bytes += f->own;
	f->done = !len;
	f->cache = fc->cache ? fc->cache
			     : (f->own_cache = qx86_cache_new(QD_ICACHE_ORDER));
	if (f->cache) /* entries of this space from earlier runs stay */
		qx86_cache_use(f->cache, fc->space);
	err = !f->cache ? -ENOMEM : len ? eng_init(f, f->cfg) : 0;
	if (!err && len && (fc->want & QPT_WANT_CYCLES) &&
	    !(f->cyc = qd_cyc_new(f->cfg)))
		err = -ENOMEM;
	f->paths = !err && paths_on(f);
	if (err) {
		qd_flow_close(qf);
		return err;
	}
	*out = qf;
	return 0;
}

int qd_flow_run(struct qd_flow_ctx *fc, const struct pt_config *config,
		const uint8_t *buf, size_t len)
{
	struct qd_flow *f;
	int err = qd_flow_open(fc, config, buf, len, len, &f);

	if (!err)
		while ((err = qd_flow_step(f)) > 0)
			;
	qd_flow_close(f);
	return err == QD_HEAD_STOP ? 0 : err;
}
