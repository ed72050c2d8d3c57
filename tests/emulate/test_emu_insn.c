// SPDX-License-Identifier: MIT
/* Branch classification against hand-written byte tables (encodings from
 * the Intel SDM, vol. 2; lengths as objdump prints them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture/emu_insn.h"

struct row {
	uint8_t bytes[15];
	uint8_t n;
	uint8_t cls;
	uint8_t len; /* 0: not checked */
};

static const struct row rows[] = {
	{{0x74, 0x05}, 2, EMU_INSN_JCC, 2},		  /* je rel8 */
	{{0x0f, 0x85, 1, 2, 3, 4}, 6, EMU_INSN_JCC, 6},	  /* jne rel32 */
	{{0x2e, 0x74, 0x05}, 3, EMU_INSN_JCC, 3},	  /* cs je (hint) */
	{{0xe3, 0x10}, 2, EMU_INSN_JCC, 2},		  /* jrcxz */
	{{0x67, 0xe3, 0x10}, 3, EMU_INSN_JCC, 3},	  /* jecxz */
	{{0xe2, 0xfe}, 2, EMU_INSN_JCC, 2},		  /* loop */
	{{0xe0, 0xfe}, 2, EMU_INSN_JCC, 2},		  /* loopne */
	{{0xe8, 0, 0, 0, 0}, 5, EMU_INSN_CALL, 5},	  /* call rel32 */
	{{0xe9, 0, 0, 0, 0}, 5, EMU_INSN_JMP, 5},	  /* jmp rel32 */
	{{0xeb, 0xfe}, 2, EMU_INSN_JMP, 2},		  /* jmp rel8 */
	{{0xf2, 0xe9, 0, 0, 0, 0}, 6, EMU_INSN_JMP, 6},	  /* bnd jmp */
	{{0xff, 0xd0}, 2, EMU_INSN_CALL_IND, 2},	  /* call *%rax */
	{{0x41, 0xff, 0xd3}, 3, EMU_INSN_CALL_IND, 3},	  /* call *%r11 */
	{{0xff, 0x15, 1, 2, 3, 4}, 6, EMU_INSN_CALL_IND, 6}, /* call *x(%rip) */
	{{0xff, 0x14, 0xc5, 1, 2, 3, 4}, 7, EMU_INSN_CALL_IND, 7},
	/* call *0x4(,%rax,8) via SIB with no base */
	{{0xff, 0x54, 0x24, 0x08}, 4, EMU_INSN_CALL_IND, 4}, /* call *8(%rsp) */
	{{0xff, 0x94, 0x24, 1, 0, 0, 0}, 7, EMU_INSN_CALL_IND, 7},
	{{0xff, 0x10}, 2, EMU_INSN_CALL_IND, 2},	  /* call *(%rax) */
	{{0xf3, 0x0f, 0x1e, 0xfa}, 4, EMU_INSN_OTHER, 0}, /* endbr64 */
	{{0x3e, 0xff, 0xe0}, 3, EMU_INSN_JMP_IND, 3},	  /* notrack jmp *%rax */
	{{0xff, 0x24, 0xc5, 1, 2, 3, 4}, 7, EMU_INSN_JMP_IND, 7},
	{{0xff, 0x25, 1, 2, 3, 4}, 6, EMU_INSN_JMP_IND, 6}, /* jmp *x(%rip) */
	{{0xc3}, 1, EMU_INSN_RET, 1},
	{{0xf3, 0xc3}, 2, EMU_INSN_RET, 2},		  /* repz ret */
	{{0xc2, 0x08, 0x00}, 3, EMU_INSN_RET, 3},	  /* ret $8 */
	{{0x0f, 0x05}, 2, EMU_INSN_FAR, 0},		  /* syscall */
	{{0x0f, 0x34}, 2, EMU_INSN_FAR, 0},		  /* sysenter */
	{{0xcd, 0x80}, 2, EMU_INSN_FAR, 0},		  /* int $0x80 */
	{{0xcc}, 1, EMU_INSN_FAR, 0},			  /* int3 */
	{{0x48, 0xcf}, 2, EMU_INSN_FAR, 0},		  /* iretq */
	{{0xcb}, 1, EMU_INSN_FAR, 0},			  /* lret */
	{{0xff, 0x18}, 2, EMU_INSN_FAR, 0},		  /* lcall *(%rax) */
	{{0xff, 0x28}, 2, EMU_INSN_FAR, 0},		  /* ljmp *(%rax) */
	{{0xff, 0xc0}, 2, EMU_INSN_OTHER, 0},		  /* inc %eax */
	{{0xff, 0x30}, 2, EMU_INSN_OTHER, 0},		  /* push (%rax) */
	{{0x48, 0x89, 0xe5}, 3, EMU_INSN_OTHER, 0},	  /* mov %rsp,%rbp */
	{{0x0f, 0x1f, 0x44, 0, 0}, 5, EMU_INSN_OTHER, 0}, /* nopl */
	{{0xc5, 0xf8, 0x77}, 3, EMU_INSN_OTHER, 0},	  /* vzeroupper */
	{{0xc4, 0xe2, 0x79, 0x18, 0xc0}, 5, EMU_INSN_OTHER, 0},
	{{0x62, 0xf1, 0x7c, 0x48, 0x28, 0xc1}, 6, EMU_INSN_OTHER, 0},
	{{0xf3, 0x48, 0xa5}, 3, EMU_INSN_OTHER, 0},	  /* rep movsq */
	{{0x0f, 0x0b}, 2, EMU_INSN_OTHER, 0},		  /* ud2: faults */
	{{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, 10, EMU_INSN_OTHER, 0},
};

static void test_table(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct emu_insn insn = {0xaa, 0xaa};

		assert_int_equal(emu_insn_classify(rows[i].bytes, rows[i].n,
						   &insn), 0);
		if (insn.cls != rows[i].cls)
			fail_msg("row %zu: class %d, want %d", i, insn.cls,
				 rows[i].cls);
		if (rows[i].len && insn.len != rows[i].len)
			fail_msg("row %zu: len %d, want %d", i, insn.len,
				 rows[i].len);
	}
}

static void test_short(void **state)
{
	static const uint8_t call_ind[] = {0xff, 0x14, 0xc5, 1, 2, 3, 4};
	static const uint8_t pfx[] = {0x66, 0x66, 0x66};
	struct emu_insn insn;

	assert_int_equal(emu_insn_classify(call_ind, 0, &insn), -1);
	assert_int_equal(emu_insn_classify(call_ind, 1, &insn), -1);
	assert_int_equal(emu_insn_classify(call_ind, 2, &insn), -1);
	assert_int_equal(emu_insn_classify(pfx, sizeof(pfx), &insn), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
