// SPDX-License-Identifier: MIT
/*
 * The code the guest runs, as decoders find it: the first block QEMU
 * translates in a mapping of a file announces that mapping (MMAP2, as the
 * kernel's mmap event: the guest's addresses, the file's offset, device
 * and inode; QEMU maps the guest's files into its own address space at
 * the guest's address plus guest_base, so its /proc/self/maps names
 * them); code that no file holds as it runs (anonymous memory, JIT
 * compilers, a deleted file) has the page's bytes as translated copied
 * into the recording's JIT file, each copy announced by an MMAP2 of that
 * page into it.  Translation is rare next to execution: this is not fast.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/emulate/proc.h"
#include "capture/emulate/qemu/plugin.h"

#define PAGE 4096ULL

/* A guest range whose code is announced. */
struct qmap {
	uint64_t start, end;
	bool jit;
};

/* A JIT page copied out: the hash of the bytes copied. */
struct qjit {
	uint64_t page; /* 0: empty slot */
	uint64_t hash;
};

static struct qmap *maps;
static size_t nr_maps, cap_maps;
static struct qjit *jits;
static size_t nr_jits, cap_jits; /* cap: a power of two */

static struct qmap *map_find(uint64_t addr)
{
	size_t i;

	for (i = 0; i < nr_maps; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &maps[i];
	return NULL;
}

void qp_maps_changed(uint64_t start, uint64_t len)
{
	size_t i = 0;

	while (i < nr_maps) {
		if (maps[i].start < start + len && start < maps[i].end)
			maps[i] = maps[--nr_maps];
		else
			i++;
	}
}

static struct qmap *map_add(uint64_t start, uint64_t end, bool jit)
{
	struct qmap *m;

	if (nr_maps == cap_maps) {
		size_t cap = cap_maps ? 2 * cap_maps : 32;

		m = realloc(maps, cap * sizeof(*m));
		if (!m)
			return NULL;
		maps = m;
		cap_maps = cap;
	}
	m = &maps[nr_maps++];
	m->start = start;
	m->end = end;
	m->jit = jit;
	return m;
}

/* The host mapping that holds host address @h, from /proc/self/maps. */
static int host_map(uint64_t h, struct emu_map *m, char *path, size_t size)
{
	char line[4200];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = emu_map_parse(line, m, path, size) && h >= m->start &&
			h < m->end;
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Code no file holds as it runs. */
static bool is_jit(const char *path)
{
	size_t n = strlen(path);

	return path[0] != '/' || !strcmp(path, "//anon") ||
	       (n > 10 && !strcmp(path + n - 10, " (deleted)"));
}

/*
 * An MMAP2 out (@err its error) at translation, after the last timestamp
 * of the trace (the thread's return from the kernel): with timing
 * packets, the thread's clock moves past it and a PSB+ at the next
 * branch gives the decoders a time after it, before they reach the new
 * code.
 */
static int announced(struct qthread *t, int err)
{
	if (!err && qp.timing && t->pt) {
		t->now = emu_sb_time();
		emu_pt_psb_next(t->pt);
	}
	return err;
}

static uint64_t hash_page(const uint8_t *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < PAGE; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h | 1;
}

static struct qjit *jit_slot(uint64_t page)
{
	size_t i, mask;
	struct qjit *old = jits, *j;
	size_t n = cap_jits;

	if (2 * (nr_jits + 1) > cap_jits) {
		cap_jits = cap_jits ? 2 * cap_jits : 64;
		jits = calloc(cap_jits, sizeof(*jits));
		if (!jits) {
			jits = old;
			cap_jits = n;
			return NULL;
		}
		nr_jits = 0;
		for (i = 0; i < n; i++)
			if (old[i].page) {
				j = jit_slot(old[i].page);
				j->page = old[i].page;
				j->hash = old[i].hash;
				nr_jits++;
			}
		free(old);
	}
	mask = cap_jits - 1;
	for (i = (page >> 12) & mask;; i = (i + 1) & mask)
		if (!jits[i].page || jits[i].page == page)
			return &jits[i];
}

/* The page at guest @page copied into the JIT file if it changed since
 * its last copy, and announced there. */
static int jit_page(struct qthread *t, uint64_t page)
{
	struct qemu_arena *a = qp.arena;
	uint8_t buf[PAGE];
	struct emu_map m;
	struct qjit *j;
	struct stat st;
	uint64_t h, off;

	if (a->jit_fd < 0 || qp_guest_read(page, buf, sizeof(buf)))
		return 0;
	h = hash_page(buf);
	j = jit_slot(page);
	if (!j)
		return -ENOMEM;
	if (j->page == page && j->hash == h)
		return 0;
	off = __atomic_fetch_add(&a->jit_off, PAGE, __ATOMIC_RELAXED);
	if (pwrite(a->jit_fd, buf, sizeof(buf), (off_t)off) != sizeof(buf) ||
	    fstat(a->jit_fd, &st))
		return -errno;
	if (!j->page)
		nr_jits++;
	j->page = page;
	j->hash = h;
	memset(&m, 0, sizeof(m));
	m.start = page;
	m.end = page + PAGE;
	m.pgoff = off;
	m.ino = st.st_ino;
	m.maj = major(st.st_dev);
	m.min = minor(st.st_dev);
	m.prot = PROT_READ | PROT_EXEC;
	return announced(t, emu_sb_mmap2(&qp.sb, t->pid, t->tid, &m,
					 a->jit_path, NULL, 0));
}

/* The mapping of guest @addr announced: its range known from now on. */
static struct qmap *announce(struct qthread *t, uint64_t addr)
{
	uint64_t base = (uint64_t)qp.guest_base;
	char path[4096];
	struct emu_map m;
	bool jit;

	if (host_map(addr + base, &m, path, sizeof(path)))
		return NULL;
	m.start -= base;
	m.end -= base;
	jit = is_jit(path);
	if (!jit && qp.trig.name[0])
		emu_trigger_map(&qp.trig, path, m.start, m.end, m.pgoff);
	if (!jit) {
		/* QEMU's own protection is not the guest's: code */
		m.prot = PROT_READ | PROT_EXEC;
		if (announced(t, emu_sb_mmap2(&qp.sb, t->pid, t->tid, &m, path,
					      NULL, 0)))
			return NULL;
	}
	return map_add(m.start, m.end, jit);
}

void qp_maps_code(struct qthread *t, uint64_t start, uint64_t end,
		  const uint8_t *host)
{
	uint64_t addr = start, page;
	struct qmap *m;

	while (addr < end) {
		m = map_find(addr);
		if (!m)
			m = announce(t, addr);
		if (!m)
			return; /* nothing maps it: QEMU would not run it */
		for (page = addr & ~(PAGE - 1);
		     m->jit && page < end && page < m->end; page += PAGE)
			if (jit_page(t, page))
				return;
		addr = m->end;
	}
}
