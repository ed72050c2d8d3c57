// SPDX-License-Identifier: MIT
/*
 * fuzz/fuzz_ring.c as a regression test: 20000 inputs from a fixed
 * xorshift seed, with head/tail words near each other (the interesting
 * cases) and record headers planted in the ring.  Any out-of-bounds access
 * is an ASan failure; a hang a ctest timeout.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int main(void)
{
	uint8_t in[33 + 512];
	uint64_t x = 0x9e3779b97f4a7c15ULL, w[4], base;
	int i, j;

	for (i = 0; i < 20000; i++) {
		base = rnd(&x);
		w[0] = base + rnd(&x) % 600;	/* data_head */
		w[1] = base + rnd(&x) % 300;	/* data_tail */
		w[2] = base % 1024 + rnd(&x) % 600;
		w[3] = base % 1024;
		memcpy(in, w, sizeof(w));
		in[32] = (uint8_t)rnd(&x);
		for (j = 33; j < (int)sizeof(in); j++)
			in[j] = (uint8_t)rnd(&x);
		/* Plausible headers: sizes 0..80, some odd. */
		for (j = 0; j < 256; j += 8 + 8 * (int)(rnd(&x) % 4)) {
			in[33 + j + 6] = (uint8_t)(rnd(&x) % 81);
			in[33 + j + 7] = rnd(&x) % 16 ? 0 : 1;
		}
		LLVMFuzzerTestOneInput(in, 33 + rnd(&x) % 513);
	}
	printf("20000 inputs\n");
	return 0;
}
