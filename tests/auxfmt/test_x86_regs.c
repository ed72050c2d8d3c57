// SPDX-License-Identifier: MIT
/* The x86 layer's register effects against hand-written cases (which
 * registers each instruction writes and which add a constant, from the
 * Intel SDM's descriptions of the encodings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "auxfmt/x86/x86.h"
#include "qpt/qpt.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11 };
#define B(r) (1u << (r))

struct fx_case {
	const char *what;
	uint8_t len;
	uint8_t bytes[15];
	uint16_t writes;
	int step_reg;
	int64_t step;
	uint8_t pushed;
};

static const struct fx_case cases[] = {
    {"add rax, 1", 4, {0x48, 0x83, 0xc0, 0x01}, B(RAX), RAX, 1, 0},
    {"sub rdi, 8", 4, {0x48, 0x83, 0xef, 0x08}, B(RDI), RDI, -8, 0},
    {"add r10, -2", 4, {0x49, 0x83, 0xc2, 0xfe}, B(R10), R10, -2, 0},
    {"add rsi, 0x1000",
     7,
     {0x48, 0x81, 0xc6, 0x00, 0x10, 0x00, 0x00},
     B(RSI),
     RSI,
     0x1000,
     0},
    {"inc r9", 3, {0x49, 0xff, 0xc1}, B(R9), R9, 1, 0},
    {"dec rcx", 3, {0x48, 0xff, 0xc9}, B(RCX), RCX, -1, 0},
    {"lea rdx, [rdx+0x10]", 4, {0x48, 0x8d, 0x52, 0x10}, B(RDX), RDX, 16, 0},
    {"lea rax, [rbx+8]", 4, {0x48, 0x8d, 0x43, 0x08}, B(RAX), -1, 0, 0},
    {"lea rax, [rax+rcx]", 4, {0x48, 0x8d, 0x04, 0x08}, B(RAX), -1, 0, 0},
    {"lea eax, [rax+1]", 3, {0x8d, 0x40, 0x01}, B(RAX), -1, 0, 0},
    {"add eax, 1", 3, {0x83, 0xc0, 0x01}, B(RAX), -1, 0, 0},
    {"add rax, rcx", 3, {0x48, 0x01, 0xc8}, B(RAX), -1, 0, 0},
    {"add rax, [rcx]", 3, {0x48, 0x03, 0x01}, B(RAX), -1, 0, 0},
    {"add [rax], 1", 4, {0x48, 0x83, 0x00, 0x01}, 0, -1, 0, 0},
    {"add rax, 0", 4, {0x48, 0x83, 0xc0, 0x00}, B(RAX), -1, 0, 0},
    {"mov bh, cl", 2, {0x88, 0xcf}, B(RBX), -1, 0, 0},
    {"mov r11b, 1", 3, {0x41, 0xb3, 0x01}, B(R11), -1, 0, 0},
    {"cmp rax, rcx", 3, {0x48, 0x39, 0xc8}, 0, -1, 0, 0},
    {"movzx esi, byte [rax]", 3, {0x0f, 0xb6, 0x30}, B(RSI), -1, 0, 0},
    {"mul rcx", 3, {0x48, 0xf7, 0xe1}, B(RAX) | B(RDX), -1, 0, 0},
    {"push rbx", 1, {0x53}, B(RSP), -1, 0, 8},
    {"push r15", 2, {0x41, 0x57}, B(RSP), -1, 0, 8},
    {"push 0x10", 2, {0x6a, 0x10}, B(RSP), -1, 0, 8},
    {"push qword [rax]", 2, {0xff, 0x30}, B(RSP), -1, 0, 8},
    {"push cx", 2, {0x66, 0x51}, B(RSP), -1, 0, 2},
    {"call rel32", 5, {0xe8, 0, 0, 0, 0}, B(RSP), -1, 0, 8},
    {"call rax", 2, {0xff, 0xd0}, B(RSP), -1, 0, 8},
    {"sub rsp, 0x18", 4, {0x48, 0x83, 0xec, 0x18}, B(RSP), RSP, -0x18, 0},
    {"pop rbx", 1, {0x5b}, B(RSP) | B(RBX), -1, 0, 0},
    {"cmovne rax, rcx", 4, {0x48, 0x0f, 0x45, 0xc1}, B(RAX), -1, 0, 0},
    {"cpuid", 2, {0x0f, 0xa2}, B(RAX) | B(RBX) | B(RCX) | B(RDX), -1, 0, 0},
    {"rep movsb", 2, {0xf3, 0xa4}, B(RCX) | B(RSI) | B(RDI), -1, 0, 0},
    {"xchg rax, rdx", 2, {0x48, 0x92}, B(RAX) | B(RDX), -1, 0, 0},
    {"movdqu xmm0, [rsi]", 4, {0xf3, 0x0f, 0x6f, 0x06}, 0, -1, 0, 0},
};

static void test_cases(void **state)
{
	struct qx86 *x = *state;
	struct qx86_gpr_fx fx;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fx_case *c = &cases[i];

		print_message("%s\n", c->what);
		assert_int_equal(
		    qx86_gpr_effect(x, c->bytes, c->len, 64, 0x1000, &fx),
		    c->len);
		assert_int_equal(fx.writes, c->writes);
		assert_int_equal(fx.step_reg, c->step_reg);
		assert_int_equal(fx.step, c->step);
		assert_int_equal(fx.pushed, c->pushed);
	}
}

static void test_modes(void **state)
{
	static const uint8_t inc_eax32[] = {0x40}; /* inc eax (32-bit) */
	static const uint8_t add_rax[] = {0x48, 0x83, 0xc0};
	struct qx86 *x = *state;
	struct qx86_gpr_fx fx;

	/* no induction step outside 64-bit code */
	assert_int_equal(qx86_gpr_effect(x, inc_eax32, 1, 32, 0, &fx), 1);
	assert_int_equal(fx.writes, B(RAX));
	assert_int_equal(fx.step_reg, -1);
	/* truncated, bad mode */
	assert_int_equal(qx86_gpr_effect(x, add_rax, 3, 64, 0, &fx),
			 -QPT_E_TRUNCATED);
	assert_int_equal(qx86_gpr_effect(x, add_rax, 3, 8, 0, &fx),
			 -QPT_E_INVAL);
}

static int setup(void **state)
{
	*state = qx86_new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	qx86_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_modes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
