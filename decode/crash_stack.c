// SPDX-License-Identifier: MIT
/*
 * The crash walk's stack of a thread (crash_stack.h): calls, returns,
 * cuts back to a frame re-entered without a return, switches between
 * stacks, tail calls and signal frames.
 */
#include "decode/crash_stack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- functions, by their symbols ---- */

/* The length of @name without its version ("@@GLIBC_2.2.5"), "@plt" or
 * a ".cold" part's suffix: the function it belongs to. */
static size_t base_len(const char *name)
{
	const char *at = strchr(name, '@');
	size_t n = at ? (size_t)(at - name) : strlen(name);
	const char *cold;

	/* "NAME.cold" and "NAME.cold.N": NAME's cold part */
	for (cold = name; (cold = strstr(cold, ".cold")) && cold < name + n;
	     cold++)
		if (cold[5] == '\0' || cold[5] == '.' || cold[5] == '@')
			return (size_t)(cold - name);
	return n;
}

static bool name_is(const char *name, const char *want)
{
	size_t n;

	if (!name)
		return false;
	n = base_len(name);
	return n == strlen(want) && !memcmp(name, want, n);
}

/* Whether (@a, @aoff at @aip) and (@b, @boff at @bip) are one function:
 * the same start, or the same name but for a ".cold" part. */
static bool same_func(const char *a, uint64_t aip, uint64_t aoff, const char *b,
		      uint64_t bip, uint64_t boff)
{
	size_t n;

	if (!a || !b)
		return false;
	if (aip - aoff == bip - boff)
		return true;
	n = base_len(a);
	return n == base_len(b) && !memcmp(a, b, n);
}

/* A PLT stub or the dynamic linker's lazy resolver: a jump from it goes
 * where the call into it meant to go, no tail call. */
static bool transparent(const char *name)
{
	size_t n;

	if (!name)
		return true;
	n = strlen(name);
	return (n > 4 && !strcmp(name + n - 4, "@plt")) ||
	       !strncmp(name, "_dl_runtime_resolve", 19);
}

bool cs_is_throw(const char *name, bool *rethrow)
{
	*rethrow = name_is(name, "__cxa_rethrow");
	return *rethrow || name_is(name, "__cxa_throw");
}

static bool is_unwind(const char *name)
{
	bool re;

	return cs_is_throw(name, &re) || name_is(name, "_Unwind_Resume") ||
	       name_is(name, "_Unwind_RaiseException") ||
	       name_is(name, "_Unwind_Resume_or_Rethrow") ||
	       name_is(name, "_Unwind_ForcedUnwind");
}

static bool is_longjmp(const char *name)
{
	const char *p = name ? strstr(name, "longjmp") : NULL;

	return p && p < name + base_len(name);
}

static bool is_context(const char *name)
{
	return name_is(name, "setcontext") || name_is(name, "swapcontext") ||
	       name_is(name, "__setcontext") || name_is(name, "__swapcontext");
}

/* ---- the stack ---- */

static int push(struct cs_stack *s, const struct cs_frame *f)
{
	struct cs_frame *n;

	if (s->depth == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		n = realloc(s->f, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->f = n;
		s->cap = cap;
	}
	s->f[s->depth++] = *f;
	return 0;
}

/* A frame at @site (in @sym) returning to @ret: the function entered from
 * it begins without a tail call. */
static int enter(struct cs_thread *t, uint64_t site, const char *sym,
		 uint64_t symoff, uint64_t ret, const char *callee,
		 bool signal)
{
	struct cs_frame f;
	int err;

	memset(&f, 0, sizeof(f));
	f.site = site;
	f.sym = sym;
	f.symoff = symoff;
	f.ret = ret;
	f.callee = callee;
	f.signal = signal;
	f.tail = t->cur.tail;
	err = push(&t->cur, &f);
	memset(&t->cur.tail, 0, sizeof(t->cur.tail));
	return err;
}

int cs_call(struct cs_thread *t, uint64_t ip, uint8_t size, const char *sym,
	    uint64_t symoff, const char *callee)
{
	return enter(t, ip, sym, symoff, ip + size, callee, false);
}

/* Frames [@j, depth) are gone: control is back in frame @j's function. */
static void cut(struct cs_stack *s, size_t j)
{
	if (j >= s->depth)
		return;
	s->tail = s->f[j].tail;
	s->depth = j;
}

/* A return below the stack's first frame: the next instruction is the
 * outermost known function. */
static void below(struct cs_stack *s)
{
	s->below++;
	s->base_next = true;
}

/* The kind of the exit that leaves frames [@j, depth), and the program's
 * call that began it (the outermost frame calling the longjmp,
 * __cxa_throw...), or NULL. */
static unsigned exit_kind(const struct cs_stack *s, size_t j,
			  const struct cs_frame **by)
{
	unsigned kind = QPT_CRASH_EXIT_OTHER;
	size_t i;

	*by = NULL;
	for (i = j; i < s->depth; i++) {
		const char *c = s->f[i].callee;
		unsigned k = is_unwind(c)    ? QPT_CRASH_EXIT_EXCEPTION
			     : is_longjmp(c) ? QPT_CRASH_EXIT_LONGJMP
			     : is_context(c) ? QPT_CRASH_EXIT_CONTEXT
					     : QPT_CRASH_EXIT_OTHER;

		if (k != QPT_CRASH_EXIT_OTHER) {
			*by = &s->f[i];
			return k;
		}
	}
	return kind;
}

/* Note an exit of @kind from @by (else the transfer at the pending
 * source) to @to. */
static void note_exit(struct cs_thread *t, unsigned kind,
		      const struct cs_frame *by, uint64_t to, const char *sym,
		      uint64_t symoff, uint64_t frames, bool ambiguous,
		      bool outside)
{
	struct qpt_crash_exit e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.from = by ? by->site : t->pend_from;
	e.from_sym = by ? by->sym : t->pend_sym;
	e.from_symoff = by ? by->symoff : t->pend_symoff;
	e.to = to;
	e.to_sym = sym;
	e.to_symoff = symoff;
	e.frames = frames;
	e.at = t->insns;
	e.ambiguous = ambiguous;
	e.outside = outside;
	t->exits[kind] = e;
	t->exits[QPT_CRASH_EXIT_ANY] = e;
	t->nr_exits++;
}

/* The innermost frame at or below @top whose function holds @ip (@sym),
 * or -1; *@more: another frame below it has the function too. */
static long frame_of(const struct cs_stack *s, size_t top, uint64_t ip,
		     const char *sym, uint64_t symoff, bool *more)
{
	size_t i, j;

	*more = false;
	for (i = top; i-- > 0;)
		if (same_func(s->f[i].sym, s->f[i].site, s->f[i].symoff, sym,
			      ip, symoff)) {
			for (j = i; j-- > 0;)
				if (same_func(s->f[j].sym, s->f[j].site,
					      s->f[j].symoff, sym, ip, symoff))
					*more = true;
			return (long)i;
		}
	return -1;
}

/* Control re-entered frame @j's function at @to (@sym): the frames above
 * it are gone. */
static void cut_to(struct cs_thread *t, size_t j, uint64_t to, const char *sym,
		   uint64_t symoff, bool ambiguous)
{
	const struct cs_frame *by;
	unsigned kind = exit_kind(&t->cur, j, &by);

	note_exit(
	    t, t->pend == CS_PEND_SIGRETURN ? QPT_CRASH_EXIT_SIGRETURN : kind,
	    by, to, sym, symoff, t->cur.depth - j, ambiguous, false);
	cut(&t->cur, j);
}

/* ---- switches between stacks ---- */

/* The parked stack whose top call returns to @to, or -1. */
static long parked_at(const struct cs_thread *t, uint64_t to)
{
	size_t i;

	for (i = t->nr_parked; i-- > 0;) {
		const struct cs_stack *s = &t->parked[i];

		if (s->depth && s->f[s->depth - 1].ret == to)
			return (long)i;
	}
	return -1;
}

static void stack_free(struct cs_stack *s)
{
	free(s->f);
	memset(s, 0, sizeof(*s));
}

/* Park the current stack (the oldest parked one goes when all are
 * taken); the current one is then empty. */
static void park(struct cs_thread *t)
{
	if (t->nr_parked == CS_PARKED) {
		stack_free(&t->parked[0]);
		memmove(&t->parked[0], &t->parked[1],
			(CS_PARKED - 1) * sizeof(t->parked[0]));
		t->nr_parked--;
	}
	t->parked[t->nr_parked++] = t->cur;
	memset(&t->cur, 0, sizeof(t->cur));
}

/* A return to @to resumes parked stack @i: the current one is parked in
 * its place, and the return pops its top. */
static void unpark(struct cs_thread *t, size_t i, uint64_t to, const char *sym,
		   uint64_t symoff)
{
	struct cs_stack s = t->parked[i];
	struct cs_frame by;
	bool have_by = false;

	/* the switch began at the call of swapcontext... of the stack left */
	if (t->cur.depth && is_context(t->cur.f[t->cur.depth - 1].callee)) {
		by = t->cur.f[t->cur.depth - 1];
		have_by = true;
	}
	memmove(&t->parked[i], &t->parked[i + 1],
		(t->nr_parked - i - 1) * sizeof(t->parked[0]));
	t->nr_parked--;
	park(t);
	t->cur = s;
	note_exit(t, QPT_CRASH_EXIT_CONTEXT, have_by ? &by : NULL, to, sym,
		  symoff, 0, false, false);
	cut(&t->cur, t->cur.depth - 1);
}

/* A return to @to that no frame of the window leads to: into another
 * stack (the current one is parked), or, while an exception or a longjmp
 * unwinds, into a frame older than the window (the current one is
 * gone). */
static void switch_to(struct cs_thread *t, uint64_t to, const char *sym,
		      uint64_t symoff)
{
	const struct cs_frame *by;
	unsigned kind = exit_kind(&t->cur, 0, &by);

	if (kind == QPT_CRASH_EXIT_EXCEPTION ||
	    kind == QPT_CRASH_EXIT_LONGJMP) {
		note_exit(t, kind, by, to, sym, symoff, t->cur.depth, false,
			  true);
		cut(&t->cur, 0);
		below(&t->cur);
		return;
	}
	note_exit(t, QPT_CRASH_EXIT_CONTEXT, by, to, sym, symoff, 0, false,
		  true);
	park(t);
	t->cur.switched = true;
	t->cur.sw_from = by ? by->site : t->pend_from;
	t->cur.sw_sym = by ? by->sym : t->pend_sym;
	t->cur.sw_symoff = by ? by->symoff : t->pend_symoff;
	t->cur.base_next = true;
}

/* ---- transfers ---- */

int cs_ret(struct cs_thread *t, uint64_t ip, const char *sym, uint64_t symoff,
	   uint64_t to)
{
	struct cs_stack *s = &t->cur;
	const struct cs_frame *top;
	long i;

	if (!s->depth) {
		i = parked_at(t, to);
		if (i >= 0) {
			t->pend_from = ip;
			t->pend_sym = sym;
			t->pend_symoff = symoff;
			unpark(t, (size_t)i, to, NULL, 0);
			return 0;
		}
		below(s);
		return 0;
	}
	top = &s->f[s->depth - 1];
	if (top->signal || top->ret == to) {
		if (top->signal) {
			s->sig_popped = *top;
			s->have_sig_popped = true;
		}
		cut(s, s->depth - 1);
		return 0;
	}
	t->pend = CS_PEND_RET;
	t->pend_from = ip;
	t->pend_to = to;
	t->pend_sym = sym;
	t->pend_symoff = symoff;
	return 0;
}

void cs_jump(struct cs_thread *t, uint64_t ip, const char *sym, uint64_t symoff,
	     uint64_t to)
{
	t->pend = CS_PEND_JUMP;
	t->pend_from = ip;
	t->pend_to = to;
	t->pend_sym = sym;
	t->pend_symoff = symoff;
}

/* A signal handler entered where the trace stopped at @at (it resumes
 * there). */
static int signal_frame(struct cs_thread *t, uint64_t at, const char *sym,
			uint64_t symoff)
{
	return enter(t, at, sym, symoff, at, NULL, true);
}

int cs_resume(struct cs_thread *t, uint64_t to, unsigned via, uint64_t end_ip,
	      const char *end_sym, uint64_t end_symoff, bool sigreturn,
	      bool exec)
{
	struct cs_stack *s = &t->cur;
	size_t i;

	for (i = s->depth; i-- > 0;)
		if (s->f[i].signal && s->f[i].site == to) {
			cut(s, i);
			return 0;
		}
	if (via == QPT_BR_ASYNC)
		return to == end_ip
			   ? 0
			   : signal_frame(t, end_ip, end_sym, end_symoff);
	/* a system call: it returns after itself (2 bytes: syscall,
	 * sysenter, int 0x80) unless a signal was delivered, it was
	 * rt_sigreturn or an execve */
	if (via != QPT_BR_SYSCALL || to == end_ip + 2)
		return 0;
	if (exec) { /* a new program: a new stack */
		for (i = 0; i < t->nr_parked; i++)
			stack_free(&t->parked[i]);
		t->nr_parked = 0;
		stack_free(s);
		s->base_next = true;
		return 0;
	}
	if (!sigreturn)
		return signal_frame(t, end_ip + 2, end_sym, end_symoff + 2);
	if (!s->have_sig_popped)
		return 0;
	/* back into the interrupted function, at another place */
	t->pend = CS_PEND_SIGRETURN;
	t->pend_from = s->sig_popped.site;
	t->pend_sym = s->sig_popped.sym;
	t->pend_symoff = s->sig_popped.symoff;
	t->pend_to = to;
	return 0;
}

/* A pending return settled at @to (@sym): a return skipping frames, into
 * a parked stack, a cut back to a frame of its function, or a switch. */
static void settle_ret(struct cs_thread *t, uint64_t to, const char *sym,
		       uint64_t symoff)
{
	struct cs_stack *s = &t->cur;
	bool more;
	long j;
	size_t i;

	/* the frames below the top (none: the stack went since the return
	 * was met, an exec, say) */
	for (i = s->depth ? s->depth - 1 : 0; i-- > 0;)
		if (!s->f[i].signal && s->f[i].ret == to) {
			cut_to(t, i, to, sym, symoff, false);
			return;
		}
	j = parked_at(t, to);
	if (j >= 0) {
		unpark(t, (size_t)j, to, sym, symoff);
		return;
	}
	j = frame_of(s, s->depth, to, sym, symoff, &more);
	if (j >= 0) {
		cut_to(t, (size_t)j, to, sym, symoff, more);
		return;
	}
	switch_to(t, to, sym, symoff);
}

/* A pending jump (or sigreturn) from the function at pend_from settled at
 * @to (@sym): within it, a tail call, a cut back to a frame of the
 * function it enters, or a jump elsewhere (nothing moves). */
static void settle_jump(struct cs_thread *t, uint64_t to, const char *sym,
			uint64_t symoff)
{
	struct cs_stack *s = &t->cur;
	bool more;
	long j;

	/* a source without a symbol is another function than a target with
	 * one */
	if (!sym || same_func(t->pend_sym, t->pend_from, t->pend_symoff, sym,
			      to, symoff)) {
		if (t->pend == CS_PEND_SIGRETURN)
			note_exit(t, QPT_CRASH_EXIT_SIGRETURN, NULL, to, sym,
				  symoff, 0, false, false);
		return;
	}
	if (!symoff && t->pend == CS_PEND_JUMP) {
		if (transparent(t->pend_sym))
			return;
		s->tail.on = true;
		s->tail.from = t->pend_from;
		s->tail.sym = t->pend_sym;
		s->tail.symoff = t->pend_symoff;
		return;
	}
	j = frame_of(s, s->depth, to, sym, symoff, &more);
	if (j >= 0)
		cut_to(t, (size_t)j, to, sym, symoff, more);
	else if (t->pend == CS_PEND_SIGRETURN)
		note_exit(t, QPT_CRASH_EXIT_SIGRETURN, NULL, to, sym, symoff, 0,
			  false, false);
}

void cs_settle(struct cs_thread *t, uint64_t ip, const char *sym,
	       uint64_t symoff)
{
	if (t->pend == CS_PEND_RET && ip != t->pend_to)
		cut(&t->cur, t->cur.depth - 1); /* went elsewhere: a return */
	else if (t->pend == CS_PEND_RET)
		settle_ret(t, ip, sym, symoff);
	else if (t->pend != CS_PEND_NONE && ip == t->pend_to)
		settle_jump(t, ip, sym, symoff);
	t->pend = CS_PEND_NONE;
}

void cs_insn(struct cs_thread *t, uint64_t ip, const char *sym, uint64_t symoff)
{
	if (t->pend != CS_PEND_NONE)
		cs_settle(t, ip, sym, symoff);
	if (t->cur.base_next) {
		t->cur.base_ip = ip;
		t->cur.base_sym = sym;
		t->cur.base_symoff = symoff;
		t->cur.base_next = false;
	}
}

void cs_release(struct cs_thread *t)
{
	size_t i;

	stack_free(&t->cur);
	for (i = 0; i < t->nr_parked; i++)
		stack_free(&t->parked[i]);
	t->nr_parked = 0;
}
