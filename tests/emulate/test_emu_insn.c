// SPDX-License-Identifier: MIT
/* The emulator's classification, on the x86 layer, against hand-written
 * byte tables (encodings from the Intel SDM, vol. 2; lengths as objdump
 * prints them): classes, exact lengths, targets, conditions from the
 * flags, indirect operands from the registers and memory, and where each
 * kind may go. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "capture/emulate/insn.h"

static struct qx86 *x86;

/* The instruction at the start of @p decoded by the x86 layer and
 * classified: 0, or -1 when it does not decode. */
static int classify(const uint8_t *p, size_t n, uint64_t ip,
		    struct emu_insn *insn)
{
	struct qx86_insn x;
	int len = qx86_decode(x86, p, n, 64, ip, &x);

	emu_insn_classify(len < 0 ? NULL : &x, insn);
	return len < 0 ? -1 : 0;
}

struct row {
	uint8_t bytes[15];
	uint8_t n;
	uint8_t cls;
	uint8_t len;
};

static const struct row rows[] = {
    {{0x74, 0x05}, 2, EMU_INSN_JCC, 2},			 /* je rel8 */
    {{0x0f, 0x85, 1, 2, 3, 4}, 6, EMU_INSN_JCC, 6},	 /* jne rel32 */
    {{0x2e, 0x74, 0x05}, 3, EMU_INSN_JCC, 3},		 /* cs je (hint) */
    {{0xe3, 0x10}, 2, EMU_INSN_JCC, 2},			 /* jrcxz */
    {{0x67, 0xe3, 0x10}, 3, EMU_INSN_JCC, 3},		 /* jecxz */
    {{0xe2, 0xfe}, 2, EMU_INSN_JCC, 2},			 /* loop */
    {{0xe0, 0xfe}, 2, EMU_INSN_JCC, 2},			 /* loopne */
    {{0xe8, 0, 0, 0, 0}, 5, EMU_INSN_CALL, 5},		 /* call rel32 */
    {{0xe9, 0, 0, 0, 0}, 5, EMU_INSN_JMP, 5},		 /* jmp rel32 */
    {{0xeb, 0xfe}, 2, EMU_INSN_JMP, 2},			 /* jmp rel8 */
    {{0xf2, 0xe9, 0, 0, 0, 0}, 6, EMU_INSN_JMP, 6},	 /* bnd jmp */
    {{0xff, 0xd0}, 2, EMU_INSN_CALL_IND, 2},		 /* call *%rax */
    {{0x41, 0xff, 0xd3}, 3, EMU_INSN_CALL_IND, 3},	 /* call *%r11 */
    {{0xff, 0x15, 1, 2, 3, 4}, 6, EMU_INSN_CALL_IND, 6}, /* call *x(%rip) */
    {{0xff, 0x14, 0xc5, 1, 2, 3, 4}, 7, EMU_INSN_CALL_IND, 7},
    /* call *0x4(,%rax,8) via SIB with no base */
    {{0xff, 0x54, 0x24, 0x08}, 4, EMU_INSN_CALL_IND, 4}, /* call *8(%rsp) */
    {{0xff, 0x94, 0x24, 1, 0, 0, 0}, 7, EMU_INSN_CALL_IND, 7},
    {{0xff, 0x10}, 2, EMU_INSN_CALL_IND, 2},	      /* call *(%rax) */
    {{0xf3, 0x0f, 0x1e, 0xfa}, 4, EMU_INSN_OTHER, 4}, /* endbr64 */
    {{0x3e, 0xff, 0xe0}, 3, EMU_INSN_JMP_IND, 3},     /* notrack jmp *%rax */
    {{0xff, 0x24, 0xc5, 1, 2, 3, 4}, 7, EMU_INSN_JMP_IND, 7},
    {{0xff, 0x25, 1, 2, 3, 4}, 6, EMU_INSN_JMP_IND, 6}, /* jmp *x(%rip) */
    {{0xc3}, 1, EMU_INSN_RET, 1},
    {{0xf3, 0xc3}, 2, EMU_INSN_RET, 2},		      /* repz ret */
    {{0xc2, 0x08, 0x00}, 3, EMU_INSN_RET, 3},	      /* ret $8 */
    {{0x0f, 0x05}, 2, EMU_INSN_FAR, 2},		      /* syscall */
    {{0x0f, 0x34}, 2, EMU_INSN_FAR, 2},		      /* sysenter */
    {{0xcd, 0x80}, 2, EMU_INSN_FAR, 2},		      /* int $0x80 */
    {{0xcc}, 1, EMU_INSN_FAR, 1},		      /* int3 */
    {{0x48, 0xcf}, 2, EMU_INSN_FAR, 2},		      /* iretq */
    {{0xcb}, 1, EMU_INSN_FAR, 1},		      /* lret */
    {{0xff, 0x18}, 2, EMU_INSN_FAR, 2},		      /* lcall *(%rax) */
    {{0xff, 0x28}, 2, EMU_INSN_FAR, 2},		      /* ljmp *(%rax) */
    {{0xff, 0xc0}, 2, EMU_INSN_OTHER, 2},	      /* inc %eax */
    {{0xff, 0x30}, 2, EMU_INSN_OTHER, 2},	      /* push (%rax) */
    {{0x48, 0x89, 0xe5}, 3, EMU_INSN_OTHER, 3},	      /* mov %rsp,%rbp */
    {{0x0f, 0x1f, 0x44, 0, 0}, 5, EMU_INSN_OTHER, 5}, /* nopl */
    {{0xc5, 0xf8, 0x77}, 3, EMU_INSN_OTHER, 3},	      /* vzeroupper */
    {{0xc4, 0xe2, 0x79, 0x18, 0xc0}, 5, EMU_INSN_OTHER, 5},
    {{0x62, 0xf1, 0x7c, 0x48, 0x28, 0xc1}, 6, EMU_INSN_OTHER, 6},
    {{0xf3, 0x48, 0xa5}, 3, EMU_INSN_OTHER, 3}, /* rep movsq */
    {{0x0f, 0x0b}, 2, EMU_INSN_OTHER, 2},	/* ud2: faults */
    {{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 10, EMU_INSN_OTHER, 10},
};

static void test_table(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct emu_insn insn;

		memset(&insn, 0xaa, sizeof(insn));
		assert_int_equal(
		    classify(rows[i].bytes, rows[i].n, 0x1000, &insn),
		    0);
		if (insn.cls != rows[i].cls)
			fail_msg("row %zu: class %d, want %d", i, insn.cls,
				 rows[i].cls);
		if (insn.x.len != rows[i].len)
			fail_msg("row %zu: len %d, want %d", i, insn.x.len,
				 rows[i].len);
	}
}

static void test_short(void **state)
{
	static const uint8_t call_ind[] = {0xff, 0x14, 0xc5, 1, 2, 3, 4};
	static const uint8_t pfx[] = {0x66, 0x66, 0x66};
	struct emu_insn insn;

	assert_int_equal(classify(call_ind, 0, 0, &insn), -1);
	assert_int_equal(classify(call_ind, 1, 0, &insn), -1);
	assert_int_equal(classify(call_ind, 2, 0, &insn), -1);
	assert_int_equal(classify(pfx, sizeof(pfx), 0, &insn), -1);
}

/* A tiny memory for emu_insn_next's reads: 8-byte words by address. */
struct mem {
	uint64_t addr[4], val[4];
	int reads;
};

static int mem_read(void *ctx, uint64_t addr, uint64_t *v)
{
	struct mem *m = ctx;
	int i;

	for (i = 0; i < 4; i++)
		if (m->addr[i] == addr) {
			m->reads++;
			*v = m->val[i];
			return 0;
		}
	return -14; /* -EFAULT */
}

struct next_row {
	const char *what;
	uint8_t bytes[15];
	uint8_t n;
	uint64_t flags, rcx;
	int known;
	uint64_t next; /* from ip 0x1000 */
};

#define CF 0x1
#define PF 0x4
#define ZF 0x40
#define SF 0x80
#define OF 0x800

/* Conditions by the SDM's table (vol. 2, Jcc): taken or the next ip. */
static const struct next_row conds[] = {
    {"je, ZF", {0x74, 0x10}, 2, ZF, 0, 1, 0x1012},
    {"je, !ZF", {0x74, 0x10}, 2, 0, 0, 1, 0x1002},
    {"jne rel32, ZF", {0x0f, 0x85, 0, 1, 0, 0}, 6, ZF, 0, 1, 0x1006},
    {"jne rel32, !ZF", {0x0f, 0x85, 0, 1, 0, 0}, 6, 0, 0, 1, 0x1106},
    {"jb, CF", {0x72, 0xfe}, 2, CF, 0, 1, 0x1000},
    {"jae, CF", {0x73, 0xfe}, 2, CF, 0, 1, 0x1002},
    {"jbe, ZF", {0x76, 0x02}, 2, ZF, 0, 1, 0x1004},
    {"ja, CF", {0x77, 0x02}, 2, CF, 0, 1, 0x1002},
    {"ja, none", {0x77, 0x02}, 2, 0, 0, 1, 0x1004},
    {"js, SF", {0x78, 0x02}, 2, SF, 0, 1, 0x1004},
    {"jns, SF", {0x79, 0x02}, 2, SF, 0, 1, 0x1002},
    {"jp, PF", {0x7a, 0x02}, 2, PF, 0, 1, 0x1004},
    {"jnp, PF", {0x7b, 0x02}, 2, PF, 0, 1, 0x1002},
    {"jo, OF", {0x70, 0x02}, 2, OF, 0, 1, 0x1004},
    {"jno, OF", {0x71, 0x02}, 2, OF, 0, 1, 0x1002},
    {"jl, SF!=OF", {0x7c, 0x02}, 2, SF, 0, 1, 0x1004},
    {"jl, SF==OF", {0x7c, 0x02}, 2, SF | OF, 0, 1, 0x1002},
    {"jge, SF==OF", {0x7d, 0x02}, 2, SF | OF, 0, 1, 0x1004},
    {"jle, ZF", {0x7e, 0x02}, 2, ZF, 0, 1, 0x1004},
    {"jle, SF==OF !ZF", {0x7e, 0x02}, 2, 0, 0, 1, 0x1002},
    {"jg, SF==OF !ZF", {0x7f, 0x02}, 2, SF | OF, 0, 1, 0x1004},
    {"jg, ZF", {0x7f, 0x02}, 2, ZF, 0, 1, 0x1002},
    {"loop, rcx 2", {0xe2, 0xfe}, 2, 0, 2, 1, 0x1000},
    {"loop, rcx 1", {0xe2, 0xfe}, 2, 0, 1, 1, 0x1002},
    {"loope, rcx 2 ZF", {0xe1, 0xfe}, 2, ZF, 2, 1, 0x1000},
    {"loope, rcx 2 !ZF", {0xe1, 0xfe}, 2, 0, 2, 1, 0x1002},
    {"loopne, rcx 2 !ZF", {0xe0, 0xfe}, 2, 0, 2, 1, 0x1000},
    {"jrcxz, rcx 0", {0xe3, 0x05}, 2, 0, 0, 1, 0x1007},
    {"jrcxz, rcx 1<<32", {0xe3, 0x05}, 2, 0, 1ULL << 32, 1, 0x1002},
    {"jecxz, rcx 1<<32", {0x67, 0xe3, 0x05}, 3, 0, 1ULL << 32, 1, 0x1008},
    {"jmp rel8 back", {0xeb, 0xf0}, 2, 0, 0, 1, 0xff2},
    {"call rel32", {0xe8, 0x00, 0x10, 0, 0}, 5, 0, 0, 1, 0x2005},
    {"nop", {0x90}, 1, 0, 0, 1, 0x1001},
};

static void test_conditions(void **state)
{
	struct user_regs_struct regs;
	struct emu_insn insn;
	uint64_t next = 0;
	size_t i;
	int known;

	for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++) {
		memset(&regs, 0, sizeof(regs));
		regs.eflags = conds[i].flags | 2;
		regs.rcx = conds[i].rcx;
		assert_int_equal(classify(conds[i].bytes, conds[i].n,
						   0x1000, &insn),
				 0);
		known =
		    emu_insn_next(&insn, 0x1000, &regs, mem_read, NULL, &next);
		if (known != conds[i].known || next != conds[i].next)
			fail_msg("%s: %d %#llx, want %d %#llx", conds[i].what,
				 known, (unsigned long long)next,
				 conds[i].known,
				 (unsigned long long)conds[i].next);
	}
}

static void test_indirect(void **state)
{
	static const struct {
		const char *what;
		uint8_t bytes[15];
		uint8_t n;
		uint64_t next;
		int reads;
	} ind[] = {
	    {"call *%r11", {0x41, 0xff, 0xd3}, 3, 0x7011, 0},
	    {"jmp *%rax", {0xff, 0xe0}, 2, 0x7000, 0},
	    {"call *(%rax)", {0xff, 0x10}, 2, 0x5555, 1},
	    {"jmp *0x10(%rip)", {0xff, 0x25, 0x10, 0, 0, 0}, 6, 0x6666, 1},
	    {"jmp *0x8(%rax,%rdx,8)", {0xff, 0x64, 0xd0, 0x08}, 4, 0x7777, 1},
	    {"call *0x8(%rsp)", {0xff, 0x54, 0x24, 0x08}, 4, 0x8888, 1},
	    {"jmp *0x4000(,%rdx,8)",
	     {0xff, 0x24, 0xd5, 0, 0x40, 0, 0},
	     7,
	     0x9999,
	     1},
	    {"call *%fs:0x10",
	     {0x64, 0xff, 0x14, 0x25, 0x10, 0, 0, 0},
	     8,
	     0xaaaa,
	     1},
	    {"ret", {0xc3}, 1, 0xbbbb, 1},
	    {"ret $16", {0xc2, 0x10, 0x00}, 3, 0xbbbb, 1},
	};
	struct mem m = {
	    .addr = {0x7000, 0x1016, 0x7000 + 3 * 8 + 8, 0x9000},
	    .val = {0x5555, 0x6666, 0x7777, 0},
	};
	struct user_regs_struct regs;
	struct emu_insn insn;
	uint64_t next;
	size_t i;

	memset(&regs, 0, sizeof(regs));
	regs.rax = 0x7000;
	regs.r11 = 0x7011;
	regs.rdx = 3;
	regs.rsp = 0x9000;
	regs.fs_base = 0x100000;
	for (i = 0; i < sizeof(ind) / sizeof(ind[0]); i++) {
		m.reads = 0;
		/* memory the row reads, at the address it must compute */
		m.addr[3] = ind[i].bytes[0] == 0xc3 || ind[i].bytes[0] == 0xc2
				? 0x9000
			    : ind[i].bytes[1] == 0x54 ? 0x9008
			    : ind[i].bytes[0] == 0x64 ? 0x100010
						      : 0x4000 + 3 * 8;
		m.val[3] = ind[i].next;
		assert_int_equal(
		    classify(ind[i].bytes, ind[i].n, 0x1000, &insn),
		    0);
		next = 0;
		if (emu_insn_next(&insn, 0x1000, &regs, mem_read, &m, &next) !=
			1 ||
		    next != ind[i].next || m.reads != ind[i].reads)
			fail_msg("%s: %#llx after %d reads", ind[i].what,
				 (unsigned long long)next, m.reads);
		assert_true(emu_insn_may_go(&insn, 0x1000, 0x123456));
		assert_int_equal(emu_insn_only_next(&insn, 0x1000, &next), 0);
	}
	/* an address that cannot be read: not known */
	memset(&regs, 0, sizeof(regs));
	assert_int_equal(
	    classify((const uint8_t *)"\xc3", 1, 0x1000, &insn), 0);
	assert_true(emu_insn_next(&insn, 0x1000, &regs, mem_read, &m, &next) <
		    0);
}

static void test_far(void **state)
{
	static const uint8_t syscall[] = {0x0f, 0x05}, int80[] = {0xcd, 0x80};
	static const uint8_t iret[] = {0x48, 0xcf};
	struct mem m = {.addr = {0x9000 + 168}, .val = {0x4242}};
	struct user_regs_struct regs;
	struct emu_insn insn;
	uint64_t next = 0;

	memset(&regs, 0, sizeof(regs));
	regs.rax = 1; /* write */
	classify(syscall, 2, 0x1000, &insn);
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, NULL, &next), 1);
	assert_int_equal(next, 0x1002);
	/* rt_sigreturn: where the ucontext at the stack pointer says (its
	 * uc_mcontext.gregs[REG_RIP], 168 bytes in: the kernel's sigcontext
	 * after uc_flags, uc_link and uc_stack) */
	regs.rax = 15;
	regs.rsp = 0x9000;
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, &m, &next), 1);
	assert_int_equal(next, 0x4242);
	regs.rsp = 0x8000; /* a frame that cannot be read: not known */
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, &m, &next), 0);
	regs.rax = 173; /* the i386 rt_sigreturn */
	classify(int80, 2, 0x1000, &insn);
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, NULL, &next), 0);
	regs.rax = 4;
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, NULL, &next), 1);
	classify(iret, 2, 0x1000, &insn);
	assert_int_equal(
	    emu_insn_next(&insn, 0x1000, &regs, mem_read, NULL, &next), 0);
}

/* Where each kind may go by its bytes alone, and where only one place. */
static void test_may_go(void **state)
{
	static const uint8_t jcc[] = {0x74, 0x10}, jmp[] = {0xeb, 0x10};
	static const uint8_t mov[] = {0x48, 0x89, 0xe5};
	static const uint8_t rep[] = {0xf3, 0x48, 0xa5};
	struct emu_insn insn;
	uint64_t next = 0;

	classify(jcc, 2, 0x1000, &insn);
	assert_true(emu_insn_may_go(&insn, 0x1000, 0x1012));
	assert_true(emu_insn_may_go(&insn, 0x1000, 0x1002));
	assert_false(emu_insn_may_go(&insn, 0x1000, 0x1004));
	assert_int_equal(emu_insn_only_next(&insn, 0x1000, &next), 0);
	classify(jmp, 2, 0x1000, &insn);
	assert_int_equal(emu_insn_only_next(&insn, 0x1000, &next), 1);
	assert_int_equal(next, 0x1012);
	classify(mov, 3, 0x1000, &insn);
	assert_true(emu_insn_may_go(&insn, 0x1000, 0x1003));
	assert_false(emu_insn_may_go(&insn, 0x1000, 0x1000));
	assert_int_equal(emu_insn_only_next(&insn, 0x1000, &next), 1);
	assert_int_equal(next, 0x1003);
	classify(rep, 3, 0x1000, &insn);
	assert_true(insn.x.flags & QX86_F_REP);
	assert_true(emu_insn_may_go(&insn, 0x1000, 0x1000));
	assert_true(emu_insn_may_go(&insn, 0x1000, 0x1003));
	assert_int_equal(emu_insn_only_next(&insn, 0x1000, &next), 0);
}

int main(void)
{
	int err;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),      cmocka_unit_test(test_short),
	    cmocka_unit_test(test_conditions), cmocka_unit_test(test_indirect),
	    cmocka_unit_test(test_far),	       cmocka_unit_test(test_may_go),
	};

	x86 = qx86_new();
	if (!x86)
		return 1;
	err = cmocka_run_group_tests(tests, NULL, NULL);
	qx86_free(x86);
	return err;
}
