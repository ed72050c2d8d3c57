// SPDX-License-Identifier: MIT
/*
 * The breakpoint engine's blocks and breakpoints (capture/emulate/fast.c)
 * over a fake address space: code bytes written here by hand (their
 * meaning in the comments, the Intel manual's encodings), memory that
 * breakpoints are written into, mappings that are fixed or not.  Each case
 * checks the block's path and end, and the memory's bytes, against what
 * the bytes say.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "capture/emulate/fast.h"
#include "capture/emulate/insn.h"

#define BASE 0x10000ull
#define SIZE 0x3000u

struct space {
	uint8_t mem[SIZE];	  /* the memory, breakpoints and all */
	uint64_t fixed_end;	  /* [BASE, fixed_end) is fixed code */
	uint64_t stop;		  /* a stop address, or 0 */
	const struct emu_fast *f; /* for reads as the program wrote it */
	struct qx86 *x;
	int pokes;
};

static int sp_insn(void *ctx, uint64_t ip, struct emu_insn *out)
{
	struct space *s = ctx;
	uint8_t page[4096], buf[15];
	uint64_t pg = ip & ~4095ull;
	struct qx86_insn x;
	size_t n;

	if (ip < BASE || ip >= BASE + SIZE) {
		emu_insn_classify(NULL, out);
		return 0;
	}
	/* the code as the program wrote it: breakpoints patched back */
	memcpy(page, s->mem + (pg - BASE), sizeof(page));
	emu_fast_patch(s->f, pg, page);
	n = 4096 - (size_t)(ip - pg);
	n = n < sizeof(buf) ? n : sizeof(buf);
	memcpy(buf, page + (ip - pg), n);
	emu_insn_classify(qx86_decode(s->x, buf, n, 64, ip, &x) > 0 ? &x : NULL,
			  out);
	return 0;
}

static bool sp_fixed(void *ctx, uint64_t ip, size_t len)
{
	struct space *s = ctx;

	return ip >= BASE && ip + len <= s->fixed_end;
}

static bool sp_stop_at(void *ctx, uint64_t ip)
{
	struct space *s = ctx;

	return s->stop && ip == s->stop;
}

static int sp_peek(void *ctx, uint64_t addr, uint64_t *val)
{
	struct space *s = ctx;

	if (addr < BASE || addr + 8 > BASE + SIZE)
		return -EIO;
	memcpy(val, s->mem + (addr - BASE), 8);
	return 0;
}

static int sp_poke(void *ctx, uint64_t addr, uint64_t val)
{
	struct space *s = ctx;

	if (addr < BASE || addr + 8 > BASE + SIZE)
		return -EIO;
	memcpy(s->mem + (addr - BASE), &val, 8);
	s->pokes++;
	return 0;
}

struct fx {
	struct space s;
	struct emu_code c;
	struct emu_fast *f;
};

static int setup(void **state)
{
	struct fx *fx = test_calloc(1, sizeof(*fx));

	memset(fx->s.mem, 0x90, sizeof(fx->s.mem)); /* nop */
	fx->s.fixed_end = BASE + SIZE;
	fx->s.x = qx86_new();
	fx->f = emu_fast_new();
	fx->s.f = fx->f;
	fx->c = (struct emu_code){sp_insn, sp_fixed, sp_stop_at,
				  sp_peek, sp_poke,  &fx->s};
	assert_non_null(fx->s.x);
	assert_non_null(fx->f);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	emu_fast_put(fx->f);
	qx86_free(fx->s.x);
	test_free(fx);
	return 0;
}

static void put(struct fx *fx, uint64_t at, const uint8_t *b, size_t n)
{
	memcpy(fx->s.mem + (at - BASE), b, n);
}

static uint8_t byte_at(const struct fx *fx, uint64_t at)
{
	return fx->s.mem[at - BASE];
}

static struct emu_block *block(struct fx *fx, uint64_t entry)
{
	struct emu_block *b = NULL;

	assert_int_equal(emu_fast_block(fx->f, &fx->c, entry, &b), 0);
	assert_non_null(b);
	return b;
}

/* Straight-line code to a conditional jump: the path and its end. */
static void test_straight_to_jcc(void **state)
{
	struct fx *fx = *state;
	static const uint8_t jz[] = {0x74, 0x10}; /* jz +0x10 */
	struct emu_block *b, *again;

	put(fx, BASE + 3, jz, sizeof(jz));
	b = block(fx, BASE);
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->n, 4);
	assert_int_equal(b->insn[3].ip, BASE + 3);
	assert_int_equal(b->insn[3].cls, EMU_INSN_JCC);
	assert_int_equal(b->last.x.target, BASE + 5 + 0x10);
	again = block(fx, BASE); /* cached */
	assert_ptr_equal(again, b);
	emu_block_put(again);
	emu_block_put(b);
}

/* Direct jumps and calls are run through; a return ends the path. */
static void test_through_jmp_and_call(void **state)
{
	struct fx *fx = *state;
	static const uint8_t jmp[] = {0xeb, 0x0e}; /* jmp +0xe */
	static const uint8_t call[] = {0xe8, 0xfb, 0x0f, 0,
				       0}; /* call +0xffb */
	static const uint8_t ret[] = {0xc3};
	struct emu_block *b;

	put(fx, BASE, jmp, sizeof(jmp));	  /* -> BASE + 0x10 */
	put(fx, BASE + 0x10, call, sizeof(call)); /* -> BASE + 0x1010 */
	put(fx, BASE + 0x1011, ret, sizeof(ret));
	b = block(fx, BASE);
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->n, 4);
	assert_int_equal(b->insn[0].cls, EMU_INSN_JMP);
	assert_int_equal(b->insn[1].ip, BASE + 0x10);
	assert_int_equal(b->insn[1].cls, EMU_INSN_CALL);
	assert_int_equal(b->insn[2].ip, BASE + 0x1010);
	assert_int_equal(b->insn[3].ip, BASE + 0x1011);
	assert_int_equal(b->last.cls, EMU_INSN_RET);
	emu_block_put(b);
}

/* A system call ends a path at its entry; LOOP, far transfers and code
 * that is not fixed are stepped. */
static void test_syscall_and_step(void **state)
{
	struct fx *fx = *state;
	static const uint8_t sys[] = {0x0f, 0x05};  /* syscall */
	static const uint8_t loop[] = {0xe2, 0xfe}; /* loop . */
	struct emu_block *b;

	put(fx, BASE + 1, sys, sizeof(sys));
	b = block(fx, BASE);
	assert_int_equal(b->end, EMU_END_SYSCALL);
	assert_int_equal(b->n, 2);
	emu_block_put(b);
	put(fx, BASE + 0x101, loop, sizeof(loop));
	b = block(fx, BASE + 0x100);
	assert_int_equal(b->end, EMU_END_STEP);
	assert_int_equal(b->n, 0);
	emu_block_put(b);
	fx->s.fixed_end = BASE + 0x1000; /* the second page may change */
	b = block(fx, BASE + 0xffe);	 /* runs into it */
	assert_int_equal(b->end, EMU_END_STEP);
	emu_block_put(b);
}

/* A path that comes back to itself, or grows past a block's length, ends
 * on its last direct jump; one that would reach a stop address ends on
 * the call that goes there. */
static void test_cut_paths(void **state)
{
	struct fx *fx = *state;
	static const uint8_t back[] = {0xeb, 0xfc};		/* jmp -4 */
	static const uint8_t fwd[] = {0xeb, 0x00};		/* jmp +0 */
	static const uint8_t call[] = {0xe8, 0x00, 0x01, 0, 0}; /* +0x100 */
	struct emu_block *b;

	put(fx, BASE + 2, back, sizeof(back)); /* to BASE */
	b = block(fx, BASE);
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->n, 3);
	assert_int_equal(b->last.cls, EMU_INSN_JMP);
	emu_block_put(b);
	put(fx, BASE + 0x400 + 100, fwd, sizeof(fwd)); /* nops around */
	b = block(fx, BASE + 0x400);
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->n, 101);
	assert_int_equal(b->insn[100].ip, BASE + 0x400 + 100);
	emu_block_put(b);
	put(fx, BASE + 0x2000, call, sizeof(call));
	fx->s.stop = BASE + 0x2105;
	b = block(fx, BASE + 0x1ff0);
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->insn[b->n - 1].ip, BASE + 0x2000);
	assert_int_equal(b->last.cls, EMU_INSN_CALL);
	emu_block_put(b);
}

/* Whether the conditional jump ending the block at @entry can run with no
 * breakpoint (emu_fast_ways); when it can, its ways start at @way0 (not
 * taken) and @way1. */
static void check_ways(struct fx *fx, uint64_t entry, bool told, uint64_t way0,
		       uint64_t way1)
{
	struct emu_block *b = block(fx, entry), *way[2] = {NULL, NULL};
	int r = emu_fast_ways(fx->f, &fx->c, b, way);

	assert_int_equal(r, told);
	assert_int_equal(b->ways, told ? EMU_WAYS_TOLD : EMU_WAYS_NOT);
	if (told) {
		assert_int_equal(way[0]->entry, way0);
		assert_int_equal(way[1]->entry, way1);
		emu_block_put(way[0]);
		emu_block_put(way[1]);
	}
	/* the finding is kept: asked again, the same answer */
	way[0] = way[1] = NULL;
	assert_int_equal(emu_fast_ways(fx->f, &fx->c, b, way), r);
	emu_block_put(way[0]);
	emu_block_put(way[1]);
	emu_block_put(b);
}

/*
 * A conditional jump needs no breakpoint where its ways end in stops of
 * their own (a return, a system call) on paths apart from each other and
 * from the block; not where they meet, where one comes back to the jump,
 * where one ends on a direct jump a path was cut at, or where one starts
 * at a stop address.
 */
static void test_ways(void **state)
{
	struct fx *fx = *state;
	static const uint8_t jz[] = {0x74, 0x10};   /* jz +0x10 */
	static const uint8_t back[] = {0x74, 0xfb}; /* jz -5: the entry */
	static const uint8_t ret[] = {0xc3};
	static const uint8_t sys[] = {0x0f, 0x05};  /* syscall */
	static const uint8_t spin[] = {0xeb, 0xfe}; /* jmp . */
	uint64_t a;

	/* both ways return: the not-taken one at +8, the taken at +0x16 */
	a = BASE;
	put(fx, a + 3, jz, sizeof(jz));
	put(fx, a + 8, ret, sizeof(ret));
	put(fx, a + 0x16, ret, sizeof(ret));
	check_ways(fx, a, true, a + 5, a + 0x15);
	/* one way ends in a system call */
	a = BASE + 0x100;
	put(fx, a + 3, jz, sizeof(jz));
	put(fx, a + 6, sys, sizeof(sys));
	put(fx, a + 0x16, ret, sizeof(ret));
	check_ways(fx, a, true, a + 5, a + 0x15);
	/* the ways meet: the not-taken one runs on into the taken one */
	a = BASE + 0x200;
	put(fx, a + 3, jz, sizeof(jz));
	put(fx, a + 0x16, ret, sizeof(ret));
	check_ways(fx, a, false, 0, 0);
	/* the taken way is the block again */
	a = BASE + 0x300;
	put(fx, a + 3, back, sizeof(back));
	put(fx, a + 8, ret, sizeof(ret));
	check_ways(fx, a, false, 0, 0);
	/* the taken way spins on a direct jump (cut there) */
	a = BASE + 0x400;
	put(fx, a + 3, jz, sizeof(jz));
	put(fx, a + 8, ret, sizeof(ret));
	put(fx, a + 0x15, spin, sizeof(spin));
	check_ways(fx, a, false, 0, 0);
	/* the taken way starts at a stop address */
	a = BASE + 0x500;
	put(fx, a + 3, jz, sizeof(jz));
	put(fx, a + 8, ret, sizeof(ret));
	put(fx, a + 0x16, ret, sizeof(ret));
	fx->s.stop = a + 0x15;
	check_ways(fx, a, false, 0, 0);
	fx->s.stop = 0;
	/* a block that ends in a return has no ways */
	check_ways(fx, BASE + 5, false, 0, 0);
}

/* A breakpoint is written over the first byte and read back as the
 * program wrote it; lifted, the byte is the program's again. */
static void test_plant_patch_lift(void **state)
{
	struct fx *fx = *state;
	static const uint8_t ret[] = {0xc3};
	struct emu_block *b;
	uint8_t page[4096];

	put(fx, BASE + 5, ret, sizeof(ret));
	b = block(fx, BASE);
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 5), 0);
	assert_int_equal(byte_at(fx, BASE + 5), 0xcc);
	assert_true(emu_fast_planted(fx->f, BASE + 5));
	assert_false(emu_fast_planted(fx->f, BASE + 4));
	memcpy(page, fx->s.mem, sizeof(page));
	emu_fast_patch(fx->f, BASE, page);
	assert_int_equal(page[5], 0xc3);
	assert_int_equal(page[4], 0x90);
	/* again: nothing written */
	fx->s.pokes = 0;
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 5), 0);
	assert_int_equal(fx->s.pokes, 0);
	/* inside an instruction of a block: never */
	put(fx, BASE + 0x200, (const uint8_t[]){0xb8, 1, 2, 3, 4, 0xc3}, 6);
	emu_block_put(b);
	b = block(fx, BASE + 0x200); /* mov eax, imm32; ret */
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x202), -EAGAIN);
	assert_int_equal(emu_fast_lift(fx->f, &fx->c, BASE + 5), 0);
	assert_int_equal(byte_at(fx, BASE + 5), 0xc3);
	assert_false(emu_fast_planted(fx->f, BASE + 5));
	emu_block_put(b);
}

/* Code that overlaps itself where a breakpoint is: the breakpoint comes
 * out (no instruction may run with one inside) and the code is stepped. */
static void test_overlap(void **state)
{
	struct fx *fx = *state;
	/* at +0: mov eax, 0x00c3c3c3 (5 bytes); at +1: ret */
	static const uint8_t code[] = {0xb8, 0xc3, 0xc3, 0xc3, 0x00, 0xc3};
	struct emu_block *b;

	put(fx, BASE + 0x300, code, sizeof(code));
	b = block(fx, BASE + 0x301); /* ret */
	assert_int_equal(b->end, EMU_END_BRANCH);
	assert_int_equal(b->n, 1);
	emu_block_put(b);
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x301), 0);
	assert_int_equal(byte_at(fx, BASE + 0x301), 0xcc);
	b = block(fx, BASE + 0x300); /* the mov covers the ret */
	assert_int_equal(b->end, EMU_END_STEP);
	assert_int_equal(byte_at(fx, BASE + 0x301), 0xc3);
	assert_false(emu_fast_planted(fx->f, BASE + 0x301));
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x301), -EAGAIN);
	emu_block_put(b);
}

/* Mappings changed: breakpoints no longer in fixed code come out where
 * their memory holds them; those whose memory was replaced are forgotten
 * without a write; those in fixed code stay. */
static void test_remap(void **state)
{
	struct fx *fx = *state;
	static const uint8_t ret[] = {0xc3};

	put(fx, BASE + 0x10, ret, 1);
	put(fx, BASE + 0x1010, ret, 1);
	put(fx, BASE + 0x2010, ret, 1);
	emu_block_put(block(fx, BASE));
	emu_block_put(block(fx, BASE + 0x1000));
	emu_block_put(block(fx, BASE + 0x2000));
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x10), 0);
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x1010), 0);
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x2010), 0);
	fx->s.mem[0x2010] = 0xc3;	 /* replaced: a new mapping's code */
	fx->s.fixed_end = BASE + 0x1000; /* the rest made writable */
	fx->s.pokes = 0;
	assert_int_equal(emu_fast_remap(fx->f, &fx->c), 0);
	assert_int_equal(fx->s.pokes, 1);
	assert_true(emu_fast_planted(fx->f, BASE + 0x10));
	assert_int_equal(byte_at(fx, BASE + 0x10), 0xcc);
	assert_false(emu_fast_planted(fx->f, BASE + 0x1010));
	assert_int_equal(byte_at(fx, BASE + 0x1010), 0xc3);
	assert_false(emu_fast_planted(fx->f, BASE + 0x2010));
}

/* A fork's copy of the memory: the child's state holds the breakpoints
 * its memory holds; stripped, its memory is the program's. */
static void test_fork_and_strip(void **state)
{
	struct fx *fx = *state;
	static const uint8_t ret[] = {0xc3};
	struct space child;
	struct emu_code cc;
	struct emu_fast *cf;

	put(fx, BASE + 0x10, ret, 1);
	put(fx, BASE + 0x20, ret, 1);
	emu_block_put(block(fx, BASE));
	emu_block_put(block(fx, BASE + 0x11));
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x10), 0);
	assert_int_equal(emu_fast_plant(fx->f, &fx->c, BASE + 0x20), 0);
	child = fx->s;
	child.mem[0x20] = 0xc3; /* not in the child's copy */
	cc = fx->c;
	cc.ctx = &child;
	cf = emu_fast_fork(fx->f, &cc);
	assert_non_null(cf);
	assert_true(emu_fast_planted(cf, BASE + 0x10));
	assert_false(emu_fast_planted(cf, BASE + 0x20));
	emu_fast_put(cf);
	assert_int_equal(emu_fast_strip(fx->f, &cc), 0);
	assert_int_equal(child.mem[0x10], 0xc3);
	assert_int_equal(child.mem[0x20], 0xc3);
	assert_int_equal(byte_at(fx, BASE + 0x10), 0xcc); /* the parent's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_straight_to_jcc, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_through_jmp_and_call, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_syscall_and_step, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_cut_paths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ways, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plant_patch_lift, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_remap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fork_and_strip, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
