// SPDX-License-Identifier: MIT
/*
 * Test program: a chain of 24 nested calls whose every function is
 * three symbols in a row (a block of the trace runs through three
 * functions), called again and again: the fast decoder's paths run
 * through more functions than a path keeps counts for.
 */
void qpt_chain0a(void);
/* qpt_chainKa, qpt_chainKb: a nop each; qpt_chainKc: a call of
 * qpt_chainNEXTa (none in the last), and a return */
__asm__(".macro qpt_link k, next\n"
	".globl qpt_chain\\k\\()a, qpt_chain\\k\\()b, qpt_chain\\k\\()c\n"
	".type qpt_chain\\k\\()a, @function\n"
	".type qpt_chain\\k\\()b, @function\n"
	".type qpt_chain\\k\\()c, @function\n"
	"qpt_chain\\k\\()a:\n"
	"\tnop\n"
	".size qpt_chain\\k\\()a, 1\n"
	"qpt_chain\\k\\()b:\n"
	"\tnop\n"
	".size qpt_chain\\k\\()b, 1\n"
	"qpt_chain\\k\\()c:\n"
	".ifnb \\next\n"
	"\tcall qpt_chain\\next\\()a\n"
	".endif\n"
	"\tret\n"
	".size qpt_chain\\k\\()c, .-qpt_chain\\k\\()c\n"
	".endm\n"
	".text\n"
	"qpt_link 0, 1\n qpt_link 1, 2\n qpt_link 2, 3\n qpt_link 3, 4\n"
	"qpt_link 4, 5\n qpt_link 5, 6\n qpt_link 6, 7\n qpt_link 7, 8\n"
	"qpt_link 8, 9\n qpt_link 9, 10\n qpt_link 10, 11\n"
	"qpt_link 11, 12\n qpt_link 12, 13\n qpt_link 13, 14\n"
	"qpt_link 14, 15\n qpt_link 15, 16\n qpt_link 16, 17\n"
	"qpt_link 17, 18\n qpt_link 18, 19\n qpt_link 19, 20\n"
	"qpt_link 20, 21\n qpt_link 21, 22\n qpt_link 22, 23\n"
	"qpt_link 23\n"
	".purgem qpt_link\n");

int main(void)
{
	int i;

	for (i = 0; i < 200; i++)
		qpt_chain0a();
	return 0;
}
