// SPDX-License-Identifier: MIT
/*
 * fuzz/fuzz_ring.c as a regression test: 20000 inputs from a fixed
 * xorshift seed, with head/tail words near each other (the interesting
 * cases), record headers planted in the ring, any ring sizes and rounds,
 * and now and then a kernel that moves the words between loads.  Any
 * out-of-bounds access is an ASan failure; a hang a ctest timeout.
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
	uint8_t in[80 + 2048];
	uint64_t x = 0x9e3779b97f4a7c15ULL, w[9], base;
	int i, j;

	for (i = 0; i < 20000; i++) {
		memset(in, 0, 80);
		in[0] = (uint8_t)rnd(&x);
		in[1] = (uint8_t)rnd(&x);
		in[2] = rnd(&x) % 8 ? 0 : (uint8_t)rnd(&x);
		base = rnd(&x);
		w[0] = base + rnd(&x) % 600; /* data_head */
		w[1] = base + rnd(&x) % 300; /* data_tail */
		w[2] = base % 1024 + rnd(&x) % 600;
		w[3] = base % 1024;
		w[4] = rnd(&x) % 1100;	/* snapshot size */
		for (j = 5; j < 9; j++) /* steps */
			w[j] = rnd(&x) % 4 ? 0 : 8 * (rnd(&x) % 16);
		memcpy(in + 8, w, sizeof(w));
		for (j = 80; j < (int)sizeof(in); j++)
			in[j] = (uint8_t)rnd(&x);
		/* Plausible headers: sizes 0..80, some odd. */
		for (j = 0; j < 1024; j += 8 + 8 * (int)(rnd(&x) % 4)) {
			in[80 + j + 6] = (uint8_t)(rnd(&x) % 81);
			in[80 + j + 7] = rnd(&x) % 16 ? 0 : 1;
		}
		LLVMFuzzerTestOneInput(in, 80 + rnd(&x) % 2049);
	}
	printf("20000 inputs\n");
	return 0;
}
