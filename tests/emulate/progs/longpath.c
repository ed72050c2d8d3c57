// SPDX-License-Identifier: MIT
/*
 * Test program: straight-line code longer than a block of the breakpoint
 * engine (256 instructions), with a direct jump inside.  The path from
 * the function's start is cut at that jump, where a breakpoint goes; the
 * path from a label past the start runs over the jump (planted by then)
 * to the return.
 */
#include <stdio.h>

__attribute__((noinline)) static int longpath(int from_mid)
{
	int r;

	__asm__ volatile("mov $1, %0\n\t"
			 "test %1, %1\n\t"
			 "jnz 2f\n\t"
			 ".rept 100\n\tnop\n\t.endr\n"
			 "2:\n\t"
			 ".rept 50\n\tnop\n\t.endr\n\t"
			 "jmp 3f\n"
			 "3:\n\t"
			 ".rept 110\n\tnop\n\t.endr\n\t"
			 "add $1, %0\n"
			 : "=&r"(r)
			 : "r"(from_mid)
			 : "cc");
	return r;
}

int main(void)
{
	int i, sum = 0;

	for (i = 0; i < 4; i++)
		sum += longpath(0) + longpath(1);
	printf("longpath %d\n", sum);
	return 0;
}
