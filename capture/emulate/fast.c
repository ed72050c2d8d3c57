// SPDX-License-Identifier: MIT
/*
 * Blocks and breakpoints of one address space (emulate/fast.h).
 *
 * Per code page: which bytes start an instruction of a block and which lie
 * inside one, where breakpoints are planted and the bytes they replaced.
 * A byte that is both (code that overlaps itself) marks the page mixed:
 * its breakpoints are taken out and its code is single-stepped, so that no
 * instruction ever runs with a breakpoint inside it.
 */
#include "capture/emulate/fast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FPAGE 4096u
#define FWORDS (FPAGE / 64)
#define BLOCK_MAX 256 /* instructions in a block */
#define INT3 0xccu

struct fpage {
	uint64_t addr;
	bool mixed;
	uint32_t nr_bp;
	uint64_t bp[FWORDS];
	uint64_t start[FWORDS], inner[FWORDS];
	uint8_t orig[FPAGE];
};

struct emu_fast {
	unsigned int refs;
	struct fpage **pages; /* open addressing by page address */
	size_t page_cap, nr_pages;
	struct emu_block **blocks; /* chained by entry */
	size_t block_cap, nr_blocks;
	unsigned long forgets; /* times every block went */
};

static bool bit(const uint64_t *m, unsigned i)
{
	return m[i / 64] >> (i % 64) & 1;
}

static void set_bit(uint64_t *m, unsigned i)
{
	m[i / 64] |= 1ull << (i % 64);
}

static void clear_bit(uint64_t *m, unsigned i)
{
	m[i / 64] &= ~(1ull << (i % 64));
}

static size_t hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	return (size_t)(a ^ (a >> 29));
}

struct emu_fast *emu_fast_new(void)
{
	struct emu_fast *f = calloc(1, sizeof(*f));

	if (f)
		f->refs = 1;
	return f;
}

struct emu_fast *emu_fast_get(struct emu_fast *f)
{
	f->refs++;
	return f;
}

void emu_block_put(struct emu_block *b)
{
	if (b && !--b->refs) {
		free(b->plan);
		free(b);
	}
}

void emu_fast_forget_blocks(struct emu_fast *f)
{
	struct emu_block *b, *next;
	size_t i;

	for (i = 0; i < f->block_cap; i++) {
		for (b = f->blocks[i]; b; b = next) {
			next = b->next;
			emu_block_put(b);
		}
		f->blocks[i] = NULL;
	}
	f->nr_blocks = 0;
	f->forgets++;
}

void emu_fast_put(struct emu_fast *f)
{
	size_t i;

	if (!f || --f->refs)
		return;
	emu_fast_forget_blocks(f);
	free(f->blocks);
	for (i = 0; i < f->page_cap; i++)
		free(f->pages[i]);
	free(f->pages);
	free(f);
}

/* ---- pages ---- */

static struct fpage *page_find(const struct emu_fast *f, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(FPAGE - 1);
	size_t i, mask = f->page_cap - 1;

	if (!f->page_cap)
		return NULL;
	for (i = hash(page) & mask; f->pages[i]; i = (i + 1) & mask)
		if (f->pages[i]->addr == page)
			return f->pages[i];
	return NULL;
}

static void page_insert(struct emu_fast *f, struct fpage *p)
{
	size_t i, mask = f->page_cap - 1;

	for (i = hash(p->addr) & mask; f->pages[i]; i = (i + 1) & mask)
		;
	f->pages[i] = p;
}

static int pages_grow(struct emu_fast *f)
{
	struct fpage **old = f->pages;
	size_t i, cap = f->page_cap;

	f->pages = calloc(cap ? 2 * cap : 64, sizeof(*f->pages));
	if (!f->pages) {
		f->pages = old;
		return -ENOMEM;
	}
	f->page_cap = cap ? 2 * cap : 64;
	for (i = 0; i < cap; i++)
		if (old[i])
			page_insert(f, old[i]);
	free(old);
	return 0;
}

static struct fpage *page_get(struct emu_fast *f, uint64_t addr)
{
	struct fpage *p = page_find(f, addr);

	if (p)
		return p;
	if (2 * (f->nr_pages + 1) > f->page_cap && pages_grow(f))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->addr = addr & ~(uint64_t)(FPAGE - 1);
	page_insert(f, p);
	f->nr_pages++;
	return p;
}

/* ---- breakpoints ---- */

/* The byte at @addr in the tracee, and the aligned word around it. */
static int read_byte(const struct emu_code *c, uint64_t addr, uint64_t *word,
		     uint8_t *byte)
{
	int err = c->peek(c->ctx, addr & ~7ull, word);

	if (!err)
		*byte = (uint8_t)(*word >> (addr & 7) * 8);
	return err;
}

static int write_byte(const struct emu_code *c, uint64_t addr, uint64_t word,
		      uint8_t byte)
{
	unsigned sh = (unsigned)(addr & 7) * 8;

	word = (word & ~(0xffull << sh)) | (uint64_t)byte << sh;
	return c->poke(c->ctx, addr & ~7ull, word);
}

bool emu_fast_planted(const struct emu_fast *f, uint64_t addr)
{
	const struct fpage *p = page_find(f, addr);

	return p && bit(p->bp, (unsigned)(addr & (FPAGE - 1)));
}

int emu_fast_plant(struct emu_fast *f, const struct emu_code *c, uint64_t addr)
{
	struct fpage *p = page_get(f, addr);
	unsigned off = (unsigned)(addr & (FPAGE - 1));
	uint64_t word;
	uint8_t byte;
	int err;

	if (!p)
		return -ENOMEM;
	if (p->mixed || bit(p->inner, off))
		return -EAGAIN;
	if (bit(p->bp, off))
		return 0;
	err = read_byte(c, addr, &word, &byte);
	if (!err && byte == INT3)
		return -EAGAIN; /* the program's own */
	if (!err)
		err = write_byte(c, addr, word, INT3);
	if (err)
		return err;
	p->orig[off] = byte;
	set_bit(p->bp, off);
	p->nr_bp++;
	return 0;
}

/* Put the byte back at @addr of @p, where the memory still holds ours. */
static int unplant(struct fpage *p, const struct emu_code *c, unsigned off)
{
	uint64_t addr = p->addr + off, word;
	uint8_t byte;
	int err;

	clear_bit(p->bp, off);
	p->nr_bp--;
	err = read_byte(c, addr, &word, &byte);
	if (err || byte != INT3)
		return 0; /* unmapped or replaced: nothing of ours left */
	return write_byte(c, addr, word, p->orig[off]);
}

int emu_fast_lift(struct emu_fast *f, const struct emu_code *c, uint64_t addr)
{
	struct fpage *p = page_find(f, addr);
	unsigned off = (unsigned)(addr & (FPAGE - 1));

	if (!p || !bit(p->bp, off))
		return 0;
	return unplant(p, c, off);
}

void emu_fast_patch(const struct emu_fast *f, uint64_t page, uint8_t *buf)
{
	const struct fpage *p = page_find(f, page);
	unsigned w, off;
	uint64_t m;

	if (!p || !p->nr_bp)
		return;
	for (w = 0; w < FWORDS; w++)
		for (m = p->bp[w]; m; m &= m - 1) {
			off = w * 64 + (unsigned)__builtin_ctzll(m);
			buf[off] = p->orig[off];
		}
}

/* Every breakpoint of @p taken out. */
static int unplant_all(struct fpage *p, const struct emu_code *c)
{
	unsigned w, off;
	int err;

	for (w = 0; w < FWORDS; w++)
		while (p->bp[w]) {
			off = w * 64 + (unsigned)__builtin_ctzll(p->bp[w]);
			err = unplant(p, c, off);
			if (err)
				return err;
		}
	return 0;
}

int emu_fast_remap(struct emu_fast *f, const struct emu_code *c)
{
	struct fpage *p;
	uint64_t word;
	uint8_t byte;
	unsigned w, off;
	size_t i;
	int err;

	emu_fast_forget_blocks(f);
	for (i = 0; i < f->page_cap; i++) {
		p = f->pages[i];
		if (!p)
			continue;
		for (w = 0; w < FWORDS; w++) {
			uint64_t m = p->bp[w];

			for (; m; m &= m - 1) {
				off = w * 64 + (unsigned)__builtin_ctzll(m);
				if (!c->fixed(c->ctx, p->addr + off, 1)) {
					err = unplant(p, c, off);
					if (err)
						return err;
				} else if (read_byte(c, p->addr + off, &word,
						     &byte) ||
					   byte != INT3) {
					clear_bit(p->bp, off); /* replaced */
					p->nr_bp--;
				}
			}
		}
		/* the code may differ from now on: blocks mark it anew */
		memset(p->start, 0, sizeof(p->start));
		memset(p->inner, 0, sizeof(p->inner));
		p->mixed = false;
	}
	return 0;
}

/* The breakpoints of @f that @child's memory holds, to @out (or taken out
 * of it when @out is NULL). */
static int each_inherited(const struct emu_fast *f,
			  const struct emu_code *child, struct emu_fast *out)
{
	const struct fpage *p;
	struct fpage *q;
	uint64_t word;
	uint8_t byte;
	unsigned w, off;
	size_t i;
	int err;

	for (i = 0; i < f->page_cap; i++) {
		p = f->pages[i];
		if (!p || !p->nr_bp)
			continue;
		q = out ? page_get(out, p->addr) : NULL;
		if (out && !q)
			return -ENOMEM;
		for (w = 0; w < FWORDS; w++) {
			uint64_t m = p->bp[w];

			for (; m; m &= m - 1) {
				off = w * 64 + (unsigned)__builtin_ctzll(m);
				if (read_byte(child, p->addr + off, &word,
					      &byte) ||
				    byte != INT3)
					continue;
				if (!q) {
					err = write_byte(child, p->addr + off,
							 word, p->orig[off]);
					if (err)
						return err;
					continue;
				}
				set_bit(q->bp, off);
				q->orig[off] = p->orig[off];
				q->nr_bp++;
			}
		}
	}
	return 0;
}

struct emu_fast *emu_fast_fork(const struct emu_fast *f,
			       const struct emu_code *child)
{
	struct emu_fast *n = emu_fast_new();

	if (n && each_inherited(f, child, n)) {
		emu_fast_put(n);
		return NULL;
	}
	return n;
}

int emu_fast_strip(const struct emu_fast *f, const struct emu_code *child)
{
	return each_inherited(f, child, NULL);
}

/* ---- blocks ---- */

/* Code overlaps itself in @p: no breakpoint there, ever (until the code
 * changes), and no block that runs over it natively. */
static int mix(struct emu_fast *f, struct fpage *p, const struct emu_code *c)
{
	p->mixed = true;
	emu_fast_forget_blocks(f);
	return unplant_all(p, c);
}

/*
 * The bytes of the instruction at [@ip, @ip + @len) marked as a block's:
 * 1, or 0 where they overlap another instruction or a breakpoint (then its
 * page is mixed), or an error.
 */
static int mark(struct emu_fast *f, const struct emu_code *c, uint64_t ip,
		unsigned len)
{
	struct fpage *p;
	uint64_t a;
	unsigned off;

	for (a = ip; a < ip + len; a++) {
		p = page_get(f, a);
		if (!p)
			return -ENOMEM;
		off = (unsigned)(a & (FPAGE - 1));
		if (p->mixed)
			return 0;
		if (a == ip ? bit(p->inner, off)
			    : bit(p->start, off) || bit(p->bp, off)) {
			int err = mix(f, p, c);

			return err ? err : 0;
		}
		set_bit(a == ip ? p->start : p->inner, off);
	}
	return 1;
}

/* What ends a block at @in: EMU_END_*, or -1 for an instruction a block
 * runs through (straight-line, direct jump, direct call). */
static int end_of(const struct emu_insn *in)
{
	switch (in->x.cls) {
	case QX86_NONE:
	case QX86_JMP:
	case QX86_CALL:
		return -1;
	case QX86_JCC:
	case QX86_JMP_IND:
	case QX86_CALL_IND:
	case QX86_RET:
		return EMU_END_BRANCH;
	case QX86_SYSCALL:
		return EMU_END_SYSCALL;
	default: /* LOOP (it writes RCX), far transfers, int n */
		return EMU_END_STEP;
	}
}

static bool in_path(const struct emu_block_insn *path, uint32_t n, uint64_t ip)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (path[i].ip == ip)
			return true;
	return false;
}

struct build {
	struct emu_block_insn path[BLOCK_MAX];
	uint32_t n;
	int end;
	struct emu_insn last;
};

/*
 * Where the path must end at its @n-th instruction, which would go to
 * @next: at a cycle, a full path or a stop address, on the last direct
 * jump or call (which the engine emulates); 1 when it ends so, 0 when it
 * goes on, -1 when it cannot end well (no jump to end on).
 */
static int must_end(struct build *b, const struct emu_code *c, uint64_t next)
{
	int32_t i;

	if (b->n < BLOCK_MAX && !in_path(b->path, b->n, next) &&
	    !(c->stop_at && c->stop_at(c->ctx, next)))
		return 0;
	for (i = (int32_t)b->n - 1; i >= 0; i--)
		if (b->path[i].cls == EMU_INSN_JMP ||
		    b->path[i].cls == EMU_INSN_CALL)
			break;
	if (i < 0)
		return -1;
	b->n = (uint32_t)i + 1;
	b->end = EMU_END_BRANCH;
	return 1;
}

static int walk(struct emu_fast *f, const struct emu_code *c, uint64_t entry,
		struct build *b)
{
	struct emu_insn in;
	uint64_t ip = entry, next;
	int err, r;

	b->end = EMU_END_STEP;
	for (b->n = 0;; ip = next) {
		err = c->insn(c->ctx, ip, &in);
		if (err)
			return err;
		if (!in.x.len || !c->fixed(c->ctx, ip, in.x.len))
			break;
		r = mark(f, c, ip, in.x.len);
		if (r < 0)
			return r;
		if (!r)
			break; /* overlapping code: stepped */
		b->path[b->n].ip = ip;
		b->path[b->n].cls = in.cls;
		b->path[b->n].len = in.x.len;
		b->n++;
		r = end_of(&in);
		if (r >= 0) {
			b->end = r;
			break;
		}
		next = in.cls == EMU_INSN_OTHER ? ip + in.x.len : in.x.target;
		r = must_end(b, c, next);
		if (r < 0)
			break;
		if (r > 0)
			return c->insn(c->ctx, b->path[b->n - 1].ip, &b->last);
	}
	if (b->end == EMU_END_STEP)
		b->n = 0;
	else
		b->last = in;
	return 0;
}

static int blocks_grow(struct emu_fast *f)
{
	struct emu_block **old = f->blocks, *b, *next;
	size_t i, cap = f->block_cap, ncap = cap ? 2 * cap : 1024, h;

	f->blocks = calloc(ncap, sizeof(*f->blocks));
	if (!f->blocks) {
		f->blocks = old;
		return -ENOMEM;
	}
	f->block_cap = ncap;
	for (i = 0; i < cap; i++)
		for (b = old[i]; b; b = next) {
			next = b->next;
			h = hash(b->entry) & (ncap - 1);
			b->next = f->blocks[h];
			f->blocks[h] = b;
		}
	free(old);
	return 0;
}

int emu_fast_block(struct emu_fast *f, const struct emu_code *c, uint64_t entry,
		   struct emu_block **out)
{
	struct emu_block *b;
	struct build *bd;
	size_t h;
	int err;

	if (f->block_cap) {
		for (b = f->blocks[hash(entry) & (f->block_cap - 1)]; b;
		     b = b->next)
			if (b->entry == entry) {
				b->refs++;
				*out = b;
				return 0;
			}
	}
	if (f->nr_blocks >= f->block_cap && blocks_grow(f))
		return -ENOMEM;
	bd = malloc(sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	err = walk(f, c, entry, bd);
	b = err ? NULL : malloc(sizeof(*b) + bd->n * sizeof(b->insn[0]));
	if (!b) {
		free(bd);
		return err ? err : -ENOMEM;
	}
	b->entry = entry;
	b->refs = 2; /* the cache's and the caller's */
	b->plan = NULL;
	b->loop_tried = 0;
	b->ways = EMU_WAYS_UNKNOWN;
	b->n = bd->n;
	b->end = (uint8_t)bd->end;
	b->last = bd->last;
	memcpy(b->insn, bd->path, bd->n * sizeof(b->insn[0]));
	free(bd);
	h = hash(entry) & (f->block_cap - 1);
	b->next = f->blocks[h];
	f->blocks[h] = b;
	f->nr_blocks++;
	*out = b;
	return 0;
}

/* ---- conditional jumps that run natively ---- */

/* Whether @b ends where a breakpoint or the kernel stops the thread: a
 * branch of its own or a system call (not a direct jump or call a long
 * path was cut at, which other paths run over). */
static bool stops_itself(const struct emu_block *b)
{
	if (!b->n || b->end == EMU_END_STEP)
		return false;
	return b->end == EMU_END_SYSCALL ||
	       (b->last.x.cls != QX86_JMP && b->last.x.cls != QX86_CALL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Whether no instruction lies on two of the paths @p[0..2]. */
static bool apart(struct emu_block *const p[3])
{
	uint64_t ip[3 * BLOCK_MAX];
	size_t n = 0, i;
	uint32_t k;

	for (i = 0; i < 3; i++)
		for (k = 0; k < p[i]->n; k++)
			ip[n++] = p[i]->insn[k].ip;
	qsort(ip, n, sizeof(ip[0]), cmp_u64);
	for (i = 1; i < n; i++)
		if (ip[i] == ip[i - 1])
			return false;
	return true;
}

int emu_fast_ways(struct emu_fast *f, const struct emu_code *c,
		  struct emu_block *b, struct emu_block *way[2])
{
	struct emu_block *p[3] = {b, NULL, NULL};
	unsigned long forgets = f->forgets;
	const struct emu_block_insn *end;
	uint64_t to[2];
	int i, err = 0;

	if (b->ways == EMU_WAYS_NOT)
		return 0;
	if (!b->n || b->end != EMU_END_BRANCH || b->last.x.cls != QX86_JCC ||
	    b->last.cls != EMU_INSN_JCC)
		goto no;
	end = &b->insn[b->n - 1];
	to[0] = end->ip + end->len;
	to[1] = b->last.x.target;
	for (i = 0; i < 2; i++) {
		if (c->stop_at && c->stop_at(c->ctx, to[i]))
			goto no;
		err = emu_fast_block(f, c, to[i], &p[i + 1]);
		if (err)
			goto out;
		if (!stops_itself(p[i + 1]))
			goto no;
	}
	/* code found overlapping itself while the ways were built: @b and
	 * the ways may run over pages no breakpoint may go into */
	if (f->forgets != forgets)
		goto out;
	if (b->ways == EMU_WAYS_UNKNOWN && !apart(p))
		goto no;
	b->ways = EMU_WAYS_TOLD;
	way[0] = p[1];
	way[1] = p[2];
	return 1;
no:
	b->ways = EMU_WAYS_NOT;
out:
	emu_block_put(p[1]);
	emu_block_put(p[2]);
	return err;
}
