// SPDX-License-Identifier: MIT
/* Test program: recursion deeper than 64 frames, indirect calls, a jump
 * table, a qsort callback, setjmp/longjmp, and returns that miss the top of
 * the return stack (where libipt's and perf's return stacks part), and a
 * call into the vDSO. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static jmp_buf env;

/*
 * qpt_outer calls qpt_trick, which returns to qpt_land instead of its
 * caller; qpt_land then "returns" to qpt_back, the address the call pushed
 * (the top of a stack that did not pop on the first, uncompressed return,
 * but not of one that did).
 */
int qpt_outer(void);
__asm__(".text\n"
	".globl qpt_outer\n"
	".hidden qpt_outer\n"
	".type qpt_outer, @function\n"
	"qpt_outer:\n"
	"	call qpt_trick\n"
	"qpt_back:\n"
	"	mov $42, %eax\n"
	"	ret\n"
	"qpt_trick:\n"
	"	lea qpt_land(%rip), %rax\n"
	"	mov %rax, (%rsp)\n"
	"	ret\n"
	"qpt_land:\n"
	"	lea qpt_back(%rip), %rax\n"
	"	push %rax\n"
	"	ret\n");
static volatile int sink;

__attribute__((noinline)) static int depth(int n)
{
	if (n == 0)
		return 0;
	return 1 + depth(n - 1);
}

__attribute__((noinline)) static int f_add(int a) { return a + 3; }
__attribute__((noinline)) static int f_mul(int a) { return a * 7; }
__attribute__((noinline)) static int f_neg(int a) { return -a; }

static int (*const ops[])(int) = {f_add, f_mul, f_neg};

__attribute__((noinline)) static int table(int k, int v)
{
	switch (k) {
	case 0: return v + 11;
	case 1: return v ^ 0x55;
	case 2: return v * 3;
	case 3: return v - 9;
	case 4: return v << 2;
	case 5: return v >> 1;
	case 6: return ~v;
	default: return v;
	}
}

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void jump_back(int n)
{
	if (n > 3)
		longjmp(env, n);
	jump_back(n + 1);
}

int main(int argc, char **argv)
{
	int v[24], i, acc = argc;

	/* time() runs in the vDSO, without the retry loops of clock reads
	 * that would make the path differ from run to run */
	acc += time(NULL) > 0;

	acc += depth(100);
	for (i = 0; i < 3; i++)
		acc += qpt_outer() + depth(3);
	for (i = 0; i < 30; i++)
		acc = ops[(i + acc) % 3](acc) & 0xffff;
	for (i = 0; i < 16; i++)
		acc += table((acc + i) & 7, i);
	for (i = 0; i < 24; i++)
		v[i] = (i * 7919 + acc) % 101;
	qsort(v, 24, sizeof(v[0]), cmp);
	if (setjmp(env) == 0)
		jump_back(0);
	else
		acc++;
	sink = acc + v[0];
	printf("flow %d\n", acc + v[23]);
	return 0;
}
