/* SPDX-License-Identifier: MIT */
/*
 * qpt decode's output: the buffered writer and the text and JSON forms of
 * instructions, branches, calls and events (perf script's layout for text).
 */
#ifndef QPT_CLI_DECODE_PRINT_H
#define QPT_CLI_DECODE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "qpt/decode.h"

enum mode { MODE_INSN, MODE_BRANCHES, MODE_CALLS };

#define MAX_LIST 64

struct ring {
	int32_t tid;
	struct qpt_item *items;
	uint64_t count; /* items ever pushed */
};

struct out {
	enum mode mode;
	bool json, events, no_sym;
	bool plain; /* no filter applies to instructions */
	/* filters */
	int32_t tids[MAX_LIST], cpus[MAX_LIST];
	unsigned nr_tids, nr_cpus;
	bool has_time;
	uint64_t t_start, t_end;
	const char *sym;
	uint64_t last;
	struct ring *rings;
	size_t nr_rings;
	/* --calls */
	int depth;
	const char *sym_last;
	size_t sym_len;
	/* formatted 16-wide addresses, by address */
	struct {
		uint64_t v;
		char s[16];
	} hex16[16384];
	/* "  FLAGS" padded for each branch kind and trace-end reason */
	char flags[QPT_BR_NR][QPT_BR_NR + 1][26];
	/* the last text prefix */
	char pfx[64];
	size_t pfx_len;
	bool pfx_valid;
	unsigned pfx_flags;
	int32_t pfx_tid, pfx_cpu;
	uint64_t pfx_time;
	/* buffer */
	char buf[1 << 16];
	size_t len;
	int err; /* write error */
	/* progress */
	bool progress;
	uint64_t seen;
	struct timespec t0, tlast;
	bool shown;
};

/* Prepare the tables the printers use (once, after the options). */
void decode_print_init(struct out *o);
/* Write out what is buffered; a write error is kept in o->err. */
void out_flush(struct out *o);
/* Print one item in the form o->mode and o->json choose. */
void print_item(struct out *o, const struct qpt_item *it);
/* Print one instruction (the unfiltered fast path). */
void print_insn(struct out *o, const struct qpt_item *it);

#endif
