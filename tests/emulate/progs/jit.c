// SPDX-License-Identifier: MIT
/*
 * Code that changes under a running program, for the emulated source's
 * breakpoint engine (which plants breakpoints in code and must take them
 * out where code may be written):
 *   1. code mapped from a file and run, unmapped, and other code mapped
 *      from another file at the same address and run;
 *   2. that code made writable and read back (it must read as written:
 *      no breakpoint byte of the tracer in it), made executable again and
 *      run;
 *   3. with "anon": anonymous read-write-execute code written, run,
 *      changed in place without a system call, and run again.
 * The files are written in DIR, so that a decoder finds the code there.
 *   jit DIR [anon]
 * Prints the sum of what the generated functions returned; exit 3 when
 * code read back differs from what was written.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define AT ((void *)0x10000000)
#define PAGE 4096

/* int sum(int n): the sum of 0..n-1, by a loop */
static const uint8_t sum_code[] = {
	0x31, 0xc0,	  /* xor eax, eax */
	0x31, 0xc9,	  /* xor ecx, ecx */
	0x39, 0xf9,	  /* 4: cmp ecx, edi */
	0x7d, 0x06,	  /* jge 14 */
	0x01, 0xc8,	  /* 8: add eax, ecx (sub: 0x29) */
	0xff, 0xc1,	  /* inc ecx */
	0xeb, 0xf6,	  /* jmp 4 */
	0xc3,		  /* 14: ret */
};

/* int square(int n) */
static const uint8_t sq_code[] = {
	0x89, 0xf8,	  /* mov eax, edi */
	0x0f, 0xaf, 0xc7, /* imul eax, edi */
	0xc3,		  /* ret */
};

typedef int (*fn)(int);

/* @code in the file DIR/NAME, mapped executable at AT. */
static fn map_file(const char *dir, const char *name, const uint8_t *code,
		   size_t len)
{
	static uint8_t page[PAGE];
	char path[4096];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(page, 0xcc, sizeof(page));
	memcpy(page, code, len);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, page, PAGE) != PAGE)
		exit(2);
	p = mmap(AT, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
		 0);
	close(fd);
	if (p == MAP_FAILED)
		exit(2);
	return (fn)p;
}

int main(int argc, char **argv)
{
	long total = 0;
	uint8_t *p;
	fn f;
	int i;

	if (argc < 2)
		return 2;
	f = map_file(argv[1], "jit-sum.bin", sum_code, sizeof(sum_code));
	for (i = 0; i < 40; i++)
		total += f(i);
	munmap(AT, PAGE);
	f = map_file(argv[1], "jit-sq.bin", sq_code, sizeof(sq_code));
	for (i = 0; i < 40; i++)
		total += f(i);
	if (mprotect(AT, PAGE, PROT_READ | PROT_WRITE))
		return 2;
	if (memcmp(AT, sq_code, sizeof(sq_code)))
		return 3;
	if (mprotect(AT, PAGE, PROT_READ | PROT_EXEC))
		return 2;
	total += f(7);
	munmap(AT, PAGE);
	if (argc > 2 && !strcmp(argv[2], "anon")) {
		p = mmap(AT, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		memcpy(p, sum_code, sizeof(sum_code));
		f = (fn)(void *)p;
		for (i = 0; i < 20; i++)
			total += f(i);
		p[8] = 0x29; /* add -> sub, no system call */
		for (i = 0; i < 20; i++)
			total += f(i);
	}
	printf("%ld\n", total);
	return 0;
}
