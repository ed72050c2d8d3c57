// SPDX-License-Identifier: MIT
/*
 * libFuzzer target, differential: qpt's fast block decoder (decode/
 * fastpt.c, fastblk.c, runs.c, flow_engine.c) must give the items
 * libipt's block decoder alone gives (opts.libipt_only), item for item
 * (type, kind, addresses, instruction bytes, flags, times, trace offsets,
 * messages), on any bare PT stream over the sysroot's program (but one
 * that may switch to 16- or 32-bit code: legacy_mode), as the
 * decoder's contract says (include/qpt/decode.h); and so must its
 * branches without instructions, which take the path cache (flow_path.c:
 * paths through returns to the caller and to an indirect branch's TIP).
 * Seeds: the trace bytes of fuzz/seeds/fuzz_decode (*.pt).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/common.h"

#define WANT (QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT)
#define WANT_PATHS (QPT_WANT_BRANCH | QPT_WANT_EVENT)
/* The items compared: the run stops there (see fz_item_sink: a few bytes
 * can say millions of instructions, the same code again and again). */
#define MAX_ITEMS 512

/* What of an item both engines must agree on. */
struct seen {
	unsigned type, kind, via, flags;
	uint64_t ip, to, value, time, offset;
	uint8_t size, mode, raw[15];
	char msg[96];
};

struct log {
	struct seen *s;
	size_t n;
};

static int keep(const struct qpt_item *it, void *ctx)
{
	struct log *l = ctx;
	struct seen *s;

	fz_item_sink(it, NULL);
	if (l->n == MAX_ITEMS)
		return -1;
	s = &l->s[l->n++];
	memset(s, 0, sizeof(*s));
	s->type = it->type;
	s->kind = it->kind;
	s->via = it->via;
	s->flags = it->flags;
	s->ip = it->ip;
	s->to = it->to;
	s->value = it->value;
	s->time = it->time;
	s->offset = it->offset;
	s->size = it->size;
	s->mode = it->mode;
	memcpy(s->raw, it->raw, it->size < 15 ? it->size : 15);
	if (it->msg)
		snprintf(s->msg, sizeof(s->msg), "%s", it->msg);
	return 0;
}

/* Say where the two differ, for whoever reads the crash report. */
static void show(const char *who, size_t i, const struct seen *s)
{
	fprintf(stderr,
		"  %s item %zu: type %u kind %u via %u flags 0x%x ip 0x%llx "
		"to 0x%llx value 0x%llx time %llu offset 0x%llx size %u "
		"mode %u msg '%s'\n",
		who, i, s->type, s->kind, s->via, s->flags,
		(unsigned long long)s->ip, (unsigned long long)s->to,
		(unsigned long long)s->value, (unsigned long long)s->time,
		(unsigned long long)s->offset, s->size, s->mode, s->msg);
}

/*
 * Whether @data may hold a MODE.Exec of 16- or 32-bit code (0x99, then a
 * byte of leaf 0 without CS.L).  libipt keeps what it decoded of a
 * section (its block cache) while the section stays mapped, across runs,
 * and a block found again keeps the mode it was first decoded in
 * (pt_blk_proceed_no_event_cached), whatever the mode now: code run in
 * two modes, which no recording has, decodes in the first (wrong sizes,
 * or libipt's "internal error").  Such an input is decoded by decoders
 * of its kind (the blocks it leaves must not meet the inputs compared),
 * and the two engines are not compared on it: the fast decoder leaves
 * such code to libipt, but decodes 64-bit code in 64-bit mode where
 * libipt may not.
 */
static bool legacy_mode(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size; i++)
		if (data[i] == 0x99 && !(data[i + 1] >> 5) &&
		    !(data[i + 1] & 1))
			return true;
	return false;
}

/* @fast's and @ref's items of @data the same (unless @legacy). */
static void compare(struct qpt_decoder *fast, struct qpt_decoder *ref,
		    const uint8_t *data, size_t size, bool legacy)
{
	static struct seen a[MAX_ITEMS], b[MAX_ITEMS];
	struct log la = {a, 0}, lb = {b, 0};
	size_t i;

	qpt_decoder_run_raw(fast, data, size, keep, &la);
	qpt_decoder_run_raw(ref, data, size, keep, &lb);
	if (legacy)
		return;
	for (i = 0; i < la.n && i < lb.n; i++)
		if (memcmp(&a[i], &b[i], sizeof(a[i]))) {
			show("fast", i, &a[i]);
			show("libipt", i, &b[i]);
			fz_fail("the fast block decoder and libipt's differ");
		}
	if (la.n != lb.n)
		fz_fail("the fast block decoder and libipt's differ in count");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* made once: for the inputs compared and for the others, a pair
	 * with instructions and a pair with branches alone (paths) */
	static struct qpt_decoder *kept[2][4];
	bool legacy = legacy_mode(data, size);
	struct qpt_decoder **d = kept[legacy];

	if ((!d[0] && !(d[0] = fz_decoder(WANT))) ||
	    (!d[1] && !(d[1] = fz_decoder(WANT | FZ_LIBIPT))) ||
	    (!d[2] && !(d[2] = fz_decoder(WANT_PATHS))) ||
	    (!d[3] && !(d[3] = fz_decoder(WANT_PATHS | FZ_LIBIPT))))
		return 0;
	compare(d[0], d[1], data, size, legacy);
	compare(d[2], d[3], data, size, legacy);
	return 0;
}
