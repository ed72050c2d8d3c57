// SPDX-License-Identifier: MIT
/* Test program: C functions under C++ and Rust symbol names (asm
 * labels), called from main, for the symbol tests. */
#include <stdio.h>

__attribute__((noinline)) int
parse(const char *s) __asm__("_ZN6Parser5parseEPKc");
__attribute__((noinline)) int parse(const char *s)
{
	return s[0] + 1;
}

__attribute__((noinline)) int add(int a,
				  int b) __asm__("_ZN2ns3addIiEET_S1_S1_");
__attribute__((noinline)) int add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) int rmain(int a) __asm__("_RNvCs1234_7mycrate4main");
__attribute__((noinline)) int rmain(int a)
{
	return a * 3;
}

__attribute__((noinline)) int
rlegacy(int a) __asm__("_ZN7mycrate6legacy17h0123456789abcdefE");
__attribute__((noinline)) int rlegacy(int a)
{
	return a - 3;
}

int main(int argc, char **argv)
{
	int v = parse(argv[0]);
	int i;

	for (i = 0; i < 3; i++)
		v = add(v, i);
	v = rmain(v) + rlegacy(v);
	printf("%d\n", v & 1);
	return 0;
}
