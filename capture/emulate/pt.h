/* SPDX-License-Identifier: MIT */
/*
 * The Intel PT packet generator of the emulated source: turns the executed
 * instructions of one thread into the packets user-only tracing would make
 * (PSB+, TIP.PGE/PGD, TNT, TIP, FUP, MODE.Exec, optional TSC, TMA, MTC, CBR
 * and CYC), with libipt's packet encoder.  Bytes go to an output callback in
 * chunks.
 *
 * The emulated clocks all derive from one clock callback counting TSC ticks
 * (the host clock's nanoseconds): the crystal clock (CTC) ticks every
 * EMU_PT_TSC_CTC_N / EMU_PT_TSC_CTC_D TSC ticks (25 MHz against a 1 GHz
 * TSC, as CPUID leaf 0x15 would say), and the core clock runs at the TSC's
 * rate (core:bus ratio EMU_PT_CBR, the max non-turbo ratio), so a cycle
 * count is a count of TSC ticks.
 */
#ifndef QPT_CAPTURE_EMU_PT_H
#define QPT_CAPTURE_EMU_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/emulate/insn.h"

struct emu_pt;

/* Receives encoded bytes; returns 0 or a negative error (passed back). */
typedef int (*emu_pt_out_fn)(void *ctx, const uint8_t *buf, size_t len);
/* The current time stamp counter value; never goes backwards. */
typedef uint64_t (*emu_pt_tsc_fn)(void *ctx);

#define EMU_PT_TSC_CTC_N 40 /* TSC ticks per CTC tick: numerator */
#define EMU_PT_TSC_CTC_D 1  /* and denominator */
#define EMU_PT_CBR 10	    /* core:bus ratio = max non-turbo ratio */

/*
 * The part of a generator's state a reader needs to finish the stream of
 * a thread that died with its bytes unsent (emu_pt_finish): where the
 * generator keeps it when the caller gives it a place (emu_pt_opts.live,
 * e.g. in memory shared with that reader), updated as packets are made.
 */
struct emu_pt_live {
	uint64_t tnt;	 /* TNT bits not yet in a packet, oldest highest */
	uint32_t tnt_n;	 /* how many */
	uint32_t staged; /* bytes made in the stage and not handed on */
	uint8_t enabled; /* tracing on (user context) */
	uint8_t pad[7];
};

/* The stage's size: bytes are handed on before it fills. */
#define EMU_PT_STAGE 8192

struct emu_pt_opts {
	bool retcomp;	     /* return compression (hardware default) */
	uint32_t psb_period; /* bytes between PSB+ (0: 4096) */
	uint32_t chunk;	     /* hand bytes on in chunks of about this
			      * size (0 or more than 8 KiB: 8 KiB) */
	emu_pt_tsc_fn clock; /* the TSC; NULL: no timing packets at all */
	void *clock_ctx;
	bool tsc;	     /* TSC (+ TMA with mtc) in PSB+ and at TIP.PGE */
	bool mtc;	     /* MTC when CTC bit mtc_period changes */
	bool cyc;	     /* CYC before branch packets and MTC, CBR in
			      * PSB+ */
	uint8_t mtc_period;  /* 0..15: MTC payload is CTC[period+7:period] */
	uint8_t cyc_thresh;  /* 0..15: CYC only for >= 2^(n-1) cycles */
	/* Where the unsent state and the EMU_PT_STAGE bytes of the stage
	 * live (both or neither; NULL: the generator's own). */
	struct emu_pt_live *live;
	uint8_t *stage;
};

/* Returns NULL when out of memory. */
struct emu_pt *emu_pt_new(const struct emu_pt_opts *opts, emu_pt_out_fn out,
			  void *out_ctx);
void emu_pt_free(struct emu_pt *pt);

/* Tracing is switched on while the thread is in the kernel: PSB+. */
int emu_pt_start(struct emu_pt *pt);
/* libipt's message for the last encoder failure (the calls below return
 * it as -QPT_E_INVAL, -QPT_E_FORMAT, -QPT_E_UNSUPPORTED, -ENOBUFS or
 * -ENOMEM), or NULL; a static string. */
const char *emu_pt_errstr(const struct emu_pt *pt);
/* The instruction at @ip retired and execution continued at @next. */
int emu_pt_insn(struct emu_pt *pt, uint64_t ip, const struct emu_insn *insn,
		uint64_t next);
/*
 * @trips trips of a loop whose @m conditional jumps, at @ip[i], went each
 * way @taken[i] says, with no other packet between them (straight-line
 * code and direct jumps): the packets emu_pt_insn would make for each
 * jump in turn, all at one time (the loop ran before they are told).
 * PSB+ goes where the period puts it, before a jump (its FUP).
 */
int emu_pt_jccs(struct emu_pt *pt, const uint64_t *ip, const bool *taken,
		unsigned int m, uint64_t trips);
/* An interrupt or exception entered the kernel before the instruction at
 * @ip executed (signal, fault): FUP + TIP.PGD while enabled. */
int emu_pt_async(struct emu_pt *pt, uint64_t ip);
/* Instructions from @from on ran, up to @to, and what they did cannot be
 * told (a lost single-step trap after which what ran is not known): the
 * trace stops before @from (FUP + TIP.PGD), an overflow (OVF) says packets
 * were lost, and tracing goes on at @to (TIP.PGE, full address). */
int emu_pt_gap(struct emu_pt *pt, uint64_t from, uint64_t to);
/* A PSB+ at the next branch (where the periodic ones go): the bytes from
 * there on decode without the ones before (after a snapshot, as the
 * hardware starts again with a PSB when re-enabled). */
void emu_pt_psb_next(struct emu_pt *pt);
/* Hand every byte made so far to the output (pending TNT bits included). */
int emu_pt_flush(struct emu_pt *pt);
/* Hand the packets made so far to the output, keeping pending TNT bits
 * (the hardware's buffers do not hold bytes back for long). */
int emu_pt_drain(struct emu_pt *pt);
/* Whether the thread is currently in traced (user) context. */
bool emu_pt_enabled(const struct emu_pt *pt);
/*
 * The end of the stream of a thread that died before it handed its bytes
 * on, from what emu_pt_live says (another process's, read once it ended):
 * the TNT bits pending and, while it was traced, FUP @ip (where it was,
 * sign-extended 48 bits: the stream's last IP is not needed) and
 * TIP.PGD.  The stage's bytes come first and are the caller's to copy.
 * Writes at most 32 bytes into @buf; returns their count, or -QPT_E_INVAL
 * (a state that cannot be: more TNT bits than a packet holds, @size too
 * small).
 */
int emu_pt_finish(const struct emu_pt_live *live, uint64_t ip, uint8_t *buf,
		  size_t size);
/* Total bytes generated. */
uint64_t emu_pt_bytes(const struct emu_pt *pt);

#endif
