// SPDX-License-Identifier: MIT
/*
 * Synthesized sideband and targets.  Oracles: a hand-written MMAP2 byte
 * layout (perf_event.h's struct), /proc/self/maps of this very process for
 * the [vdso] and the executable mapping, the build-id `readelf -n` would
 * print for this test binary (read here through the ELF note by libelf is
 * what we test, so the oracle is the bytes of the note found by a plain
 * scan of the file), CPU lists written by hand.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/synth.h"
#include "capture/target.h"
#include "qpt/qpt.h"

struct mmap2 {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

static void test_mmap2_line(void **state)
{
	uint64_t buf[64];
	struct mmap2 *m = (struct mmap2 *)buf;
	int size;

	size = qpt_synth_mmap2("55d0e8a00000-55d0e8a16000 r-xp 00004000 fe:01 "
			       "247728                     /usr/bin/ls\n",
			       7, 8, 32, buf, sizeof(buf));
	/* 72 bytes, "/usr/bin/ls\0" padded to 16, 32 of sample_id. */
	assert_int_equal(size, 72 + 16 + 32);
	assert_int_equal(m->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(m->header.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(m->header.size, size);
	assert_int_equal(m->pid, 7);
	assert_int_equal(m->tid, 8);
	assert_int_equal(m->addr, 0x55d0e8a00000ULL);
	assert_int_equal(m->len, 0x16000);
	assert_int_equal(m->pgoff, 0x4000);
	assert_int_equal(m->maj, 0xfe);
	assert_int_equal(m->min, 1);
	assert_int_equal(m->ino, 247728);
	assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
	assert_int_equal(m->flags, MAP_PRIVATE);
	assert_string_equal(m->filename, "/usr/bin/ls");
	assert_int_equal(((uint8_t *)buf)[size - 1], 0);
	/* Not executable: nothing; anonymous: //anon; garbage: an error. */
	assert_int_equal(qpt_synth_mmap2("1000-2000 rw-p 0 00:00 0\n", 1, 1, 0,
					 buf, sizeof(buf)),
			 0);
	size = qpt_synth_mmap2("1000-2000 r-xs 0 00:00 0\n", 1, 1, 0, buf,
			       sizeof(buf));
	assert_int_equal(size, 72 + 8);
	assert_string_equal(m->filename, "//anon");
	assert_int_equal(m->flags, MAP_SHARED);
	assert_int_equal(qpt_synth_mmap2("zzz", 1, 1, 0, buf, sizeof(buf)),
			 -QPT_E_FORMAT);
	assert_int_equal(qpt_synth_mmap2("2000-1000 r-xp 0 00:00 0 /x", 1, 1, 0,
					 buf, sizeof(buf)),
			 -QPT_E_FORMAT);
	assert_int_equal(
	    qpt_synth_mmap2("1000-2000 r-xp 0 00:00 0 /x", 1, 1, 0, buf, 40),
	    -ENOSPC);
}

struct collect {
	int comms, mmaps, vdso, self_exec;
	uint64_t vdso_addr;
};

static int collect(void *ctx, const struct perf_event_header *h)
{
	struct collect *c = ctx;
	const struct mmap2 *m = (const void *)h;

	if (h->type == PERF_RECORD_COMM)
		c->comms++;
	if (h->type != PERF_RECORD_MMAP2)
		return 0;
	c->mmaps++;
	if (!strcmp(m->filename, "[vdso]")) {
		c->vdso++;
		c->vdso_addr = m->addr;
	}
	return 0;
}

/* This process: as many MMAP2 as /proc/self/maps has executable lines,
 * the [vdso] where maps says. */
static void test_synth_self(void **state)
{
	struct collect c;
	char line[512];
	unsigned long long lo, vdso = 0;
	int nx = 0, n;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char perms[8];

		if (sscanf(line, "%llx-%*x %7s", &lo, perms) != 2)
			continue;
		if (perms[2] == 'x')
			nx++;
		if (strstr(line, "[vdso]"))
			vdso = lo;
	}
	fclose(f);
	memset(&c, 0, sizeof(c));
	n = qpt_synth_process("/proc", getpid(), 32, collect, &c);
	assert_true(n > 0);
	assert_int_equal(c.comms, 1);
	assert_int_equal(c.mmaps, nx);
	if (vdso) {
		assert_int_equal(c.vdso, 1);
		assert_int_equal(c.vdso_addr, vdso);
	}
	assert_int_equal(qpt_synth_process("/proc", 999999999, 32, collect, &c),
			 -ESRCH);
}

/* The build-id: compare with the NT_GNU_BUILD_ID note found by scanning
 * the file's bytes for the note header (namesz 4, descsz 20, type 3,
 * "GNU\0"). */
static void test_build_id(void **state)
{
	static const uint8_t hdr[16] = {4, 0, 0, 0, 20,	 0,   0,   0,
					3, 0, 0, 0, 'G', 'N', 'U', 0};
	uint8_t id[64], *file;
	long size;
	FILE *f;
	long i;
	int n;

	f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	file = malloc((size_t)size);
	assert_non_null(file);
	assert_int_equal(fread(file, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	for (i = 0; i + 36 <= size; i++)
		if (!memcmp(file + i, hdr, 16))
			break;
	n = qpt_build_id_read("/proc/self/exe", id, sizeof(id));
	if (i + 36 > size) {
		assert_int_equal(n, 0);
	} else {
		assert_int_equal(n, 20);
		assert_memory_equal(id, file + i + 16, 20);
	}
	free(file);
	assert_int_equal(qpt_build_id_read("/nonexistent", id, sizeof(id)),
			 -ENOENT);
	assert_int_equal(qpt_build_id_read("/proc/self/maps", id, sizeof(id)),
			 -QPT_E_FORMAT);
}

static void test_cpus(void **state)
{
	int *cpus;
	size_t n;

	assert_int_equal(qpt_target_cpus("0-3,5,2", &cpus, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 5);
	free(cpus);
	assert_int_equal(qpt_target_cpus("7", &cpus, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], 7);
	free(cpus);
	assert_int_equal(qpt_target_cpus(NULL, &cpus, &n), 0);
	assert_int_equal(n, (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	free(cpus);
	assert_int_equal(qpt_target_cpus("3-1", &cpus, &n), -QPT_E_INVAL);
	assert_int_equal(qpt_target_cpus("a", &cpus, &n), -QPT_E_INVAL);
	assert_int_equal(qpt_target_cpus("1,", &cpus, &n), -QPT_E_INVAL);
	assert_int_equal(qpt_target_cpus("", &cpus, &n), -QPT_E_INVAL);
	assert_int_equal(qpt_target_cpus("1-", &cpus, &n), -QPT_E_INVAL);
}

static void test_threads(void **state)
{
	int *tids;
	size_t n;

	assert_int_equal(qpt_target_threads("/proc", getpid(), &tids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(tids[0], getpid());
	free(tids);
	assert_int_equal(qpt_target_threads("/proc", 999999999, &tids, &n),
			 -ESRCH);
}

/* The child is held until go, then exec's; a bad command reports the
 * exec's errno. */
static void test_child(void **state)
{
	char *ok[] = {"true", NULL}, *bad[] = {"/nonexistent/x", NULL};
	int go, err, status;
	pid_t pid;

	assert_int_equal(qpt_target_child_fork(ok, &pid, &go, &err), 0);
	assert_int_equal(qpt_target_child_go(go, err), 0);
	close(go);
	close(err);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(qpt_target_child_fork(bad, &pid, &go, &err), 0);
	assert_int_equal(qpt_target_child_go(go, err), -ENOENT);
	close(go);
	close(err);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mmap2_line),
	    cmocka_unit_test(test_synth_self),
	    cmocka_unit_test(test_build_id),
	    cmocka_unit_test(test_cpus),
	    cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
