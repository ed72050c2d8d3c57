// SPDX-License-Identifier: MIT
/*
 * Test program: rep-prefixed string instructions that a fault cuts short,
 * the handler making the faulting page writable, and that go on after
 * it: rep stosb and rep movsb across the boundary of a page with no
 * access.  Intel PT shows such an instruction once, when it ends (the
 * fault's FUP is at it, and it runs again after the handler); a stepper
 * traps after every iteration.  Prints the bytes' sum; exits 0 when both
 * faults came.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *page2;
static long psize;
static volatile int faults;

static void on_segv(int sig)
{
	(void)sig;
	faults++;
	mprotect(page2, psize, PROT_READ | PROT_WRITE);
}

int main(void)
{
	struct sigaction sa;
	unsigned long n, sum = 0, i;
	char *buf, *d, *s;

	psize = sysconf(_SC_PAGESIZE);
	buf = mmap(NULL, 2 * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 2;
	page2 = buf + psize;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);

	mprotect(page2, psize, PROT_NONE);
	d = page2 - 100;
	n = 200;
	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n)
			 : "a"(0x5a)
			 : "memory");
	mprotect(page2, psize, PROT_NONE);
	d = page2 - 50;
	s = buf;
	n = 150;
	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(s), "+c"(n)
			 :
			 : "memory");
	for (i = 0; i < 2 * (unsigned long)psize; i++)
		sum += (unsigned char)buf[i];
	printf("%lu, %d faults\n", sum, faults);
	return faults == 2 ? 0 : 1;
}
