// SPDX-License-Identifier: MIT
/*
 * qpt_sysring_map's mmap failures on the real kernel: a software event has
 * no AUX area (the kernel refuses its second mmap after the data ring's
 * succeeded) and no mapping is larger than the address space; in each case
 * nothing stays mapped.  The oracle is the kernel's own list of this
 * process's mappings (/proc/self/maps: perf's buffers show as
 * anon_inode:[perf_event]).  Skips (77) where the kernel does not let us
 * open task-clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <cmocka.h>

#include "capture/sysring.h"

/* How many perf buffer mappings this process has. */
static int perf_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[perf_event]") != NULL;
	fclose(f);
	return n;
}

static int open_task_clock(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static int setup(void **state)
{
	int fd = open_task_clock();

	if (fd < 0)
		return -1;
	*state = (void *)(long)fd;
	return 0;
}

static int teardown(void **state)
{
	close((int)(long)*state);
	return 0;
}

static void test_map_and_unmap(void **state)
{
	int fd = (int)(long)*state, before = perf_maps();
	struct qpt_sysring sr;

	assert_int_equal(qpt_sysring_map(&sr, fd, 2, 0, false, NULL), 0);
	assert_int_equal(perf_maps(), before + 1);
	assert_non_null(sr.ring.page);
	assert_int_equal(sr.ring.data_size, 2 * sysconf(_SC_PAGESIZE));
	qpt_sysring_unmap(&sr);
	assert_int_equal(perf_maps(), before);
}

/* The data ring maps, the AUX area does not: it is unmapped again. */
static void test_aux_refused(void **state)
{
	int fd = (int)(long)*state, before = perf_maps();
	struct qpt_sysring sr;
	int err;

	err = qpt_sysring_map(&sr, fd, 2, 4, false, NULL);
	assert_true(err < 0 && err > -4096);
	assert_int_equal(perf_maps(), before);
	assert_null(sr.base);
	assert_null(sr.aux);
	err = qpt_sysring_map(&sr, fd, 2, 4, true, NULL);
	assert_true(err < 0 && err > -4096);
	assert_int_equal(perf_maps(), before);
}

/* More pages than an address space holds: the first mmap fails. */
static void test_too_large(void **state)
{
	int fd = (int)(long)*state, before = perf_maps();
	struct qpt_sysring sr;
	int err;

	err = qpt_sysring_map(&sr, fd, 1ull << 40, 0, false, NULL);
	assert_true(err == -ENOMEM || err == -EPERM || err == -EINVAL);
	assert_int_equal(perf_maps(), before);
	assert_null(sr.base);
	/* and sizes that are not powers of two are refused before it */
	assert_int_equal(qpt_sysring_map(&sr, fd, 3, 0, false, NULL),
			 -QPT_E_INVAL);
	assert_int_equal(perf_maps(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_map_and_unmap, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_aux_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_too_large, setup, teardown),
	};
	int fd = open_task_clock();

	if (fd < 0)
		return 77;
	close(fd);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
