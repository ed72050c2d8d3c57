// SPDX-License-Identifier: MIT
/*
 * fuzz/sysroot/code, the program of the fuzz targets' recordings (built
 * and recorded by fuzz/mkseeds.sh): a loop, direct and indirect calls,
 * conditional branches, a system call and a crash (a store through a null
 * pointer: the recordings carry crash facts), in about 100 bytes of code
 * and a 5 KB file, so that decoding it costs the fuzzer little.
 */
static int __attribute__((noinline)) f(int x)
{
	return x & 1 ? x * 3 : x / 2;
}

static int __attribute__((noinline)) g(int x)
{
	return x > 4 ? f(x - 1) : x;
}

static int (*volatile fp[2])(int) = {f, g};

void _start(void)
{
	int i, s = 0;

	for (i = 0; i < 12; i++)
		s += fp[i & 1](i) + g(s & 7);
	asm volatile("syscall" ::"a"(39) : "rcx", "r11", "memory"); /* getpid */
	*(volatile int *)(long)(s & 0) = s;
	__builtin_unreachable();
}
