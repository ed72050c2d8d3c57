// SPDX-License-Identifier: MIT
/* Code page and instruction caches and executable-mapping tracking of a
 * traced process. */
#include "capture/emulate/proc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "capture/emulate/fast.h"

struct emu_proc *emu_proc_new(pid_t pid)
{
	struct emu_proc *proc;

	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return NULL;
	proc->pid = pid;
	proc->pages = malloc((size_t)EMU_CODE_SLOTS * EMU_PAGE);
	proc->scratch = malloc(EMU_PAGE);
	proc->insns = qx86_cache_new(EMU_INSN_ORDER);
	if (!proc->pages || !proc->scratch || !proc->insns) {
		emu_proc_free(proc);
		return NULL;
	}
	emu_proc_flush_code(proc);
	return proc;
}

static void free_maps(struct emu_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

void emu_proc_free(struct emu_proc *proc)
{
	if (!proc)
		return;
	free_maps(proc->maps, proc->nr_maps);
	free(proc->pages);
	free(proc->scratch);
	qx86_cache_free(proc->insns);
	emu_fast_put(proc->fast);
	free(proc);
}

void emu_proc_flush_code(struct emu_proc *proc)
{
	size_t i;

	for (i = 0; i < EMU_CODE_SLOTS; i++)
		proc->page_addr[i] = 1;
	qx86_cache_forget(proc->insns);
}

/* The page @page of the tracee into @dst as the program wrote it (the
 * breakpoint engine's bytes put back): 0, or -1 if unreadable. */
static int read_page(struct emu_proc *proc, pid_t tid, uint64_t page,
		     uint8_t *dst)
{
	struct iovec local, remote;

	local.iov_base = dst;
	local.iov_len = EMU_PAGE;
	remote.iov_base = (void *)(uintptr_t)page;
	remote.iov_len = EMU_PAGE;
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)EMU_PAGE)
		return -1;
	if (proc->fast)
		emu_fast_patch(proc->fast, page, dst);
	return 0;
}

/* The copy of the page holding @addr (cached where its code is fixed),
 * or NULL if unreadable. */
static const uint8_t *code_page(struct emu_proc *proc, pid_t tid,
				 uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)(EMU_PAGE - 1);
	size_t slot = (size_t)(page / EMU_PAGE) % EMU_CODE_SLOTS;
	uint8_t *dst = proc->pages + slot * EMU_PAGE;

	if (!emu_proc_fixed(proc, addr, 1))
		return read_page(proc, tid, page, proc->scratch)
			   ? NULL
			   : proc->scratch;
	if (proc->page_addr[slot] == page)
		return dst;
	if (read_page(proc, tid, page, dst)) {
		proc->page_addr[slot] = 1;
		return NULL;
	}
	proc->page_addr[slot] = page;
	return dst;
}

size_t emu_proc_code(struct emu_proc *proc, pid_t tid, uint64_t addr,
		     uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done;
		size_t in_page = EMU_PAGE - (size_t)(a & (EMU_PAGE - 1));
		size_t n = len - done < in_page ? len - done : in_page;
		const uint8_t *page = code_page(proc, tid, a);

		if (!page)
			break;
		memcpy(buf + done, page + (a & (EMU_PAGE - 1)), n);
		done += n;
	}
	return done;
}

const struct qx86_insn *emu_proc_insn(struct emu_proc *proc, pid_t tid,
				      uint64_t addr)
{
	const struct qx86_cached *e = qx86_cache_find(proc->insns, addr, 64);
	uint8_t buf[15];
	size_t n;

	if (e)
		return &e->insn;
	n = emu_proc_code(proc, tid, addr, buf, sizeof(buf));
	if (!n)
		return NULL;
	if (!emu_proc_fixed(proc, addr, n)) /* it may change: not kept */
		return qx86_decode(proc->insns->x, buf, n, 64, addr,
				   &proc->scratch_insn) < 0
			   ? NULL
			   : &proc->scratch_insn;
	if (qx86_cache_add(proc->insns, addr, 64, buf, n, &e) < 0)
		return NULL;
	return &e->insn;
}

/* The executable mapping holding @addr, or NULL. */
static const struct emu_map *map_of(struct emu_proc *proc, uint64_t addr)
{
	size_t i;

	if (proc->last_map < proc->nr_maps &&
	    addr >= proc->maps[proc->last_map].start &&
	    addr < proc->maps[proc->last_map].end)
		return &proc->maps[proc->last_map];
	for (i = 0; i < proc->nr_maps; i++)
		if (addr >= proc->maps[i].start && addr < proc->maps[i].end) {
			proc->last_map = i;
			return &proc->maps[i];
		}
	return NULL;
}

bool emu_proc_known(struct emu_proc *proc, uint64_t addr)
{
	return map_of(proc, addr) != NULL;
}

bool emu_proc_fixed(struct emu_proc *proc, uint64_t addr, size_t len)
{
	const struct emu_map *m = map_of(proc, addr);

	return m && !m->shared && !(m->prot & PROT_WRITE) &&
	       len <= m->end - addr;
}

/* Whether @m is one of the @n mappings @maps. */
static bool map_in(const struct emu_map *m, const struct emu_map *maps,
		   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct emu_map *k = &maps[i];

		if (k->start == m->start && k->end == m->end &&
		    k->pgoff == m->pgoff && k->ino == m->ino &&
		    k->prot == m->prot && k->shared == m->shared &&
		    !strcmp(k->path, m->path))
			return true;
	}
	return false;
}

static int parse_line(const char *line, struct emu_map *m)
{
	char path[4096];

	if (!emu_map_parse(line, m, path, sizeof(path)) ||
	    !(m->prot & PROT_EXEC))
		return 0;
	m->path = strdup(path);
	return m->path ? 1 : -ENOMEM;
}

int emu_proc_scan_maps(struct emu_proc *proc, pid_t tid, bool reset,
		       emu_map_fn fn, void *ctx)
{
	struct emu_map *maps = NULL, *tmp;
	size_t n = 0, cap = 0, i;
	char name[64], line[4200];
	FILE *f;
	int err = 0, r;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	if (reset) {
		free_maps(proc->maps, proc->nr_maps);
		proc->maps = NULL;
		proc->nr_maps = 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			tmp = realloc(maps, cap * sizeof(*maps));
			if (!tmp) {
				err = -ENOMEM;
				break;
			}
			maps = tmp;
		}
		r = parse_line(line, &maps[n]);
		if (r < 0) {
			err = r;
			break;
		}
		if (!r)
			continue;
		if (!map_in(&maps[n], proc->maps, proc->nr_maps)) {
			err = fn(ctx, &maps[n]);
			if (err < 0) {
				n++;
				break;
			}
		}
		n++;
	}
	fclose(f);
	if (err < 0) {
		free_maps(maps, n);
		return err;
	}
	for (i = 0; i < proc->nr_maps && !proc->maps_gone; i++)
		proc->maps_gone = !map_in(&proc->maps[i], maps, n);
	free_maps(proc->maps, proc->nr_maps);
	proc->maps = maps;
	proc->nr_maps = n;
	proc->last_map = 0;
	return 0;
}
