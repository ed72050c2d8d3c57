// SPDX-License-Identifier: MIT
/* The x86 layer against hand-written byte tables (lengths, classes, branch
 * targets and operands from the Intel SDM encodings; text as ptxed prints
 * it).  test_x86_objdump checks it on whole binaries against objdump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "auxfmt/x86/x86.h"
#include "qpt/qpt.h"

static struct qx86 *x86;

struct ild_case {
	int bits;
	uint8_t len;
	const char *what;
	uint8_t bytes[15];
};

static const struct ild_case cases[] = {
	{ 64, 3, "mov rdi, rsp", { 0x48, 0x89, 0xe7 } },
	{ 64, 1, "push rbp", { 0x55 } },
	{ 64, 2, "push r15", { 0x41, 0x57 } },
	{ 64, 4, "sub rsp, 0x48", { 0x48, 0x83, 0xec, 0x48 } },
	{ 64, 2, "rdtsc", { 0x0f, 0x31 } },
	{ 64, 7, "mov rax, [rip+d]", { 0x48, 0x8b, 0x05, 0xfa, 0x25, 0x22, 0x00 } },
	{ 64, 10, "nop word cs:[rax+rax]", { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ 64, 3, "vzeroupper", { 0xc5, 0xf8, 0x77 } },
	{ 64, 1, "ret", { 0xc3 } },
	{ 64, 3, "ret imm16", { 0xc2, 0x08, 0x00 } },
	{ 64, 3, "jmp r12", { 0x41, 0xff, 0xe4 } },
	{ 64, 6, "call [rip+d]", { 0xff, 0x15, 0x46, 0x2f, 0x00, 0x00 } },
	{ 64, 10, "mov rax, imm64", { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 } },
	{ 64, 5, "mov eax, imm32", { 0xb8, 0x01, 0x00, 0x00, 0x00 } },
	{ 64, 4, "mov ax, imm16", { 0x66, 0xb8, 0x01, 0x00 } },
	{ 64, 3, "test cl, 1", { 0xf6, 0xc1, 0x01 } },
	{ 64, 6, "test ecx, imm32", { 0xf7, 0xc1, 0x01, 0x00, 0x00, 0x00 } },
	{ 64, 2, "not cl", { 0xf6, 0xd1 } },
	{ 64, 5, "vmovdqa xmm0, [rsp]", { 0xc5, 0xf9, 0x6f, 0x04, 0x24 } },
	{ 64, 6, "vpalignr (VEX map 3, imm8)", { 0xc4, 0xe3, 0x79, 0x0f, 0xc1, 0x08 } },
	{ 64, 7, "vmovups zmm0, [rsp] (EVEX)", { 0x62, 0xf1, 0x7c, 0x48, 0x10, 0x04, 0x24 } },
	{ 64, 2, "syscall", { 0x0f, 0x05 } },
	{ 64, 4, "mov eax, [rsp+8]", { 0x8b, 0x44, 0x24, 0x08 } },
	{ 64, 7, "mov eax, [abs32] (SIB, no base)", { 0x8b, 0x04, 0x25, 0, 0, 0, 0 } },
	{ 64, 8, "mov rax, [rsp+0x100]", { 0x48, 0x8b, 0x84, 0x24, 0x00, 0x01, 0x00, 0x00 } },
	{ 64, 9, "mov eax, moffs64", { 0xa1, 1, 2, 3, 4, 5, 6, 7, 8 } },
	{ 64, 6, "mov eax, moffs32 (67)", { 0x67, 0xa1, 1, 2, 3, 4 } },
	{ 64, 4, "enter", { 0xc8, 0x10, 0x00, 0x00 } },
	{ 64, 4, "bt eax, 3", { 0x0f, 0xba, 0xe0, 0x03 } },
	{ 64, 6, "palignr", { 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08 } },
	{ 64, 5, "pshufb", { 0x66, 0x0f, 0x38, 0x00, 0xc1 } },
	{ 64, 4, "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa } },
	{ 64, 3, "lock inc dword [rax]", { 0xf0, 0xff, 0x00 } },
	{ 64, 6, "xbegin rel32", { 0xc7, 0xf8, 0, 0, 0, 0 } },
	{ 64, 3, "xabort imm8", { 0xc6, 0xf8, 0x01 } },
	{ 32, 5, "call rel32 (32-bit)", { 0xe8, 0, 0, 0, 0 } },
	{ 32, 4, "call rel16 (32-bit, 66)", { 0x66, 0xe8, 0, 0 } },
	{ 32, 1, "inc eax (32-bit)", { 0x40 } },
	{ 32, 6, "mov eax, [disp32] (32-bit)", { 0x8b, 0x05, 0, 0, 0, 0 } },
	{ 32, 5, "mov eax, [bx+si+d16] (67)", { 0x67, 0x8b, 0x80, 0x00, 0x00 } },
	{ 32, 3, "les eax, [eax] (not VEX in 32-bit)", { 0xc4, 0x00 } },
	{ 16, 4, "mov ax, [disp16] (16-bit)", { 0x8b, 0x06, 0x34, 0x12 } },
	{ 16, 3, "mov ax, imm16 (16-bit)", { 0xb8, 0x34, 0x12 } },
};

static void test_lengths(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ild_case *c = &cases[i];
		struct qx86_insn in;
		int n = qx86_decode(x86, c->bytes, 15, c->bits, 0x1000, &in);

		if (c->len == 3 && c->bytes[0] == 0xc4 && c->bits == 32) {
			/* les: ModRM 00 = [eax], 2 bytes */
			assert_int_equal(n, 2);
			continue;
		}
		if (n != c->len)
			print_error("%s: length %d, want %u\n", c->what, n,
				    c->len);
		assert_int_equal(n, c->len);
	}
}

struct branch_case {
	int bits;
	uint64_t ip;
	uint8_t n;
	uint8_t bytes[15];
	uint8_t cls, cond;
	uint64_t target;
};

static const struct branch_case branches[] = {
	{ 64, 0x7ffff7dd9c23, 5, { 0xe8, 0x38, 0x0c, 0, 0 }, QX86_CALL, 0,
	  0x7ffff7dda860 },
	{ 64, 0x7fe6ab29a479, 2, { 0x75, 0xd5 }, QX86_JCC, 5, 0x7fe6ab29a450 },
	{ 64, 0x7fe6ab29a3da, 6, { 0x0f, 0x85, 0x21, 0xff, 0xff, 0xff },
	  QX86_JCC, 5, 0x7fe6ab29a301 },
	{ 64, 0x4000, 2, { 0x7e, 0x02 }, QX86_JCC, 14, 0x4004 }, /* jle */
	{ 64, 0x4000, 2, { 0xeb, 0xfe }, QX86_JMP, 0, 0x4000 },
	{ 64, 0x4000, 2, { 0xe2, 0x10 }, QX86_LOOP, QX86_COND_LOOP, 0x4012 },
	{ 64, 0x4000, 2, { 0xe1, 0x10 }, QX86_LOOP, QX86_COND_LOOPE, 0x4012 },
	{ 64, 0x4000, 2, { 0xe0, 0x10 }, QX86_LOOP, QX86_COND_LOOPNE, 0x4012 },
	{ 64, 0x4000, 2, { 0xe3, 0x10 }, QX86_LOOP, QX86_COND_CXZ, 0x4012 },
	/* 66 is ignored by near branches in 64-bit mode (Intel) */
	{ 64, 0x4000, 6, { 0x66, 0xe9, 0, 1, 0, 0 }, QX86_JMP, 0, 0x4106 },
	{ 64, 0x4000, 6, { 0xf2, 0xe9, 0, 1, 0, 0 }, QX86_JMP, 0, 0x4106 },
	/* 32-bit: the target wraps at 4 GiB; 16-bit operands at 64 KiB */
	{ 32, 0x90000000, 5, { 0xe8, 0, 0, 0, 0x80 }, QX86_CALL, 0,
	  0x10000005 },
	{ 32, 0x1fff0, 4, { 0x66, 0xe8, 0x10, 0 }, QX86_CALL, 0, 0x0004 },
	{ 16, 0xfff0, 3, { 0xe9, 0x10, 0 }, QX86_JMP, 0, 0x0003 },
	{ 64, 0, 3, { 0x41, 0xff, 0xe4 }, QX86_JMP_IND, 0, 0 },
	{ 64, 0, 6, { 0xff, 0x15, 1, 2, 3, 4 }, QX86_CALL_IND, 0, 0 },
	{ 64, 0, 1, { 0xc3 }, QX86_RET, 0, 0 },
	{ 64, 0, 2, { 0xf3, 0xc3 }, QX86_RET, 0, 0 },
	{ 64, 0, 1, { 0xcb }, QX86_FAR_RET, 0, 0 },
	{ 64, 0, 2, { 0xff, 0x18 }, QX86_FAR_CALL, 0, 0 },
	{ 64, 0, 2, { 0xff, 0x28 }, QX86_FAR_JMP, 0, 0 },
	{ 32, 0, 7, { 0xea, 1, 2, 3, 4, 5, 6 }, QX86_FAR_JMP, 0, 0 },
	{ 32, 0, 7, { 0x9a, 1, 2, 3, 4, 5, 6 }, QX86_FAR_CALL, 0, 0 },
	{ 64, 0, 2, { 0x0f, 0x05 }, QX86_SYSCALL, 0, 0 },
	{ 64, 0, 2, { 0x0f, 0x34 }, QX86_SYSENTER, 0, 0 },
	{ 64, 0, 2, { 0x0f, 0x07 }, QX86_SYSRET, 0, 0 },
	{ 64, 0, 2, { 0x0f, 0x35 }, QX86_SYSRET, 0, 0 },
	{ 64, 0, 2, { 0xcd, 0x80 }, QX86_INT, 0, 0 },
	{ 64, 0, 1, { 0xcc }, QX86_INT, 0, 0 },
	{ 64, 0, 1, { 0xf1 }, QX86_INT, 0, 0 },
	{ 32, 0, 1, { 0xce }, QX86_INT, 0, 0 }, /* into: not in 64-bit mode */
	{ 64, 0, 2, { 0x48, 0xcf }, QX86_IRET, 0, 0 },
	{ 64, 0, 1, { 0xcf }, QX86_IRET, 0, 0 },
	/* not branches: xbegin, xend, xabort branch only on an abort */
	{ 64, 0, 6, { 0xc7, 0xf8, 0, 0, 0, 0 }, QX86_NONE, 0, 0 },
	{ 64, 0, 3, { 0x0f, 0x01, 0xd5 }, QX86_NONE, 0, 0 },
	{ 64, 0, 3, { 0xc6, 0xf8, 1 }, QX86_NONE, 0, 0 },
	{ 64, 0, 2, { 0x0f, 0x0b }, QX86_NONE, 0, 0 }, /* ud2 */
	{ 64, 0, 2, { 0xff, 0x30 }, QX86_NONE, 0, 0 }, /* push [rax] */
	{ 64, 0, 2, { 0xff, 0xc0 }, QX86_NONE, 0, 0 }, /* inc eax */
};

static void test_branches(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(branches) / sizeof(branches[0]); i++) {
		const struct branch_case *c = &branches[i];
		struct qx86_insn in;
		int n = qx86_decode(x86, c->bytes, c->n, c->bits, c->ip, &in);

		if (n != c->n || in.cls != c->cls ||
		    (c->target && in.target != c->target) ||
		    in.cond != c->cond)
			fail_msg("case %zu: len %d class %u cond %u target "
				 "%#llx",
				 i, n, in.cls, in.cond,
				 (unsigned long long)in.target);
	}
}

static void test_flags(void **state)
{
	static const uint8_t rep_movsq[] = { 0xf3, 0x48, 0xa5 };
	static const uint8_t repne_scasb[] = { 0xf2, 0xae };
	static const uint8_t movsb[] = { 0xa4 };
	static const uint8_t pause[] = { 0xf3, 0x90 };
	static const uint8_t cpuid[] = { 0x0f, 0xa2 };
	static const uint8_t ret8[] = { 0xc2, 0x08, 0x00 };
	static const uint8_t jecxz[] = { 0x67, 0xe3, 0x05 };
	struct qx86_insn in;

	(void)state;
	assert_int_equal(qx86_decode(x86, rep_movsq, 3, 64, 0, &in), 3);
	assert_int_equal(in.flags, QX86_F_REP);
	assert_int_equal(qx86_decode(x86, repne_scasb, 2, 64, 0, &in), 2);
	assert_int_equal(in.flags, QX86_F_REP);
	assert_int_equal(qx86_decode(x86, movsb, 1, 64, 0, &in), 1);
	assert_int_equal(in.flags, 0);
	assert_int_equal(qx86_decode(x86, pause, 2, 64, 0, &in), 2);
	assert_int_equal(in.flags, 0);
	assert_int_equal(qx86_decode(x86, cpuid, 2, 64, 0, &in), 2);
	assert_int_equal(in.flags, QX86_F_CPUID);
	assert_int_equal(qx86_decode(x86, ret8, 3, 64, 0, &in), 3);
	assert_int_equal(in.imm, 8);
	assert_int_equal(qx86_decode(x86, jecxz, 3, 64, 0x1000, &in), 3);
	assert_int_equal(in.cls, QX86_LOOP);
	assert_int_equal(in.asz, 32);
	assert_int_equal(in.target, 0x1008);
}

struct opnd_case {
	const char *what;
	uint8_t n;
	uint8_t bytes[15];
	struct qx86_opnd want;
	uint8_t asz;
};

static const struct opnd_case opnds[] = {
	{ "jmp r12", 3, { 0x41, 0xff, 0xe4 },
	  { QX86_OPND_REG, 12, -1, 1, 0, 8, 0 }, 64 },
	{ "call rax", 2, { 0xff, 0xd0 },
	  { QX86_OPND_REG, 0, -1, 1, 0, 8, 0 }, 64 },
	{ "jmp [rip+0x10]", 6, { 0xff, 0x25, 0x10, 0, 0, 0 },
	  { QX86_OPND_MEM, -1, -1, 1, 0, 8, 0x1016 }, 64 },
	{ "jmp [rax+rdx*8+8]", 4, { 0xff, 0x64, 0xd0, 0x08 },
	  { QX86_OPND_MEM, 0, 2, 8, 0, 8, 8 }, 64 },
	{ "call [rsp+8]", 4, { 0xff, 0x54, 0x24, 0x08 },
	  { QX86_OPND_MEM, 4, -1, 1, 0, 8, 8 }, 64 },
	{ "jmp [rdx*8+0x4000]", 7, { 0xff, 0x24, 0xd5, 0, 0x40, 0, 0 },
	  { QX86_OPND_MEM, -1, 2, 8, 0, 8, 0x4000 }, 64 },
	{ "jmp [r13+r9*4-8]", 5, { 0x43, 0xff, 0x64, 0x8d, 0xf8 },
	  { QX86_OPND_MEM, 13, 9, 4, 0, 8, (uint64_t)-8 }, 64 },
	{ "call fs:[0x10]", 8, { 0x64, 0xff, 0x14, 0x25, 0x10, 0, 0, 0 },
	  { QX86_OPND_MEM, -1, -1, 1, QX86_SEG_FS, 8, 0x10 }, 64 },
	{ "call gs:[rax]", 3, { 0x65, 0xff, 0x10 },
	  { QX86_OPND_MEM, 0, -1, 1, QX86_SEG_GS, 8, 0 }, 64 },
	{ "call [eax]", 3, { 0x67, 0xff, 0x10 },
	  { QX86_OPND_MEM, 0, -1, 1, 0, 8, 0 }, 32 },
	{ "jmp [eip-0x1010]", 7, { 0x67, 0xff, 0x25, 0xf0, 0xef, 0xff, 0xff },
	  { QX86_OPND_MEM, -1, -1, 1, 0, 8, 0xfffffff7 }, 32 },
};

static void test_operands(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(opnds) / sizeof(opnds[0]); i++) {
		const struct opnd_case *c = &opnds[i];
		const struct qx86_opnd *w = &c->want, *o;
		struct qx86_insn in;

		assert_int_equal(
		    qx86_decode(x86, c->bytes, c->n, 64, 0x1000, &in), c->n);
		o = &in.opnd;
		if (o->type != w->type || o->base != w->base ||
		    o->index != w->index || o->scale != w->scale ||
		    o->seg != w->seg || o->size != w->size ||
		    o->disp != w->disp || in.asz != c->asz)
			fail_msg("%s: type %u base %d index %d scale %u seg %u "
				 "size %u disp %#llx asz %u",
				 c->what, o->type, o->base, o->index, o->scale,
				 o->seg, o->size, (unsigned long long)o->disp,
				 in.asz);
	}
}

static void test_truncated(void **state)
{
	static const uint8_t call[] = { 0xe8, 0x38, 0x0c, 0x00, 0x00 };
	static const uint8_t modrm[] = { 0x48, 0x8b, 0x84, 0x24, 0x00, 0x01 };
	static const uint8_t prefixes[15] = { 0x66, 0x66, 0x66, 0x66, 0x66,
					      0x66, 0x66, 0x66, 0x66, 0x66,
					      0x66, 0x66, 0x66, 0x66, 0x66 };
	static const uint8_t bad[] = { 0x06 }; /* push es: not in 64-bit mode */
	struct qx86_insn in;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(call); n++)
		assert_int_equal(qx86_decode(x86, call, n, 64, 0, &in),
				 -QPT_E_TRUNCATED);
	for (n = 0; n < sizeof(modrm); n++)
		assert_int_equal(qx86_decode(x86, modrm, n, 64, 0, &in),
				 -QPT_E_TRUNCATED);
	assert_true(qx86_decode(x86, prefixes, 15, 64, 0, &in) < 0);
	assert_int_equal(qx86_decode(x86, bad, 1, 64, 0, &in),
			 -QPT_E_FORMAT);
	assert_int_equal(qx86_decode(x86, call, 5, 8, 0, &in), -QPT_E_INVAL);
}

/* Text as ptxed (XED, Intel syntax) prints it. */
static void test_format(void **state)
{
	static const struct {
		uint64_t ip;
		uint8_t n;
		uint8_t bytes[15];
		const char *text;
	} f[] = {
		{ 0, 3, { 0x48, 0x89, 0xe7 }, "mov rdi, rsp" },
		{ 0x7ffff7dd9c23, 5, { 0xe8, 0x38, 0x0c, 0, 0 },
		  "call 0x7ffff7dda860" },
		{ 0x1000, 6, { 0xff, 0x25, 0x46, 0x2f, 0, 0 },
		  "jmp qword ptr [rip+0x2f46]" },
		{ 0x1000, 2, { 0x75, 0xfe }, "jnz 0x1000" },
		{ 0, 4, { 0x48, 0x83, 0xec, 0x48 }, "sub rsp, 0x48" },
		{ 0, 1, { 0xc3 }, "ret" },
	};
	char buf[96];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int n = qx86_format(i & 1 ? x86 : NULL, f[i].bytes, f[i].n,
				    64, f[i].ip, buf, sizeof(buf));

		if (n != (int)strlen(f[i].text) || strcmp(buf, f[i].text))
			fail_msg("\"%s\" (%d), want \"%s\"", buf, n,
				 f[i].text);
	}
	/* too small a buffer: an error and an empty string */
	assert_int_equal(qx86_format(x86, f[2].bytes, f[2].n, 64, 0, buf, 8),
			 -QPT_E_INVAL);
	assert_string_equal(buf, "");
}

/* The cache: entries by ip and mode, in sets of QX86_WAYS, forgotten by
 * generation. */
static void test_cache(void **state)
{
	static const uint8_t jmp[] = { 0xeb, 0x10 }, nop[] = { 0x90 };
	struct qx86_cache *c = qx86_cache_new(2); /* one set */
	const struct qx86_cached *e;
	int tag;
	unsigned i;

	(void)state;
	assert_non_null(c);
	assert_null(qx86_cache_find(c, 0x1000, 64));
	assert_int_equal(qx86_cache_add(c, 0x1000, 64, jmp, 2, &e), 0);
	assert_int_equal(e->insn.target, 0x1012);
	assert_memory_equal(e->raw, jmp, 2);
	assert_ptr_equal(qx86_cache_find(c, 0x1000, 64), e);
	assert_null(qx86_cache_find(c, 0x1000, 32));
	/* the set fills, then its first way goes */
	for (i = 1; i < QX86_WAYS; i++)
		assert_int_equal(qx86_cache_add(c, 0x1000 + i, 64, nop, 1, &e),
				 0);
	assert_non_null(qx86_cache_find(c, 0x1000, 64));
	assert_int_equal(qx86_cache_add(c, 0x2000, 64, nop, 1, &e), 0);
	assert_null(qx86_cache_find(c, 0x1000, 64));
	for (i = 1; i < QX86_WAYS; i++)
		assert_non_null(qx86_cache_find(c, 0x1000 + i, 64));
	assert_non_null(qx86_cache_find(c, 0x2000, 64));
	qx86_cache_forget(c);
	assert_null(qx86_cache_find(c, 0x2000, 64));
	/* the same code named again keeps its entries; other code not */
	qx86_cache_use(c, &tag);
	assert_int_equal(qx86_cache_add(c, 0x2000, 64, nop, 1, &e), 0);
	qx86_cache_use(c, &tag);
	assert_non_null(qx86_cache_find(c, 0x2000, 64));
	qx86_cache_use(c, c);
	assert_null(qx86_cache_find(c, 0x2000, 64));
	/* what does not decode is not kept */
	assert_int_equal(qx86_cache_add(c, 0x3000, 64, jmp, 1, &e),
			 -QPT_E_TRUNCATED);
	assert_null(qx86_cache_find(c, 0x3000, 64));
	qx86_cache_free(c);
	qx86_cache_free(NULL);
	assert_null(qx86_cache_new(40));
	assert_null(qx86_cache_new(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_cache),
	};
	int err;

	x86 = qx86_new();
	if (!x86)
		return 1;
	err = cmocka_run_group_tests(tests, NULL, NULL);
	qx86_free(x86);
	return err;
}
