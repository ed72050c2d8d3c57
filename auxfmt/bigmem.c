// SPDX-License-Identifier: MIT
/*
 * Large zeroed tables on huge pages where the kernel gives them (see
 * bigmem.h).  Below BIGMEM_MIN the table comes from calloc: a mapping of
 * its own would cost more than the faults it saves.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auxfmt/bigmem.h"

#define HUGE_SIZE ((size_t)2 << 20)
#define BIGMEM_MIN ((size_t)512 << 10)

/* @size rounded up to whole huge pages (0 when that overflows). */
static size_t huge_round(size_t size)
{
	return size > SIZE_MAX - HUGE_SIZE ? 0
					   : (size + HUGE_SIZE - 1) &
						 ~(HUGE_SIZE - 1);
}

void *bigmem_zalloc(size_t size)
{
	size_t len = huge_round(size), head;
	uint8_t *p;

	if (size < BIGMEM_MIN)
		return calloc(1, size ? size : 1);
	if (!len || len > SIZE_MAX - HUGE_SIZE)
		return NULL;
	/* a huge page's more, to start the table at a huge page's edge */
	p = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	head = (HUGE_SIZE - ((uintptr_t)p & (HUGE_SIZE - 1))) & (HUGE_SIZE - 1);
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_SIZE - head);
	p += head;
#ifdef MADV_HUGEPAGE
	/* a hint: without transparent huge pages, 4 KiB pages as always */
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

void bigmem_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size < BIGMEM_MIN)
		free(p);
	else
		munmap(p, huge_round(size));
}

/* 1 huge pages, 0 not, -1 not read yet (two threads reading it at once
 * both find the same) */
static int huge_state = -1;

static int read_huge(void)
{
	char buf[128];
	ssize_t n;
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

bool bigmem_huge(void)
{
#ifndef MADV_HUGEPAGE
	return false;
#else
	int s = __atomic_load_n(&huge_state, __ATOMIC_RELAXED);

	if (s < 0) {
		s = read_huge();
		__atomic_store_n(&huge_state, s, __ATOMIC_RELAXED);
	}
	return s > 0;
#endif
}

void bigmem_set_huge(bool huge)
{
	__atomic_store_n(&huge_state, huge ? 1 : 0, __ATOMIC_RELAXED);
}
