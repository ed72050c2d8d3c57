// SPDX-License-Identifier: MIT
/*
 * The executable mappings of a traced process, as the ptrace engine sees
 * them come: each announced with an MMAP2 record (the vDSO's bytes kept
 * for the decoder), --snapshot-on addresses placed in them, and where
 * code went or changed, the cached code and the breakpoint engine's
 * breakpoints there dropped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "capture/emulate/trace_priv.h"
#include "capture/synth.h"

struct map_ctx {
	struct emu_tracer *tr;
	struct emu_thread *t;
};

/* The bytes of [vdso] to the sink, and its build-id (*@bid_len 0 when
 * none) for its MMAP2. */
static int keep_vdso(struct emu_thread *t, const struct emu_map *map,
		     uint8_t bid[20], size_t *bid_len)
{
	size_t len = (size_t)(map->end - map->start);
	struct iovec local, remote;
	struct emu_tracer *tr = t->tr;
	uint8_t *buf;
	int n, err;

	*bid_len = 0;
	if (!len || len > (64u << 20))
		return 0;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)map->start;
	remote.iov_len = len;
	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)len) {
		emu_tr_log(tr, QPT_LOG_WARN, "cannot read [vdso]: %s",
			   strerror(errno));
		free(buf);
		return 0;
	}
	n = qpt_build_id_mem(buf, len, bid, 20);
	*bid_len = n > 0 ? (size_t)n : 0;
	err = tr->sb.ops->vdso ? tr->sb.ops->vdso(tr->sb.ctx, t->pid, buf, len,
						  bid, *bid_len)
			       : 0;
	free(buf);
	return err;
}

static int on_map(void *ctx, const struct emu_map *map)
{
	struct map_ctx *mc = ctx;
	uint8_t bid[20];
	size_t bid_len = 0;
	int err;

	struct emu_trigger *trig = mc->tr->opts->trigger;
	unsigned int nr;

	if (!strcmp(map->path, "[vsyscall]") || mc->t->silent)
		return 0;
	if (trig && (map->prot & PROT_EXEC)) {
		nr = trig->nr;
		emu_trigger_map(trig, map->path, map->start, map->end,
				map->pgoff);
		/* blocks must now stop before the new address */
		if (trig->nr != nr && mc->t->proc->fast)
			emu_fast_forget_blocks(mc->t->proc->fast);
	}
	if (!strcmp(map->path, "[vdso]")) {
		err = keep_vdso(mc->t, map, bid, &bid_len);
		if (err)
			return err;
	}
	return emu_sb_mmap2(&mc->tr->sb, mc->t->pid, mc->t->tid, map, map->path,
			    bid, bid_len);
}

int emu_tr_scan_maps(struct emu_thread *t, bool reset)
{
	struct map_ctx mc = {t->tr, t};
	struct emu_code c;
	int err;

	if (reset && t->tr->opts->trigger)
		emu_trigger_reset(t->tr->opts->trigger);
	err = emu_proc_scan_maps(t->proc, t->tid, reset, on_map, &mc);
	if (err || !t->proc->maps_gone)
		return err;
	/* code went or changed: no cached copy of it, and no breakpoint
	 * where code may now be written */
	t->proc->maps_gone = false;
	emu_proc_flush_code(t->proc);
	if (!t->proc->fast)
		return 0;
	emu_run_code(t, &c);
	err = emu_fast_remap(t->proc->fast, &c);
	return err == -ESRCH ? 0 : err;
}
