// SPDX-License-Identifier: MIT
/*
 * Test program for the breakpoint engine's conditional jumps that run
 * natively (emulate/fast.h, emu_fast_ways): a jump with no breakpoint,
 * whose two ways end in stops of their own, so that where the thread
 * stops tells which way it went.  Every run executes the same
 * instructions.
 *   ways         all of the below that end normally
 *   ways fault   as "ways", then loads that fault inside a way (the
 *                SIGSEGV handler makes the page readable, the way goes on)
 *   ways crash   a load inside a way that kills (SIGSEGV)
 *   ways alarm   the jumps below run until a timer's signal (every 500 us)
 *                has come 300 times, stopping the program wherever it
 *                is; prints "alarm N": the handler's runs
 * The functions (asm, so that their shape does not depend on the
 * compiler):
 *   ways_pick    both ways end in a return
 *   ways_sys     one way ends in a system call (getpid), one in a return
 *   ways_chain   one way ends in a jump that could run natively too
 *   ways_load    one way loads from memory that may fault
 *   ways_scan    a loop of two blocks, one of which leaves by a jump
 *                that runs natively: the loop runs natively around it
 *   ways_meet    a jump whose ways meet (if/else): a breakpoint, as before
 *   ways_slow    a long way of CPUIDs (alarm's)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "guard.h"

#define N 3000

uint64_t ways_pick(uint64_t x);
uint64_t ways_sys(uint64_t x);
uint64_t ways_chain(int64_t x, int64_t y);
uint64_t ways_load(const uint64_t *p, uint64_t go);
uint64_t ways_scan(const uint8_t *p, uint64_t n);
uint64_t ways_meet(uint64_t x);
uint64_t ways_slow(uint64_t x);

__asm__(".text\n"
	".globl ways_pick\n"
	".type ways_pick, @function\n"
	"ways_pick:\n\t"
	"cmp $100, %rdi\n\t"
	"jb 1f\n\t"
	"mov %rdi, %rax\n\t"
	"shl $1, %rax\n\t"
	"ret\n"
	"1:\n\t"
	"lea 7(%rdi), %rax\n\t"
	"ret\n"
	".size ways_pick, .-ways_pick\n"

	".globl ways_sys\n"
	".type ways_sys, @function\n"
	"ways_sys:\n\t"
	"test $3, %rdi\n\t"
	"jz 1f\n\t"
	"mov %rdi, %rax\n\t"
	"ret\n"
	"1:\n\t"
	"mov $39, %eax\n\t" /* getpid */
	"syscall\n\t"
	"xor %eax, %eax\n\t"
	"ret\n"
	".size ways_sys, .-ways_sys\n"

	".globl ways_chain\n"
	".type ways_chain, @function\n"
	"ways_chain:\n\t"
	"xor %eax, %eax\n\t"
	"cmp $0, %rdi\n\t"
	"jl 1f\n\t"
	"add $1, %rax\n\t"
	"cmp $0, %rsi\n\t"
	"jl 2f\n\t"
	"add $3, %rax\n\t"
	"ret\n"
	"2:\n\t"
	"add $4, %rax\n\t"
	"ret\n"
	"1:\n\t"
	"add $5, %rax\n\t"
	"ret\n"
	".size ways_chain, .-ways_chain\n"

	".globl ways_load\n"
	".type ways_load, @function\n"
	"ways_load:\n\t"
	"xor %eax, %eax\n\t"
	"test %rsi, %rsi\n\t"
	"jz 1f\n\t"
	"add $2, %rax\n\t"
	"add (%rdi), %rax\n\t"
	"add $1, %rax\n\t"
	"ret\n"
	"1:\n\t"
	"sub $1, %rax\n\t"
	"ret\n"
	".size ways_load, .-ways_load\n"

	/* the index of the first 0 byte of n (> 0), or n + 1000 */
	".globl ways_scan\n"
	".type ways_scan, @function\n"
	"ways_scan:\n\t"
	"xor %eax, %eax\n"
	"1:\n\t"
	"cmpb $0, (%rdi,%rax)\n\t"
	"je 2f\n\t"
	"add $1, %rax\n\t"
	"cmp %rsi, %rax\n\t"
	"jb 1b\n\t"
	"add $1000, %rax\n"
	"2:\n\t"
	"ret\n"
	".size ways_scan, .-ways_scan\n"

	/* x, slowly: a long way of CPUIDs (in a VM each leaves for the
	 * hypervisor, microseconds), where a timer's signal comes often
	 * while it runs */
	".globl ways_slow\n"
	".type ways_slow, @function\n"
	"ways_slow:\n\t"
	"mov %rdi, %rax\n\t"
	"test $1, %rdi\n\t"
	"jz 1f\n\t"
	"push %rbx\n\t"
	".rept 16\n\t"
	"xor %eax, %eax\n\t"
	"cpuid\n\t"
	".endr\n\t"
	"pop %rbx\n\t"
	"mov %rdi, %rax\n\t"
	"ret\n"
	"1:\n\t"
	"ret\n"
	".size ways_slow, .-ways_slow\n"

	".globl ways_meet\n"
	".type ways_meet, @function\n"
	"ways_meet:\n\t"
	"mov %rdi, %rax\n\t"
	"test $1, %rdi\n\t"
	"jz 1f\n\t"
	"add $3, %rax\n\t"
	"jmp 2f\n"
	"1:\n\t"
	"sub $3, %rax\n"
	"2:\n\t"
	"shl $1, %rax\n\t"
	"ret\n"
	".size ways_meet, .-ways_meet\n");

static uint8_t buf[N + 64];

static long page;

static int faults(void)
{
	uint64_t s = 0, k, *g;

	if (guard_init())
		return 1;
	g = (uint64_t *)guarded + page / 8;
	for (k = 0; k < 3; k++) {
		g[k] = k + 5;
		guard_arm();
		s += ways_load(g + k, 1);
		s += ways_load(g + k, 0);
	}
	printf("fault %llu\n", (unsigned long long)s);
	return 0;
}

static int crash(void)
{
	uint64_t *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t s = 0, k;

	if (m == MAP_FAILED)
		return 1;
	munmap((uint8_t *)m + page, (size_t)page);
	for (k = 0; k < 10; k++) {
		s += (uint64_t)getppid() & 0; /* a return before ways_load */
		s += ways_load(m + page / 8 - 5 + k, k & 1);
	}
	printf("crash %llu\n", (unsigned long long)s);
	return 0;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static int alarm_mode(void)
{
	struct itimerval it = {{0, 500}, {0, 500}};
	struct sigaction sa;
	uint64_t s = 0;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; alarms < 300; i = (i + 1) % N) {
		s += ways_pick(buf[i] * 5u);
		s += ways_chain((int64_t)buf[i] - 10, (int64_t)buf[i + 1] - 20);
		s += ways_meet(buf[i]);
		s += ways_slow(i);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	/* a signal still pending came as the call returned: all counted */
	printf("alarm %d %llu\n", (int)alarms, (unsigned long long)(s & 1));
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t s[6] = {0};
	uint32_t seed = 7;
	size_t i;

	/* first here, after a return: no jump before it runs natively into
	 * ways_load's (whose way's end it would plant), so that a fault
	 * below stops inside a way */
	page = sysconf(_SC_PAGESIZE);
	s[5] = ways_load((const uint64_t *)buf, 1);
	s[5] += ways_load(NULL, 0);
	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)((seed >> 16) % 40);
	}
	if (argc > 1 && !strcmp(argv[1], "crash"))
		return crash();
	if (argc > 1 && !strcmp(argv[1], "alarm"))
		return alarm_mode();
	for (i = 0; i < N; i++) {
		s[0] += ways_pick(buf[i] * 5u);
		s[1] += ways_sys(i) != 0;
		s[2] +=
		    ways_chain((int64_t)buf[i] - 10, (int64_t)buf[i + 1] - 20);
		s[4] += ways_meet(buf[i]);
	}
	for (i = 0; i + 100 < N; i += 50)
		s[3] += ways_scan(buf + i, 100);
	printf("%llu %llu %llu %llu %llu %llu\n", (unsigned long long)s[0],
	       (unsigned long long)s[1], (unsigned long long)s[2],
	       (unsigned long long)s[3], (unsigned long long)s[4],
	       (unsigned long long)s[5]);
	if (argc > 1 && !strcmp(argv[1], "fault"))
		return faults();
	return 0;
}
