// SPDX-License-Identifier: MIT
/*
 * qpt crash's report.  Text: the signal line, the fault address, the
 * faulting instruction, the call stack (innermost first, with where the
 * trace window cuts it), the window, the last taken branches (newest
 * first) and the last instructions (oldest first), then the other
 * threads.  JSON: one object with the same facts ("signal", "signame",
 * "code", "addr", "ip", "tid", "stack", "branches", "insns", ...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/crash_print.h"
#include "cli/signals.h"

/* "sym+0xoff" or "" into @buf. */
static const char *symstr(char *buf, size_t len, const char *sym,
			  uint64_t off)
{
	if (!sym)
		return "";
	snprintf(buf, len, "%s+%#" PRIx64, sym, off);
	return buf;
}

/* "0xIP SYM" (SYM escaped; nothing after the ip when it is ""). */
static void text_at(struct out *w, uint64_t ip, const char *sym)
{
	out_lit(w, "0x");
	out_hex(w, ip);
	if (!*sym)
		return;
	out_char(w, ' ');
	out_esc(w, sym, strlen(sym));
}

/* "0x..." left-aligned in a column of 14. */
static void hexcol(struct out *w, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%#" PRIx64, v);

	out_pad(w, buf, (size_t)n, -14);
}

/* @n bytes in hex, left-aligned in a column of 20. */
static void hexbytes_col(struct out *w, const uint8_t *p, size_t n)
{
	char buf[32];
	size_t i;

	for (i = 0; i < n && i < 15; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	buf[2 * i] = '\0';
	out_pad(w, buf, 2 * i, -20);
}

/* The instruction at @ip in @raw (at most @n bytes) as Intel-syntax text
 * in @buf, or "" where its bytes are no instruction. */
static const char *asm_of(uint64_t ip, const uint8_t *raw, size_t n,
			  char *buf, size_t size)
{
	struct qpt_item it;

	memset(&it, 0, sizeof(it));
	it.struct_size = sizeof(it);
	it.type = QPT_ITEM_INSN;
	it.ip = ip;
	it.mode = 64;
	it.size = (uint8_t)(n < sizeof(it.raw) ? n : sizeof(it.raw));
	memcpy(it.raw, raw, it.size);
	return qpt_item_asm(&it, buf, size) < 0 ? "" : buf;
}

/* The symbol of @ip from @th's flow, else from the files. */
static const char *sym_of(const struct crash_view *v,
			  const struct crash_thr *th, uint64_t ip, char *buf,
			  size_t len)
{
	uint64_t off = 0;
	const char *s = NULL;

	if (!th || qpt_crash_walk_sym(v->walk, th->i, ip, &s, &off) != 1)
		s = crash_syms_name(v->syms, ip, &off);
	return symstr(buf, len, s, off);
}

/* " file:line" of @ip into @buf, or "". */
static const char *line_of(const struct crash_view *v, uint64_t ip,
			   char *buf, size_t len)
{
	unsigned line = 0;
	const char *f = crash_syms_line(v->syms, ip, &line);

	if (!f)
		return "";
	snprintf(buf, len, "%s:%u", f, line);
	return buf;
}

/* The text " file:line" of @ip, when known. */
static void text_line(const struct crash_view *v, uint64_t ip, struct out *w)
{
	char buf[512];
	const char *s = line_of(v, ip, buf, sizeof(buf));

	if (!*s)
		return;
	out_char(w, ' ');
	out_esc(w, s, strlen(s));
}

/* The stack frames, innermost first: the crash (or last) ip, then the
 * call sites from the top of the shadow stack down. */
static size_t nr_frames(const struct crash_thr *th)
{
	return 1 + (th ? th->t.nr_frames : 0);
}

/* Call frame @i (1: the innermost call site) of @th. */
static struct qpt_crash_frame call_frame(const struct crash_view *v,
					 const struct crash_thr *th, size_t i)
{
	struct qpt_crash_frame f;

	memset(&f, 0, sizeof(f));
	qpt_crash_walk_frame(v->walk, th->i, i - 1, &f);
	return f;
}

/* Frame @i of a stack as printed: its ip and symbol, and how its
 * function was entered. */
struct shown {
	uint64_t ip;
	const char *sym;
	bool signal;
	bool tail;	    /* entered by a tail call ... */
	uint64_t tail_from; /* ... at this jump */
	const char *tail_sym;
	char buf[256], tbuf[256];
};

static void frame(const struct crash_view *v, const struct crash_thr *th,
		  uint64_t ip0, size_t i, struct shown *s)
{
	struct qpt_crash_frame f;

	s->signal = false;
	s->tail = false;
	if (!i) {
		s->ip = ip0;
		s->sym = sym_of(v, th, ip0, s->buf, sizeof(s->buf));
		if (th && th->t.tail_call) {
			s->tail = true;
			s->tail_from = th->t.tail_from;
			s->tail_sym = symstr(s->tbuf, sizeof(s->tbuf),
					     th->t.tail_sym, th->t.tail_symoff);
		}
		return;
	}
	f = call_frame(v, th, i);
	s->ip = f.site;
	s->sym = symstr(s->buf, sizeof(s->buf), f.sym, f.symoff);
	s->signal = f.signal;
	if (f.tail_call) {
		s->tail = true;
		s->tail_from = f.tail_from;
		s->tail_sym =
		    symstr(s->tbuf, sizeof(s->tbuf), f.tail_sym, f.tail_symoff);
	}
}

/* Whether call frame @j is a recursion of frame @i: the same call site,
 * no signal frame. */
static bool same_site(const struct crash_view *v, const struct crash_thr *th,
		      size_t i, size_t j)
{
	struct qpt_crash_frame a = call_frame(v, th, i),
			       b = call_frame(v, th, j);

	return a.site == b.site && !b.signal;
}

static const char *kind_name(unsigned kind)
{
	return kind < QPT_BR_NR ? qpt_branch_kind_name(kind) : "unknown";
}

/* The line that says where a stack's known frames end. */
static void text_stack_end(const struct crash_thr *th, const char *indent,
			   struct out *w)
{
	char buf[256];

	if (!th)
		return;
	if (th->t.switched) {
		out_cstr(w, indent);
		out_lit(w, "[control switched to this stack from 0x");
		out_hex(w, th->t.switch_from);
		if (th->t.switch_sym) {
			out_char(w, ' ');
			out_cstr(w, symstr(buf, sizeof(buf), th->t.switch_sym,
					   th->t.switch_symoff));
		}
		out_lit(w, " (swapcontext, setcontext): its callers are not "
			   "in the trace]\n");
		return;
	}
	if (th->t.began)
		return;
	out_cstr(w, indent);
	out_lit(w, "[the trace window begins mid-stack: the callers of ");
	out_cstr(w, th->t.base_sym ? th->t.base_sym : "its first function");
	out_lit(w, " before it are not in the trace]\n");
	if (th->t.deeper) {
		out_cstr(w, indent);
		out_lit(w, "[the stack is deeper than the window: ");
		out_cstr(w, th->t.base_sym);
		out_lit(w, " recurses beyond the window's start]\n");
	}
}

static void text_stack(const struct crash_view *v, const struct crash_thr *th,
		       uint64_t ip0, const char *indent, struct out *w)
{
	struct shown f;
	size_t i, n = nr_frames(th);

	for (i = 0; i < n; i++) {
		size_t same = 0;

		/* a recursion: one line for the frames at the same call site */
		while (i + same + 1 < n && i &&
		       same_site(v, th, i, i + same + 1))
			same++;
		frame(v, th, ip0, i, &f);
		if (same >= 2) {
			out_cstr(w, indent);
			out_char(w, '#');
			out_dec(w, i);
			out_lit(w, "..#");
			out_dec(w, i + same);
			out_char(w, ' ');
			text_at(w, f.ip, f.sym);
			out_lit(w, "  [");
			out_dec(w, same + 1);
			out_lit(w, " frames: recursion]\n");
			i += same;
			continue;
		}
		out_cstr(w, indent);
		out_char(w, '#');
		out_dec(w, i);
		out_char(w, ' ');
		text_at(w, f.ip, f.sym);
		text_line(v, f.ip, w);
		if (f.signal)
			out_lit(w, "  [signal handler entered here]");
		if (f.tail) {
			out_lit(w, "  [entered by a tail call from ");
			text_at(w, f.tail_from, f.tail_sym);
			out_char(w, ']');
		}
		out_char(w, '\n');
	}
	text_stack_end(th, indent, w);
}

static void text_head(const struct crash_view *v, struct out *w)
{
	const struct qpt_crash *c = v->c;
	const char *name, *code, *meaning;
	char buf[256];

	name = cli_signal_name(c->signo);
	cli_signal_code(c->signo, c->code, &code, &meaning);
	out_lit(w, "crash: ");
	out_esc(w, v->comm, strlen(v->comm));
	out_lit(w, " pid ");
	out_i64(w, c->pid);
	out_lit(w, " tid ");
	out_i64(w, c->tid);
	out_lit(w, " killed by ");
	out_cstr(w, name ? name : "signal");
	out_lit(w, " (");
	out_i64(w, c->signo);
	out_lit(w, ")");
	if (code) {
		out_lit(w, ", ");
		out_cstr(w, code);
		out_lit(w, ": ");
		out_cstr(w, meaning);
	} else {
		out_lit(w, ", si_code ");
		out_i64(w, c->code);
	}
	out_lit(w, "\nfault address: ");
	out_lit(w, "0x");
	out_hex(w, c->addr);
	out_lit(w, "\nfaulting instruction: ");
	text_at(w, c->ip, sym_of(v, v->t, c->ip, buf, sizeof(buf)));
	text_line(v, c->ip, w);
	out_lit(w, "\n  bytes ");
	out_hexbytes(w, c->insn, c->insn_len);
	out_lit(w, "\n  asm   ");
	out_cstr(w, asm_of(c->ip, c->insn, c->insn_len, buf, sizeof(buf)));
	out_char(w, '\n');
	if (!c->nr_regs && c->kind == QPT_CRASH_SIGNAL)
		/* --emulate=qemu: the fault is in the block from c->ip on */
		out_lit(w, "  (this recording knows the block the thread was "
			   "in, not which of its instructions faulted: record "
			   "with --emulate=fast for the exact instruction and "
			   "the registers)\n");
}

static void text_window(const struct crash_view *v, struct out *w)
{
	const struct qpt_crash_thread *t = &v->t->t;
	char buf[256];
	const char *s;

	out_lit(w, "trace window: ");
	out_dec(w, t->insns);
	out_lit(w, " instructions of thread ");
	out_i64(w, t->tid);
	out_lit(w, " from ");
	s = symstr(buf, sizeof(buf), t->first_sym, t->first_symoff);
	text_at(w, t->first_ip, s);
	out_cstr(w, t->began ? " (the thread's whole trace)\n"
			     : " (the window starts mid-flow: older history "
			       "was overwritten)\n");
}

/* Taken branch @i of @th (0: the newest). */
static struct qpt_lbr_entry branch(const struct crash_view *v,
				   const struct crash_thr *th, size_t i)
{
	struct qpt_lbr_entry e;

	memset(&e, 0, sizeof(e));
	qpt_crash_walk_branch(v->walk, th->i, i, &e);
	return e;
}

/* Instruction @i kept of @th (0: the newest). */
static struct qpt_crash_insn insn(const struct crash_view *v,
				  const struct crash_thr *th, size_t i)
{
	struct qpt_crash_insn in;

	memset(&in, 0, sizeof(in));
	qpt_crash_walk_insn(v->walk, th->i, i, &in);
	return in;
}

static void text_branches(const struct crash_view *v, struct out *w)
{
	const struct crash_thr *t = v->t;
	struct qpt_lbr_entry e;
	char b1[256], b2[256];
	const char *s;
	size_t i;

	out_lit(w, "last ");
	out_dec(w, t->t.nr_branches);
	out_lit(w, " taken branches (newest first):\n");
	for (i = 0; i < t->t.nr_branches; i++) {
		e = branch(v, t, i);
		out_dec_pad(w, i, 5, ' ');
		out_lit(w, ": ");
		hexcol(w, e.from);
		out_char(w, ' ');
		s = sym_of(v, t, e.from, b1, sizeof(b1));
		out_pad(w, s, strlen(s), -28);
		out_lit(w, " => ");
		hexcol(w, e.to);
		out_char(w, ' ');
		s = sym_of(v, t, e.to, b2, sizeof(b2));
		out_pad(w, s, strlen(s), -28);
		out_char(w, ' ');
		out_cstr(w, kind_name(e.kind));
		out_char(w, '\n');
	}
}

/* The instructions to show of @th: at most v->insns. */
static size_t nr_insns(const struct crash_view *v, const struct crash_thr *th)
{
	if (!th)
		return 0;
	return th->t.nr_insns < v->insns ? th->t.nr_insns : v->insns;
}

static void text_insns(const struct crash_view *v, struct out *w)
{
	struct qpt_crash_insn in;
	char buf[256];
	const char *s;
	size_t i, n = nr_insns(v, v->t);

	out_lit(w, "last ");
	out_dec(w, n);
	out_lit(w, " instructions (oldest first; the faulting one did not "
		   "retire):\n");
	for (i = n; i-- > 0;) {
		in = insn(v, v->t, i);
		out_lit(w, "  ");
		hexcol(w, in.ip);
		out_char(w, ' ');
		s = symstr(buf, sizeof(buf), in.sym, in.symoff);
		out_pad(w, s, strlen(s), -28);
		out_char(w, ' ');
		hexbytes_col(w, in.raw, in.size);
		s = asm_of(in.ip, in.raw, in.size, buf, sizeof(buf));
		out_pad(w, s, strlen(s), -32);
		text_line(v, in.ip, w);
		out_char(w, '\n');
	}
}

/* Thread @i of the walk, or NULL. */
static const struct crash_thr *get_thr(const struct crash_view *v, size_t i,
				       struct crash_thr *th)
{
	th->i = i;
	return qpt_crash_walk_thread(v->walk, i, &th->t) ? NULL : th;
}

/* Whether thread @i is another than the crashed one. */
static bool other(const struct crash_view *v, size_t i)
{
	return !v->t || v->t->i != i;
}

static void text_others(const struct crash_view *v, struct out *w)
{
	const struct crash_thr *o;
	struct crash_thr th;
	char buf[256];
	const char *s;
	size_t i;

	for (i = 0; (o = get_thr(v, i, &th)); i++) {
		if (!other(v, i))
			continue;
		out_lit(w, "other thread ");
		out_i64(w, o->t.tid);
		out_lit(w, ": ");
		out_dec(w, o->t.insns);
		out_lit(w, " instructions, last at ");
		s = symstr(buf, sizeof(buf), o->t.end_sym, o->t.end_symoff);
		text_at(w, o->t.end_ip, s);
		out_char(w, '\n');
		if (v->all_threads)
			text_stack(v, o, o->t.end_ip, "    ", w);
	}
}

/* ---- the second opinion: the stack copy unwound ---- */

static void json_sym(struct out *w, const char *key, const char *s);

/* The length of @sym's function name: without "+off", a version or
 * "@plt", a ".cold" (or other) part's suffix. */
static size_t fn_len(const char *sym)
{
	size_t n = strcspn(sym, "+@");
	const char *dot = memchr(sym, '.', n);

	return dot && dot != sym ? (size_t)(dot - sym) : n;
}

/* The start of the function of @ip whose symbol is @sym ("name+0xoff"),
 * or 0. */
static uint64_t fn_start(uint64_t ip, const char *sym)
{
	const char *plus = strrchr(sym, '+');

	return plus ? ip - strtoull(plus + 1, NULL, 16) : 0;
}

/* Whether two frames are in one function: the same start (aliases have
 * several names), else the same name. */
static bool same_fn(uint64_t aip, const char *a, uint64_t bip, const char *b)
{
	uint64_t sa = fn_start(aip, a), sb = fn_start(bip, b);
	size_t n = fn_len(a);

	if (sa && sa == sb)
		return true;
	return *a && n == fn_len(b) && !memcmp(a, b, n);
}

/* Unwound frame @i's symbol ("" without one): of the faulting ip, or of
 * the call before a return address. */
static const char *unwound_sym(const struct crash_view *v, size_t i, char *buf,
			       size_t len)
{
	uint64_t pc = v->unw->pc[i], off = 0;
	bool ret = !v->unw->activation[i];
	const char *s = ret ? crash_syms_name(v->syms, pc - 1, &off) : NULL;

	if (s)
		off++; /* of the return address itself */
	else	       /* an activation, or a signal trampoline "returned" to */
		s = crash_syms_name(v->syms, pc, &off);
	return symstr(buf, len, s, off);
}

/* Where the trace's stack and the unwound one part: *@ti and *@ui the
 * first frames that differ (the signal trampoline's frames the unwind
 * shows are skipped).  Returns true when they differ before either
 * ends. */
static bool first_difference(const struct crash_view *v, size_t *ti, size_t *ui)
{
	size_t nt = nr_frames(v->t), nu = v->unw->nr;
	char buf[256];
	struct shown f;
	const char *us;

	for (*ti = 0, *ui = 0; *ti < nt && *ui < nu; ++*ti, ++*ui) {
		frame(v, v->t, v->c->ip, *ti, &f);
		us = unwound_sym(v, *ui, buf, sizeof(buf));
		if (!strncmp(us, "__restore_rt+", 13) && *ui + 1 < nu) {
			++*ui;
			us = unwound_sym(v, *ui, buf, sizeof(buf));
		}
		if (!same_fn(f.ip, f.sym, v->unw->pc[*ui], us))
			return true;
	}
	return false;
}

/* A SIGSEGV at the stack's end: the fault address within a page below
 * rsp (a push or call past the stack's limit). */
static bool stack_overflow(const struct qpt_crash *c)
{
	uint64_t sp = c->regs[19];

	return c->signo == 11 && c->nr_regs == QPT_CRASH_MAX_REGS &&
	       c->addr < sp + 64 && sp - c->addr <= 4096;
}

/* In words, how the unwound stack compares with the trace's; *@ti, *@ui
 * where they part (or where one ends); *@differ whether they disagree. */
static const char *verdict(const struct crash_view *v, size_t *ti, size_t *ui,
			   bool *differ)
{
	size_t nt = nr_frames(v->t), nu = v->unw->nr;
	enum crash_unwind_end end = v->unw->end;

	*differ = first_difference(v, ti, ui);
	if (*differ)
		return end == CRASH_UNWIND_NO_CODE && *ui + 1 == nu
			   ? "a return address in no code mapped: the stack "
			     "was overwritten (the trace's stack is right)"
			   : "the stack copy says another caller";
	if (*ui < nu && v->t->t.switched)
		return "control switched to this stack: the stack copy has "
		       "what lies below its entry";
	if (*ui < nu)
		return v->t->t.began
			   ? "the stack copy has frames past the trace's"
			   : "the trace window is too short: the stack copy "
			     "has callers it does not";
	if (*ti == nt)
		return "they agree";
	if (stack_overflow(v->c))
		return "a stack overflow: the fault is at the stack's end; "
		       "the unwind stops where the bytes kept do";
	/* the unwind stopped short of the trace's stack */
	*differ = end != CRASH_UNWIND_MAXED && end != CRASH_UNWIND_COPY_END;
	return crash_unwind_end_text(end);
}

static void text_unwound(const struct crash_view *v, struct out *w)
{
	const struct crash_unwound *u = v->unw;
	char buf[256];
	const char *why;
	size_t i, ti, ui;
	bool differ;

	if (!u || !u->done || !v->t)
		return;
	why = verdict(v, &ti, &ui, &differ);
	out_lit(w, "stack unwound from the stack bytes kept (libdw, CFI): ");
	out_dec(w, u->nr);
	out_lit(w, " frames");
	if (!differ) {
		out_lit(w, ", the same functions");
		if (ui < u->nr || ti < nr_frames(v->t)) {
			out_lit(w, " (");
			out_cstr(w, why);
			out_char(w, ')');
		}
		out_char(w, '\n');
	} else {
		out_char(w, '\n');
		ui = 0;
	}
	/* all of a stack that disagrees, the frames past the trace's else */
	for (i = ui; i < u->nr; i++) {
		out_lit(w, "  #");
		out_dec(w, i);
		out_char(w, ' ');
		text_at(w, u->pc[i], unwound_sym(v, i, buf, sizeof(buf)));
		text_line(v, u->activation[i] ? u->pc[i] : u->pc[i] - 1, w);
		out_char(w, '\n');
	}
	if (!differ)
		return;
	out_lit(w, "  [they disagree from the trace's frame #");
	out_dec(w, ti);
	out_lit(w, ": ");
	out_cstr(w, why);
	out_lit(w, "]\n");
}

static void json_unwound(const struct crash_view *v, struct out *w)
{
	const struct crash_unwound *u = v->unw;
	char buf[256], lbuf[512];
	const char *why;
	size_t i, ti, ui;
	bool differ;

	if (!u || !u->done)
		return;
	out_array(w, "unwound");
	for (i = 0; i < u->nr; i++) {
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "ip", u->pc[i]);
		json_sym(w, "sym", unwound_sym(v, i, buf, sizeof(buf)));
		json_sym(w, "line",
			 line_of(v, u->activation[i] ? u->pc[i] : u->pc[i] - 1,
				 lbuf, sizeof(lbuf)));
		out_end(w);
	}
	out_array_end(w);
	out_kv_cstr(w, "unwound_end", crash_unwind_end_text(u->end));
	if (!v->t)
		return;
	why = verdict(v, &ti, &ui, &differ);
	out_kv_bool(w, "unwound_agrees", !differ);
	if (!differ && ui == u->nr && ti == nr_frames(v->t))
		return;
	out_key(w, "unwound_vs_trace");
	out_begin(w);
	out_kv_u64(w, "trace_frame", ti);
	out_kv_u64(w, "unwound_frame", ui);
	out_kv_cstr(w, "why", why);
	out_end(w);
}

/* ---- how control got here: the last throw and longjmp ---- */

/* What @in does to register @reg (0..15; rsi is 6), as the throw sites
 * load __cxa_throw's type argument: 1 with *@addr the address loaded
 * (lea REG, [rip+d]; mov r32, imm32), or with *@got the address of a GOT
 * slot holding it (mov REG, [rip+d]); 2 with *@reg the register copied
 * (mov REG, SRC); 0 when @in does not write @reg in these ways. */
static int loads(const struct qpt_crash_insn *in, int *reg, uint64_t *addr,
		 bool *got)
{
	const uint8_t *b = in->raw;
	uint8_t rex = (b[0] & 0xf0) == 0x40 ? b[0] : 0;
	const uint8_t *op = rex ? b + 1 : b;
	int32_t d;
	uint32_t imm;

	*got = false;
	if ((op[0] & 0xf8) == 0xb8 && in->size == (rex ? 6 : 5) &&
	    (op[0] & 7) + ((rex & 1) << 3) == *reg) {
		memcpy(&imm, op + 1, 4);
		*addr = imm;
		return 1;
	}
	if (!(rex & 8) || in->size < 3)
		return 0;
	if ((op[0] == 0x8d || op[0] == 0x8b) && (op[1] & 0xc7) == 0x05 &&
	    in->size == 7 && ((op[1] >> 3) & 7) + ((rex & 4) << 1) == *reg) {
		memcpy(&d, op + 2, 4);
		*addr = in->ip + 7 + (uint64_t)(int64_t)d;
		*got = op[0] == 0x8b;
		return 1;
	}
	if (op[0] == 0x89 && (op[1] & 0xc0) == 0xc0 && in->size == 3 &&
	    (op[1] & 7) + ((rex & 1) << 3) == *reg) {
		*reg = ((op[1] >> 3) & 7) + ((rex & 4) << 1);
		return 2;
	}
	return 0;
}

/* The thrown type: the typeinfo symbol the throw site loads into rsi
 * (through register copies, from the instructions the trace kept before
 * the call: the code that ran, whatever the paths), or NULL. */
static const char *thrown_type(const struct crash_view *v,
			       const struct qpt_crash_throw *t)
{
	uint64_t a = 0, off = 0;
	const char *s;
	int reg = 6, r = 0;
	bool got = false;
	size_t i;

	for (i = t->nr_insns; i-- > 0 && r != 1;)
		r = loads(&t->insns[i], &reg, &a, &got);
	if (r != 1)
		return NULL;
	s = got ? crash_syms_reloc(v->syms, a)
		: crash_syms_object(v->syms, a, &off);
	/* demangled, _ZTI... reads "typeinfo for TYPE": the type */
	if (s && !strncmp(s, "typeinfo for ", 13))
		s += 13;
	return s && !off ? s : NULL;
}

static bool get_throw(const struct crash_view *v, struct qpt_crash_throw *t)
{
	return v->t && qpt_crash_walk_throw(v->walk, v->t->i, t) == 1;
}

static bool get_exit(const struct crash_view *v, unsigned kind,
		     struct qpt_crash_exit *e)
{
	return v->t && qpt_crash_walk_exit(v->walk, v->t->i, kind, e) == 1;
}

static void text_exits(const struct crash_view *v, struct out *w)
{
	struct qpt_crash_throw t;
	struct qpt_crash_exit e;
	char buf[256];
	const char *type;

	if (get_throw(v, &t)) {
		out_cstr(w, t.rethrow ? "last exception rethrown: "
				      : "last exception thrown: ");
		text_at(w, t.site, symstr(buf, sizeof(buf), t.sym, t.symoff));
		text_line(v, t.site, w);
		type = thrown_type(v, &t);
		if (type && !t.rethrow) {
			out_lit(w, ", type ");
			out_esc(w, type, strcspn(type, "@"));
		}
		out_char(w, '\n');
		if (get_exit(v, QPT_CRASH_EXIT_EXCEPTION, &e) && e.at > t.at) {
			out_lit(w, "  caught at ");
			text_at(
			    w, e.to,
			    symstr(buf, sizeof(buf), e.to_sym, e.to_symoff));
			text_line(v, e.to, w);
			out_lit(w, " (");
			out_dec(w, e.frames);
			out_lit(w, " frames unwound)\n");
		}
	}
	if (!get_exit(v, QPT_CRASH_EXIT_LONGJMP, &e))
		return;
	out_lit(w, "last longjmp: from ");
	text_at(w, e.from, symstr(buf, sizeof(buf), e.from_sym, e.from_symoff));
	text_line(v, e.from, w);
	out_lit(w, " to ");
	text_at(w, e.to, symstr(buf, sizeof(buf), e.to_sym, e.to_symoff));
	text_line(v, e.to, w);
	out_lit(w, " (");
	out_dec(w, e.frames);
	if (e.ambiguous)
		out_lit(w, " frames left; the innermost frame of the function "
			   "was taken, the trace does not say which)\n");
	else
		out_lit(w, " frames left)\n");
}

static void json_exits(const struct crash_view *v, struct out *w)
{
	struct qpt_crash_throw t;
	struct qpt_crash_exit e;
	char buf[256], lbuf[512];
	const char *type;

	if (get_throw(v, &t)) {
		out_key(w, "last_throw");
		out_begin(w);
		out_kv_hex(w, "ip", t.site);
		json_sym(w, "sym", symstr(buf, sizeof(buf), t.sym, t.symoff));
		json_sym(w, "line", line_of(v, t.site, lbuf, sizeof(lbuf)));
		out_kv_bool(w, "rethrow", t.rethrow);
		type = t.rethrow ? NULL : thrown_type(v, &t);
		if (type)
			out_kv_str(w, "type", type, strcspn(type, "@"));
		if (get_exit(v, QPT_CRASH_EXIT_EXCEPTION, &e) && e.at > t.at) {
			out_kv_hex(w, "caught_at", e.to);
			json_sym(
			    w, "caught_sym",
			    symstr(buf, sizeof(buf), e.to_sym, e.to_symoff));
			out_kv_u64(w, "frames_unwound", e.frames);
		}
		out_end(w);
	}
	if (!get_exit(v, QPT_CRASH_EXIT_LONGJMP, &e))
		return;
	out_key(w, "last_longjmp");
	out_begin(w);
	out_kv_hex(w, "from", e.from);
	json_sym(w, "from_sym",
		 symstr(buf, sizeof(buf), e.from_sym, e.from_symoff));
	json_sym(w, "from_line", line_of(v, e.from, lbuf, sizeof(lbuf)));
	out_kv_hex(w, "to", e.to);
	json_sym(w, "to_sym", symstr(buf, sizeof(buf), e.to_sym, e.to_symoff));
	json_sym(w, "to_line", line_of(v, e.to, lbuf, sizeof(lbuf)));
	out_kv_u64(w, "frames", e.frames);
	out_kv_bool(w, "ambiguous", e.ambiguous);
	out_end(w);
}

void crash_print_text(const struct crash_view *v, struct out *w)
{
	text_head(v, w);
	if (!v->t) {
		out_lit(w, "no trace of the crashing thread in the file\n");
		text_others(v, w);
		return;
	}
	out_lit(w, "call stack (innermost first, rebuilt from the trace):\n");
	text_stack(v, v->t, v->c->ip, "  ", w);
	text_unwound(v, w);
	text_exits(v, w);
	text_window(v, w);
	text_branches(v, w);
	text_insns(v, w);
	text_others(v, w);
}

static void json_sym(struct out *w, const char *key, const char *s)
{
	if (*s)
		out_kv_cstr(w, key, s);
}

static void json_stack(const struct crash_view *v, const struct crash_thr *t,
		       uint64_t ip0, struct out *w)
{
	char buf[256], lbuf[512];
	struct shown f;
	size_t i, n = nr_frames(t);

	out_array(w, "stack");
	for (i = 0; i < n; i++) {
		frame(v, t, ip0, i, &f);
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "ip", f.ip);
		json_sym(w, "sym", f.sym);
		json_sym(w, "line", line_of(v, f.ip, lbuf, sizeof(lbuf)));
		if (f.signal)
			out_kv_bool(w, "signal_frame", true);
		if (f.tail) {
			out_kv_hex(w, "tail_call_from", f.tail_from);
			json_sym(w, "tail_call_from_sym", f.tail_sym);
		}
		out_end(w);
	}
	out_array_end(w);
	out_kv_bool(w, "window_mid_stack", t && !t->t.began && !t->t.switched);
	out_kv_bool(w, "deeper_than_window", t && t->t.deeper);
	if (t && t->t.switched) {
		out_kv_hex(w, "switched_from", t->t.switch_from);
		json_sym(w, "switched_from_sym",
			 symstr(buf, sizeof(buf), t->t.switch_sym,
				t->t.switch_symoff));
	}
}

static void json_branches(const struct crash_view *v, struct out *w)
{
	const struct crash_thr *t = v->t;
	struct qpt_lbr_entry e;
	char buf[256];
	size_t i;

	out_array(w, "branches");
	for (i = 0; t && i < t->t.nr_branches; i++) {
		e = branch(v, t, i);
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "from", e.from);
		out_kv_hex(w, "to", e.to);
		out_kv_cstr(w, "kind", kind_name(e.kind));
		json_sym(w, "from_sym", sym_of(v, t, e.from, buf, sizeof(buf)));
		json_sym(w, "to_sym", sym_of(v, t, e.to, buf, sizeof(buf)));
		out_end(w);
	}
	out_array_end(w);
}

static void json_insns(const struct crash_view *v, struct out *w)
{
	struct qpt_crash_insn in;
	char buf[256], lbuf[512];
	size_t i, n = nr_insns(v, v->t);

	out_array(w, "insns");
	for (i = n; i-- > 0;) {
		in = insn(v, v->t, i);
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "ip", in.ip);
		json_sym(w, "sym",
			 symstr(buf, sizeof(buf), in.sym, in.symoff));
		out_kv_hexbytes(w, "bytes", in.raw, in.size);
		out_kv_cstr(w, "asm", asm_of(in.ip, in.raw, in.size, buf,
					     sizeof(buf)));
		json_sym(w, "line", line_of(v, in.ip, lbuf, sizeof(lbuf)));
		out_end(w);
	}
	out_array_end(w);
}

static void json_others(const struct crash_view *v, struct out *w)
{
	const struct crash_thr *o;
	struct crash_thr th;
	char buf[256];
	size_t i;

	out_array(w, "threads");
	for (i = 0; (o = get_thr(v, i, &th)); i++) {
		if (!other(v, i))
			continue;
		out_elem(w);
		out_begin(w);
		out_kv_i64(w, "tid", o->t.tid);
		out_kv_u64(w, "insns", o->t.insns);
		out_kv_hex(w, "ip", o->t.end_ip);
		json_sym(w, "sym", symstr(buf, sizeof(buf), o->t.end_sym,
					  o->t.end_symoff));
		if (v->all_threads)
			json_stack(v, o, o->t.end_ip, w);
		out_end(w);
	}
	out_array_end(w);
}

void crash_print_json(const struct crash_view *v, struct out *w)
{
	const struct qpt_crash *c = v->c;
	const char *name, *code, *meaning;
	char buf[256];

	name = cli_signal_name(c->signo);
	cli_signal_code(c->signo, c->code, &code, &meaning);
	out_begin(w);
	out_kv_cstr(w, "comm", v->comm);
	out_kv_i64(w, "pid", c->pid);
	out_kv_i64(w, "tid", c->tid);
	out_kv_i64(w, "signal", c->signo);
	if (name)
		out_kv_cstr(w, "signame", name);
	out_kv_i64(w, "code", c->code);
	if (code) {
		out_kv_cstr(w, "code_name", code);
		out_kv_cstr(w, "code_meaning", meaning);
	}
	out_kv_hex(w, "addr", c->addr);
	out_kv_hex(w, "ip", c->ip);
	json_sym(w, "sym", sym_of(v, v->t, c->ip, buf, sizeof(buf)));
	json_sym(w, "line", line_of(v, c->ip, buf, sizeof(buf)));
	out_kv_hexbytes(w, "bytes", c->insn, c->insn_len);
	out_kv_cstr(w, "asm",
		    asm_of(c->ip, c->insn, c->insn_len, buf, sizeof(buf)));
	json_stack(v, v->t, c->ip, w);
	json_unwound(v, w);
	json_exits(v, w);
	if (v->t) {
		out_kv_u64(w, "window_insns", v->t->t.insns);
		out_kv_hex(w, "window_start", v->t->t.first_ip);
		json_sym(w, "window_start_sym",
			 symstr(buf, sizeof(buf), v->t->t.first_sym,
				v->t->t.first_symoff));
	}
	json_branches(v, w);
	json_insns(v, w);
	json_others(v, w);
	out_end(w);
}
