// SPDX-License-Identifier: MIT
/*
 * The x86 layer's fast path (auxfmt/x86/fast.c) against Zydis on every
 * form it takes: each prefix set it accepts (none, 66, FS, GS, each REX),
 * each opcode of the one-byte and 0F maps, each ModRM, SIBs with and
 * without a base, each length it may be cut to; the bytes that follow
 * (displacements, immediates) are pseudo-random from a fixed seed.
 * Wherever the fast path decodes, the result must be Zydis's to the
 * byte; wherever Zydis fails, the fast path must decline.  Prints how
 * many forms the fast path took.  test_x86_objdump compares the two on
 * every instruction of the test programs as well.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "auxfmt/x86/x86_priv.h"

static struct qx86 *x86;
static unsigned long taken, checked, failed;
static bool shown[2][256]; /* a difference shown for this map, opcode */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t next_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static void dump(const char *what, const uint8_t *p, size_t n)
{
	size_t i;

	fprintf(stderr, "%s:", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %02x", p[i]);
	fprintf(stderr, "\n");
}

static void show(const char *who, int len, const struct qx86_insn *i)
{
	fprintf(stderr,
		"%s: %d len %u cls %u cond %u flags %u asz %u imm %u target "
		"%#llx opnd %u %d %d %u %u %u %#llx\n",
		who, len, i->len, i->cls, i->cond, i->flags, i->asz, i->imm,
		(unsigned long long)i->target, i->opnd.type, i->opnd.base,
		i->opnd.index, i->opnd.scale, i->opnd.seg, i->opnd.size,
		(unsigned long long)i->opnd.disp);
}

/* A difference: shown once for each opcode (at @op in @p); true when
 * shown now. */
static bool differs(const char *what, const uint8_t *p, size_t n, size_t op)
{
	bool *s = p[op] == 0x0f ? &shown[1][p[op + 1]] : &shown[0][p[op]];

	failed++;
	if (*s)
		return false;
	*s = true;
	dump(what, p, n);
	return true;
}

/* The fast path and Zydis on @p (16 bytes; the opcode at @op), whole and
 * cut short. */
static void check(const uint8_t *p, size_t n, size_t op)
{
	struct qx86_insn f, z;
	uint64_t ip = 0x7ffff7dd0000ull + next_byte() * 0x1000u;
	int lf, lz;

	checked++;
	lf = qx86_fast(p, n, ip, &f);
	if (lf <= 0)
		return;
	taken++;
	lz = qx86_decode_zydis(x86, p, n, 64, ip, &z);
	if (lz != lf || memcmp(&f, &z, sizeof(f))) {
		if (differs("fast path differs from Zydis", p, n, op)) {
			show("fast path", lf, &f);
			show("Zydis", lz, &z);
		}
		return;
	}
	if (n == 16) /* each cut: the fast path declines */
		for (n = 1; n < (size_t)lf; n++)
			if (qx86_fast(p, n, ip, &f) > 0)
				(void)differs(
				    "fast path decodes a cut instruction", p, n,
				    op);
}

/* @pfx then each opcode of the map (@esc: 0F), ModRM and SIB form. */
static void each_opcode(const uint8_t *pfx, size_t npfx, bool esc)
{
	static const uint8_t sibs[] = {0x00, 0x05, 0x24, 0x25, 0xe5, 0x6c};
	uint8_t b[16];
	unsigned op, modrm, s, i;

	for (op = 0; op < 256; op++) {
		for (modrm = 0; modrm < 256; modrm++) {
			for (s = 0; s < sizeof(sibs); s++) {
				size_t k = npfx, at = npfx;

				memcpy(b, pfx, npfx);
				if (esc)
					b[k++] = 0x0f;
				b[k++] = (uint8_t)op;
				b[k++] = (uint8_t)modrm;
				b[k++] = sibs[s];
				for (i = (unsigned)k; i < 16; i++)
					b[i] = next_byte();
				check(b, 16, at);
				/* the SIB matters only with rm 4 */
				if ((modrm & 7) != 4 || modrm >= 0xc0)
					break;
			}
		}
	}
}

static void test_fast_vs_zydis(void **state)
{
	static const uint8_t legacy[][2] = {
	    {0},	  {0x66},	{0x64},	      {0x65},
	    {0x66, 0x64}, {0x65, 0x66}, {0x66, 0x66}, {0x64, 0x65},
	};
	static const size_t nlegacy[] = {0, 1, 1, 1, 2, 2, 2, 2};
	uint8_t pfx[4];
	unsigned l, rex;

	(void)state;
	for (l = 0; l < sizeof(nlegacy) / sizeof(nlegacy[0]); l++) {
		for (rex = 0x3f; rex < 0x50; rex++) { /* 3f: no REX */
			size_t n = nlegacy[l];

			/* each REX alone; with the legacy prefixes, no REX,
			 * REX.B, REX.W and all four bits */
			if (l && rex != 0x3f && rex != 0x41 && rex != 0x48 &&
			    rex != 0x4f)
				continue;
			memcpy(pfx, legacy[l], n);
			if (rex >= 0x40)
				pfx[n++] = (uint8_t)rex;
			each_opcode(pfx, n, false);
			each_opcode(pfx, n, true);
		}
	}
	/* a REX before a legacy prefix is no REX */
	pfx[0] = 0x48;
	pfx[1] = 0x66;
	each_opcode(pfx, 2, false);
	printf("# the fast path took %lu of %lu forms\n", taken, checked);
	assert_int_equal(failed, 0);
	assert_true(taken > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_vs_zydis),
	};
	int r;

	x86 = qx86_new();
	if (!x86)
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	qx86_free(x86);
	return r;
}
