/* SPDX-License-Identifier: MIT */
/*
 * Per-process state of the emulated source: a cache of the tracee's code
 * pages (read with process_vm_readv) and of its instructions decoded by
 * the x86 layer, and the executable mappings already announced with
 * MMAP2, re-read from /proc/PID/maps when they may change.
 */
#ifndef QPT_CAPTURE_EMU_PROC_H
#define QPT_CAPTURE_EMU_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "auxfmt/x86/x86.h"

#define EMU_CODE_SLOTS 256
#define EMU_PAGE 4096u
#define EMU_INSN_ORDER 13 /* 2^13 decoded instructions */

struct emu_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot;
	bool shared; /* MAP_SHARED */
	char *path;
};

struct emu_fast;

struct emu_proc {
	pid_t pid;
	uint64_t page_addr[EMU_CODE_SLOTS]; /* 1 = empty slot */
	uint8_t *pages;			    /* EMU_CODE_SLOTS pages */
	struct qx86_cache *insns;	    /* decoded from the pages */
	struct emu_map *maps;
	size_t nr_maps;
	size_t last_map; /* where the last lookup hit */
	bool maps_gone;	 /* a scan found an executable mapping gone or
			  * changed since the one before */
	struct emu_fast *fast; /* the breakpoint engine's (may be NULL):
				* code read is patched with it */
	uint8_t *scratch;      /* a page of code that is not cached */
	struct qx86_insn scratch_insn;
};

struct emu_proc *emu_proc_new(pid_t pid);
void emu_proc_free(struct emu_proc *proc);
/* Forget every cached page and instruction (exec, mmap, mprotect,
 * munmap). */
void emu_proc_flush_code(struct emu_proc *proc);
/*
 * Copy up to @len bytes of code at @addr into @buf, read through thread
 * @tid of the process (a live one: a leader that has exited alone has no
 * memory left to read).  Returns how many were readable (0 when none).
 */
size_t emu_proc_code(struct emu_proc *proc, pid_t tid, uint64_t addr,
		     uint8_t *buf, size_t len);

/*
 * The instruction at @addr, decoded from the cached code (read through
 * @tid as emu_proc_code does; kept until the code is flushed): NULL when
 * its bytes cannot be read or do not decode.
 */
const struct qx86_insn *emu_proc_insn(struct emu_proc *proc, pid_t tid,
				      uint64_t addr);

/* Whether @addr lies in an executable mapping already announced. */
bool emu_proc_known(struct emu_proc *proc, uint64_t addr);
/* Whether [@addr, @addr + @len) lies in one executable mapping that is
 * private and not writable: code that changes only by system calls, so
 * that it is cached (code elsewhere is read anew each time). */
bool emu_proc_fixed(struct emu_proc *proc, uint64_t addr, size_t len);

/* Called for each executable mapping not announced before. */
/*
 * One line of /proc/PID/maps into @m: its range, offset, device, inode,
 * protection (PROT_READ, PROT_WRITE, PROT_EXEC as the line says), whether
 * shared, and its path into @path (@size bytes; "//anon" where the line
 * names none), which @m->path then points at.  Returns 1, or 0 when the
 * line does not parse.
 */
int emu_map_parse(const char *line, struct emu_map *m, char *path,
		  size_t size);

typedef int (*emu_map_fn)(void *ctx, const struct emu_map *map);
/*
 * Re-read the maps (/proc/TID/maps of live thread @tid); call @fn for
 * every executable mapping that is new since the last scan (@reset: forget
 * them all first, after exec); set maps_gone when one known before is
 * gone or changed.  Returns 0, -errno, or what @fn returned.
 */
int emu_proc_scan_maps(struct emu_proc *proc, pid_t tid, bool reset,
		       emu_map_fn fn, void *ctx);

#endif
