// SPDX-License-Identifier: MIT
/* A shared library for fuzz_elf's seeds (fuzz/mkseeds.py): global, weak
 * and local functions, and a call through the PLT. */
extern int ext(int x);

static int __attribute__((noinline)) local(int x)
{
	return x * 2;
}

int __attribute__((weak)) helper(int x)
{
	return ext(x) + 1;
}

int api(int x)
{
	return local(x) + helper(x);
}
