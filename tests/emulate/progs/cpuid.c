// SPDX-License-Identifier: MIT
/*
 * Test program: CPUID right before each kind of instruction whose outcome
 * the trace records (a Jcc taken and not taken, jump tables through memory
 * and through a register, direct and indirect calls, a return, a plain
 * instruction, and CPUID again; a callee that starts with a Jcc).  Some hypervisors swallow the single-step
 * trap after CPUID: there the stop after each CPUID comes one instruction
 * late.
 */
#include <stdio.h>

int qpt_cpuid_kinds(int n);
__asm__(".text\n"
	".globl qpt_cpuid_kinds\n"
	".hidden qpt_cpuid_kinds\n"
	".type qpt_cpuid_kinds, @function\n"
	"qpt_cpuid_kinds:\n"
	"	push %rbx\n"
	"	mov %edi, %r8d\n"
	"	xor %r9d, %r9d\n"
	"1:\n"
	/* Jcc taken: xor sets ZF, CPUID keeps the flags */
	"	xor %eax, %eax\n"
	"	cpuid\n"
	"	je 2f\n"
	"	ud2\n"
	"2:\n"
	/* Jcc not taken */
	"	test %r8d, %r8d\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	je 3f\n"
	"	add $1, %r9d\n"
	"3:\n"
	/* jump table through memory */
	"	lea qpt_cpuid_table(%rip), %r10\n"
	"	mov %r8d, %r11d\n"
	"	and $1, %r11d\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	jmp *(%r10,%r11,8)\n"
	"qpt_cpuid_case0:\n"
	"	add $2, %r9d\n"
	"qpt_cpuid_case1:\n"
	/* jump through a register (PIC switch tables) */
	"	lea 4f(%rip), %r10\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	jmp *%r10\n"
	"	ud2\n"
	"4:\n"
	/* direct call, then indirect */
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	call qpt_cpuid_leaf\n"
	"	lea qpt_cpuid_leaf(%rip), %r10\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	call *%r10\n"
	/* a return right after CPUID */
	"	call qpt_cpuid_ret\n"
	/* a plain instruction, and CPUID twice in a row */
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	add $3, %r9d\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	cpuid\n"
	"	add $5, %r9d\n"
	"	dec %r8d\n"
	"	jnz 1b\n"
	"	mov %r9d, %eax\n"
	"	pop %rbx\n"
	"	ret\n"
	"qpt_cpuid_leaf:\n"
	"	jz 5f\n" /* a Jcc first: ZF from CPUID's caller, kept */
	"	add $7, %r9d\n"
	"5:\n"
	"	ret\n"
	"qpt_cpuid_ret:\n"
	"	add $11, %r9d\n"
	"	mov $0, %eax\n"
	"	cpuid\n"
	"	ret\n"
	".section .data.rel.ro, \"aw\"\n"
	".balign 8\n"
	"qpt_cpuid_table:\n"
	"	.quad qpt_cpuid_case0\n"
	"	.quad qpt_cpuid_case1\n"
	".text\n");

int main(void)
{
	printf("cpuid %d\n", qpt_cpuid_kinds(20));
	return 0;
}
