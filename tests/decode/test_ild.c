// SPDX-License-Identifier: MIT
/* The instruction length decoder against hand-written byte tables (lengths
 * and branch targets from the Intel SDM encodings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "auxfmt/x86/ild.h"

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
		struct qd_ild ild;
		int n = qd_ild_decode(c->bytes, 15, c->bits, 0x1000, &ild);

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

static void test_branches(void **state)
{
	static const uint8_t call[] = { 0xe8, 0x38, 0x0c, 0x00, 0x00 };
	static const uint8_t jnz8[] = { 0x75, 0xd5 };
	static const uint8_t jnz32[] = { 0x0f, 0x85, 0x21, 0xff, 0xff, 0xff };
	static const uint8_t jmp_self[] = { 0xeb, 0xfe };
	static const uint8_t loop[] = { 0xe2, 0x10 };
	static const uint8_t call32[] = { 0xe8, 0x00, 0x00, 0x00, 0x80 };
	struct qd_ild ild;

	(void)state;
	assert_int_equal(qd_ild_decode(call, 5, 64, 0x7ffff7dd9c23, &ild), 5);
	assert_int_equal(ild.kind, QD_ILD_CALL);
	assert_true(ild.direct);
	assert_int_equal(ild.target, 0x7ffff7dda860);
	assert_int_equal(qd_ild_decode(jnz8, 2, 64, 0x7fe6ab29a479, &ild), 2);
	assert_int_equal(ild.kind, QD_ILD_JCC);
	assert_int_equal(ild.target, 0x7fe6ab29a450);
	assert_int_equal(qd_ild_decode(jnz32, 6, 64, 0x7fe6ab29a3da, &ild), 6);
	assert_int_equal(ild.kind, QD_ILD_JCC);
	assert_int_equal(ild.target, 0x7fe6ab29a301);
	assert_int_equal(qd_ild_decode(jmp_self, 2, 64, 0x4000, &ild), 2);
	assert_int_equal(ild.kind, QD_ILD_JMP);
	assert_int_equal(ild.target, 0x4000);
	assert_int_equal(qd_ild_decode(loop, 2, 64, 0x4000, &ild), 2);
	assert_int_equal(ild.kind, QD_ILD_JCC);
	assert_int_equal(ild.target, 0x4012);
	/* 32-bit: the target wraps at 4 GiB */
	assert_int_equal(qd_ild_decode(call32, 5, 32, 0x90000000, &ild), 5);
	assert_int_equal(ild.target, 0x10000005);
}

static void test_truncated(void **state)
{
	static const uint8_t call[] = { 0xe8, 0x38, 0x0c, 0x00, 0x00 };
	static const uint8_t modrm[] = { 0x48, 0x8b, 0x84, 0x24, 0x00, 0x01 };
	static const uint8_t prefixes[15] = { 0x66, 0x66, 0x66, 0x66, 0x66,
					      0x66, 0x66, 0x66, 0x66, 0x66,
					      0x66, 0x66, 0x66, 0x66, 0x66 };
	struct qd_ild ild;
	size_t n;

	(void)state;
	for (n = 0; n < sizeof(call); n++)
		assert_int_equal(qd_ild_decode(call, n, 64, 0, &ild), -1);
	for (n = 0; n < sizeof(modrm); n++)
		assert_int_equal(qd_ild_decode(modrm, n, 64, 0, &ild), -1);
	assert_int_equal(qd_ild_decode(prefixes, 15, 64, 0, &ild), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
