// SPDX-License-Identifier: MIT
/*
 * libFuzzer target, differential: qpt's fast block decoder (decode/
 * fastpt.c, fastblk.c, runs.c, flow_engine.c) must give the items
 * libipt's block decoder alone gives (opts.libipt_only), item for item
 * (type, kind, addresses, instruction bytes, flags, times, trace offsets,
 * messages), on any bare PT stream over the sysroot's program, as the
 * decoder's contract says (include/qpt/decode.h).  Seeds: the trace bytes
 * of fuzz/seeds/fuzz_decode (*.pt).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/common.h"

#define WANT (QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct qpt_decoder *fast, *ipt; /* made once for every input */
	static struct seen a[MAX_ITEMS], b[MAX_ITEMS];
	struct log la = {a, 0}, lb = {b, 0};
	size_t i;

	if ((!fast && !(fast = fz_decoder(WANT))) ||
	    (!ipt && !(ipt = fz_decoder(WANT | FZ_LIBIPT))))
		return 0;
	qpt_decoder_run_raw(fast, data, size, keep, &la);
	qpt_decoder_run_raw(ipt, data, size, keep, &lb);
	for (i = 0; i < la.n && i < lb.n; i++)
		if (memcmp(&a[i], &b[i], sizeof(a[i]))) {
			show("fast", i, &a[i]);
			show("libipt", i, &b[i]);
			fz_fail("the fast block decoder and libipt's differ");
		}
	if (la.n != lb.n)
		fz_fail("the fast block decoder and libipt's differ in count");
	return 0;
}
