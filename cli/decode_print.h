/* SPDX-License-Identifier: MIT */
/*
 * qpt decode's output: the text and JSON forms of instructions, branches,
 * calls and events (perf script's layout for text), through the writer
 * of out.h, with a specialised path for every instruction.
 */
#ifndef QPT_CLI_DECODE_PRINT_H
#define QPT_CLI_DECODE_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "qpt/decode.h"

enum mode { MODE_INSN, MODE_BRANCHES, MODE_CALLS };

#define MAX_LIST 64

struct ring {
	int32_t tid;
	struct qpt_item *items;
	char **msgs;	/* the items' messages, owned (msg is borrowed) */
	int *depths;	/* --calls: the items' call depths */
	uint64_t count; /* items ever pushed */
};

/* --calls: a thread's call depth so far */
struct thread_depth {
	int32_t tid;
	int depth;
};

/* Symbol names seen lately, by address: their length and whether they
 * need escaping. */
#define SYM_CACHE 256

/* Instruction texts by ip, bytes and mode, in sets of ASM_WAYS; texts
 * longer than ASM_TEXT are made for each line. */
#define ASM_SETS 8192
#define ASM_WAYS 4
#define ASM_TEXT 80

struct asm_ent {
	uint64_t ip;
	uint64_t key[2]; /* the bytes, the size and the mode; 0: empty */
	uint8_t len;
	char s[ASM_TEXT];
};

/* Text instruction lines after their prefix, by ip, symbol, bytes and
 * mode: direct-mapped by the ip's low bits (the lines of a block are
 * near one another), one entry two cache lines; lines longer than
 * LINE_TEXT are made each time. */
#define LINE_SETS 8192
#define LINE_TEXT 80 /* a multiple of 16: copied in 16-byte pieces */

struct line_ent {
	uint64_t ip;
	const char *sym;
	uint64_t symoff;
	uint8_t raw[15];
	uint8_t size, mode;
	uint8_t len; /* 0: empty */
	char s[128 - 42];
} __attribute__((aligned(64)));

/* Text branch lines after their prefix, by kind, reason, addresses and
 * symbols: direct-mapped by the addresses (a loop repeats its branches),
 * one entry four cache lines; lines longer than BR_TEXT are made each
 * time. */
#define BR_SETS_ORDER 12
#define BR_SETS (1u << BR_SETS_ORDER)
#define BR_TEXT 192 /* a multiple of 16: copied in 16-byte pieces */

struct br_ent {
	uint64_t ip, to;
	const char *sym, *to_sym;
	uint64_t symoff, to_symoff;
	uint8_t kind, via;
	uint8_t len; /* 0: empty */
	char s[256 - 51];
} __attribute__((aligned(64)));

/* The text lines after their prefix of a run of branches (qpt_item's
 * @run), as printed the last time, by run id: direct-mapped; runs of
 * more than RUN_LINES lines or RUN_TEXT bytes are printed line by line.
 * A line's text is copied in 16-byte pieces: room for the last one's.
 * An entry is a page: RUN_LINES lines of ~120 bytes (a branch with two
 * symbols) fit.  With half a page, most runs of 23 or more such lines
 * were copied in line by line each time and never kept (arcus-hello: 9 in
 * 10 runs begun), and --branches on 40 copies was 10% slower. */
#define RUN_SETS 1024
#define RUN_LINES 32
#define RUN_TEXT (4096 - 8 - 2 - 1 - RUN_LINES - 16)

struct run_ent {
	uint64_t run; /* 0: none (being made) */
	uint16_t len;
	uint8_t n;
	uint8_t line[RUN_LINES]; /* each line's bytes */
	char s[RUN_TEXT + 16];
} __attribute__((aligned(64)));

/*
 * A printer's caches, in the order a small trace's lines touch them: what
 * every mode uses first and the branches' lines, then the instructions'
 * lines or the branches' runs (which share their place), the
 * instructions' text last.  On huge pages (printer_new) each 2 MiB
 * touched is resident whole: the text cache, unused with --no-asm and by
 * branches, shares none with the caches those use; a printer that prints
 * no item (--stats, --coverage, --lbr, the views, -j's main one) touches
 * none.
 */
struct print_cache {
	struct {
		const char *s;
		size_t len;
		bool plain;
	} syms[SYM_CACHE];
	/* formatted 16-wide addresses, by address */
	struct {
		uint64_t v;
		char s[16];
	} hex16[16384];
	struct br_ent br_lines[BR_SETS];
	/* a printer uses one of the two: the runs with --branches (see
	 * print_run), the lines in any other mode (line_at) */
	union {
		struct line_ent lines[LINE_SETS];
		struct run_ent runs[RUN_SETS];
	};
	struct asm_ent asm_cache[ASM_SETS * ASM_WAYS];
};

struct printer {
	enum mode mode;
	bool json, events, no_sym;
	bool no_asm; /* instructions without their text (--no-asm) */
	bool srcline; /* instructions and branches with file:line */
	bool plain; /* no filter applies to instructions */
	bool plain_branch; /* ... nor to branches, printed as branches */
	unsigned fields; /* -F: the enum field set; 0: qpt's own layout */
	/* --itrace: errors shown only with e; branches of the kinds in
	 * br_mask only (c, r: 1u << qpt_branch_kind) when br_filter */
	bool itrace, itrace_errors, br_filter;
	uint32_t br_mask;
	/* --itrace=iPERIOD: an instruction every @period instructions
	 * (period_insns) or nanoseconds of each queue */
	uint64_t period;
	bool period_insns;
	struct sampler {
		unsigned queue;
		uint64_t n; /* instructions, or the period's window */
	} *samplers;
	size_t nr_samplers;
	/* filters */
	int32_t tids[MAX_LIST], cpus[MAX_LIST];
	unsigned nr_tids, nr_cpus;
	bool has_time;
	uint64_t t_start, t_end;
	const char *sym;
	uint64_t last;
	struct ring *rings;
	size_t nr_rings;
	/* --calls: each thread's depth (sorted by tid), and the depth of
	 * the call or return printed next */
	struct thread_depth *depths;
	size_t nr_depths, cap_depths;
	int call_depth;
	/* the run whose lines are being kept (run_rec: its entry) and the
	 * lines of it still to come */
	struct run_ent *run_rec;
	uint64_t run_id;
	uint32_t run_left;
	unsigned asm_clock; /* which way of a set to replace */
	/* "  FLAGS" padded for each branch kind and trace-end reason */
	char flags[QPT_BR_NR][QPT_BR_NR + 1][26];
	/* the last prefix (text) or tid, cpu and time members (JSON) */
	char pfx[96];
	size_t pfx_len;
	bool pfx_valid;
	unsigned pfx_flags;
	int32_t pfx_tid, pfx_cpu;
	uint64_t pfx_time;
	/* progress on a terminal */
	struct cli_meter meter;
	/* standard output */
	struct out w;
	char buf[1 << 16];
	struct print_cache *c; /* printer_new's */
};

/* A printer zeroed, its caches apart (on huge pages where they can be:
 * they are touched all over, and only by a printer that prints items);
 * NULL: out of memory. */
struct printer *printer_new(void);
void printer_free(struct printer *o);
/* Prepare the writer (standard output) and the tables the printers use
 * (once, after the options). */
void decode_print_init(struct printer *o);
/*
 * Branch item @it, which begins a run (its @run set), of a printer with
 * plain_branch: 1 when its run's lines are known (made the last time)
 * and are printed (the run's items are not needed), else 0: the run's
 * lines are kept as print_item makes them.
 */
int print_run(struct printer *o, const struct qpt_item *it);
/* Any other item: a run being kept ends (kept when it is whole). */
static inline void print_run_note(struct printer *o,
				  const struct qpt_item *it)
{
	if (o->run_left && (it->type != QPT_ITEM_BRANCH || it->run))
		o->run_left = 0;
}
/*
 * --calls: the call depth of @it, a call or return of its thread, counted
 * over every item of the thread, printed or not (--sym, --time and --last
 * leave out lines, never depth), into o->call_depth for print_item.
 * Other items change nothing.  Returns 0 or -ENOMEM.
 */
int decode_call_depth(struct printer *o, const struct qpt_item *it);
/* Whether @it is a call or a return (a line of --calls). */
bool decode_is_call(const struct qpt_item *it);
/* Print one item in the form o->mode and o->json choose (a call or return
 * at o->call_depth); a write error is kept in o->w.err. */
void print_item(struct printer *o, const struct qpt_item *it);
/* A name the decoder gave (a symbol, a source file: they live as long as
 * the decoder): as it is when it needs no escaping (known by its
 * address), else escaped. */
void print_name(struct printer *o, const char *s);
/* Print one instruction (the unfiltered fast path). */
void print_insn(struct printer *o, const struct qpt_item *it);

#endif
