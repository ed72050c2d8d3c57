// SPDX-License-Identifier: MIT
/*
 * A loop-heavy workload for bench/emu_speed.sh: a byte checksum loop,
 * memcpy of large buffers, and a run-length compression loop over
 * fixed-seed data, so that every run executes the same instructions.
 *   loopy [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 16384

static uint8_t src[SIZE], dst[SIZE], out[2 * SIZE];

static uint32_t checksum(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		a += p[i];
		b += a;
	}
	return (b << 16) ^ a;
}

/* Runs of a byte as (count, byte) pairs. */
static size_t rle(const uint8_t *p, size_t n, uint8_t *o)
{
	size_t i = 0, k = 0, run;

	while (i < n) {
		for (run = 1; i + run < n && run < 255 && p[i + run] == p[i];
		     run++)
			;
		o[k++] = (uint8_t)run;
		o[k++] = p[i];
		i += run;
	}
	return k;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4, r;
	uint32_t seed = 777, sum = 0;
	size_t i, total = 0;

	for (i = 0; i < SIZE; i++) {
		seed = seed * 1103515245u + 12345u;
		src[i] = (uint8_t)((seed >> 16) % 4); /* short runs */
	}
	for (r = 0; r < rounds; r++) {
		memcpy(dst, src, SIZE);
		dst[r % SIZE] ^= (uint8_t)r;
		sum += checksum(dst, SIZE);
		total += rle(dst, SIZE, out);
	}
	printf("%u %zu\n", sum, total);
	return 0;
}
