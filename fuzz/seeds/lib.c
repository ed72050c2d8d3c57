// SPDX-License-Identifier: MIT
/* A shared library for fuzz_elf's seeds (fuzz/mkseeds.py): global, weak
 * and local functions, a call through the PLT, and one through .plt.got
 * (a function whose address is taken too). */
extern int ext(int x);
extern int ext2(int x);

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

/* ext2's address from the GOT, and a call: ld puts its stub in .plt.got */
int (*ext2_addr(void))(int)
{
	return ext2;
}

int api2(int x)
{
	return ext2(x) + 1;
}
