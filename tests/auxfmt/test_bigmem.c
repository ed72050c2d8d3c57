// SPDX-License-Identifier: MIT
/* bigmem: zeroed tables of every size, writable to their end; the large
 * ones at a huge page's edge and eligible for transparent huge pages
 * (the kernel's smaps says so) wherever the kernel has them at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "auxfmt/bigmem.h"

#define HUGE_SIZE ((size_t)2 << 20)

/* The THPeligible value of the mapping holding @p in /proc/self/smaps:
 * 1, 0, or -1 when the kernel does not say. */
static int thp_eligible(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	int v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && sscanf(line, "THPeligible: %d", &v) == 1)
			break;
	}
	fclose(f);
	return v;
}

/* Whether the kernel gives transparent huge pages to madvise at all. */
static bool thp_madvise(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char s[128] = "";

	if (!f)
		return false;
	if (!fgets(s, sizeof(s), f))
		s[0] = '\0';
	fclose(f);
	return strstr(s, "[always]") || strstr(s, "[madvise]");
}

static void test_sizes(void **state)
{
	static const size_t sizes[] = {0, 1, 100, 4096, (512u << 10) - 1,
				       512u << 10, (3u << 20) + 5, 8u << 20};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		uint8_t *p = bigmem_zalloc(n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (k = 0; k < n; k++)
			if (p[k])
				fail_msg("%zu bytes: byte %zu not zero", n, k);
		memset(p, 0xa5, n);
		if (n >= (512u << 10)) {
			assert_int_equal((uintptr_t)p % HUGE_SIZE, 0);
			if (thp_madvise())
				assert_int_equal(thp_eligible(p), 1);
		}
		bigmem_free(p, n);
	}
	bigmem_free(NULL, 0);
	bigmem_free(NULL, 8u << 20);
}

/* Freed and made again: zeroed again (no bytes of the last one). */
static void test_again_zeroed(void **state)
{
	size_t n = 4u << 20, k;
	uint8_t *p;
	int round;

	(void)state;
	for (round = 0; round < 3; round++) {
		p = bigmem_zalloc(n);
		assert_non_null(p);
		for (k = 0; k < n; k += 4096)
			assert_int_equal(p[k], 0);
		memset(p, 0xff, n);
		bigmem_free(p, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_again_zeroed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
