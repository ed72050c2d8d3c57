// SPDX-License-Identifier: MIT
/*
 * Test program for the breakpoint engine's loops (emulate/loop.c): loops
 * it runs natively and counts by an induction register, and what may stop
 * them on the way.  Every run executes the same instructions.
 *   loops          all of the below that end normally
 *   loops fault    as "loops", then loops that fault inside, the load
 *                  before and after the step (a page made readable by
 *                  the SIGSEGV handler, the loop going on)
 *   loops crash    a loop that reads on into an unmapped page: SIGSEGV
 * The loops (asm, so that their shape does not depend on the compiler):
 * one block adding 1, 8 (lea), -1 (dec) and -3 (sub); two and three
 * blocks with an exit in each, the register stepped before, between and
 * after the exits; a 32-bit counter (no induction register: it is
 * stepped at every jump, as before); and C loops as the compiler makes
 * them.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard.h"

#define N 3000

static uint8_t buf[N + 64];

/* sum of n bytes at p: one block, p += 1 */
static uint64_t sum_inc(const uint8_t *p, uint64_t n)
{
	uint64_t s = 0, t;

	__asm__ volatile("1:\n\t"
			 "movzbq (%[p]), %[t]\n\t"
			 "add %[t], %[s]\n\t"
			 "add $1, %[p]\n\t"
			 "sub $1, %[n]\n\t"
			 "jnz 1b\n\t"
			 : [p] "+r"(p), [n] "+r"(n), [s] "+r"(s), [t] "=&r"(t)
			 :
			 : "cc", "memory");
	return s;
}

/* the same, the register stepped before the load */
static uint64_t sum_pre(const uint8_t *p, uint64_t n)
{
	uint64_t s = 0, t;

	__asm__ volatile("1:\n\t"
			 "add $1, %[p]\n\t"
			 "movzbq -1(%[p]), %[t]\n\t"
			 "add %[t], %[s]\n\t"
			 "sub $1, %[n]\n\t"
			 "jnz 1b\n\t"
			 : [p] "+r"(p), [n] "+r"(n), [s] "+r"(s), [t] "=&r"(t)
			 :
			 : "cc", "memory");
	return s;
}

/* every 8th byte, by lea; the count down by dec */
static uint64_t sum_lea(const uint8_t *p, uint64_t n)
{
	uint64_t s = 0, t;

	__asm__ volatile("1:\n\t"
			 "movzbq (%[p]), %[t]\n\t"
			 "lea 8(%[p]), %[p]\n\t"
			 "xor %[t], %[s]\n\t"
			 "rol $3, %[s]\n\t"
			 "dec %[n]\n\t"
			 "jne 1b\n\t"
			 : [p] "+r"(p), [n] "+r"(n), [s] "+r"(s), [t] "=&r"(t)
			 :
			 : "cc", "memory");
	return s;
}

/* the first index (from the end, by 3) whose byte is @c, or -1: two
 * blocks, one exit each, the register stepped between them */
static int64_t find_back(const uint8_t *p, int64_t i, uint8_t c)
{
	__asm__ volatile("1:\n\t"
			 "cmpb %[c], (%[p],%[i])\n\t"
			 "je 2f\n\t"
			 "sub $3, %[i]\n\t"
			 "jns 1b\n\t"
			 "mov $-1, %[i]\n\t"
			 "2:\n\t"
			 : [i] "+r"(i)
			 : [p] "r"(p), [c] "q"(c)
			 : "cc", "memory");
	return i;
}

/* the length of the run of equal bytes at p (at most max, 1..): three
 * blocks, an exit in each, the register stepped after them all */
static uint64_t run_len(const uint8_t *p, uint64_t max)
{
	uint64_t k = 1;

	__asm__ volatile("jmp 3f\n\t"
			 "1:\n\t"
			 "movzbl (%[p],%[k]), %%eax\n\t"
			 "cmp (%[p]), %%al\n\t"
			 "jne 4f\n\t"
			 "test $0x40, %[k]\n\t"
			 "jnz 5f\n\t"
			 "add $1, %[k]\n\t"
			 "3:\n\t"
			 "cmp %[max], %[k]\n\t"
			 "jb 1b\n\t"
			 "jmp 4f\n\t"
			 "5:\n\t"
			 "nop\n\t"
			 "4:\n\t"
			 : [k] "+r"(k)
			 : [p] "r"(p), [max] "r"(max)
			 : "cc", "memory", "rax");
	return k;
}

/* a 32-bit counter: no induction register */
static uint32_t count32(uint32_t n)
{
	uint32_t i = 0, s = 0;

	__asm__ volatile("1:\n\t"
			 "add %[i], %[s]\n\t"
			 "add $1, %[i]\n\t"
			 "cmp %[n], %[i]\n\t"
			 "jb 1b\n\t"
			 : [i] "+r"(i), [s] "+r"(s)
			 : [n] "r"(n)
			 : "cc");
	return s;
}

/* as the compiler makes them */
static uint64_t weigh(const uint8_t *p, size_t n)
{
	uint64_t w = 0;
	size_t i;

	for (i = n; i-- > 0;)
		w = w * 3 + (p[i] > 1);
	return w;
}

static size_t rle(const uint8_t *p, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		i += run_len(p + i, n - i);
		k++;
	}
	return k;
}

/* ---- loops that fault ---- */

static long page;

static int faults(void)
{
	uint64_t s = 0;
	int k;

	if (guard_init())
		return 1;
	for (k = 0; k < 3; k++) {
		memset(guarded, k + 1, (size_t)page);
		guard_arm();
		/* the load before the step (k 0, 2) and after it (k 1) */
		if (k == 0)
			s += sum_inc(guarded + 100, (size_t)page);
		else if (k == 1)
			s += sum_pre(guarded + 200, (size_t)page);
		else
			s += sum_lea(guarded + 5, (size_t)page / 8 + 4);
	}
	printf("fault %llu\n", (unsigned long long)s);
	return 0;
}

static int crash(void)
{
	uint8_t *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 1;
	munmap(m + page, (size_t)page);
	memset(m, 7, (size_t)page);
	printf("crash %llu\n", (unsigned long long)sum_inc(m, 3 * page));
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t seed = 99;
	size_t i;

	page = sysconf(_SC_PAGESIZE);
	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)((seed >> 16) % 3);
	}
	memset(buf + 1000, 1, 200); /* a long run (cut at 64) */
	if (argc > 1 && !strcmp(argv[1], "crash"))
		return crash();
	printf("%llu %llu %llu\n", (unsigned long long)sum_inc(buf, N),
	       (unsigned long long)sum_pre(buf, N),
	       (unsigned long long)sum_lea(buf, N / 8));
	printf("%lld %lld %lld\n", (long long)find_back(buf, N - 1, 2),
	       (long long)find_back(buf, N - 3, 7),
	       (long long)find_back(buf, 2000, 9));
	printf("%zu %u %llu\n", rle(buf, N), count32(2000),
	       (unsigned long long)weigh(buf, N));
	if (argc > 1 && !strcmp(argv[1], "fault"))
		return faults();
	return 0;
}
