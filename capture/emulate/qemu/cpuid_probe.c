// SPDX-License-Identifier: MIT
/*
 * qpt-qemu-cpuid: what CPUID says under QEMU, for qpt record
 * --emulate=qemu to name the CPU it emulates (the recording's CPUID and
 * CPUDESC).  Run as a guest: leaves 0, 1 and 0x80000002-4 (vendor,
 * signature, brand string), their eax, ebx, ecx, edx as 24 native words
 * on standard output.  No libc: it is tiny and static.
 */
#include <stdint.h>

void _start(void) __attribute__((noreturn));

static void cpuid(uint32_t leaf, uint32_t *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(0));
}

void _start(void)
{
	static const uint32_t leaves[6] = {0,	       1,	   0x80000000,
					   0x80000002, 0x80000003, 0x80000004};
	uint32_t r[6][4];
	long ret;
	int i;

	for (i = 0; i < 6; i++)
		cpuid(leaves[i], r[i]);
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(1L), "D"(1L), "S"(r), "d"(sizeof(r))
			 : "rcx", "r11", "memory");
	__asm__ volatile("syscall"
			 :
			 : "a"(60L), "D"(ret == sizeof(r) ? 0L : 1L)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}
