// SPDX-License-Identifier: MIT
/*
 * The chunk lists of qpt decode -j (cli/chunks.c) against a plain copy
 * of what was written: a writer whose buffer is a list's window writes
 * pieces of random lengths (a fixed seed; some longer than a window,
 * one longer than a chunk), and at random points what it wrote so far is
 * written out to a file and released, as the main thread does with a
 * part's lines.  The file must hold every byte in order, the pool must
 * have made no more big chunks than the bytes held at once need, and
 * ranges the list no longer holds, or not yet, are refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/chunks.h"

#define TOTAL (24u << 20) /* bytes written in all */
#define HELD_MAX (5u << 20) /* at most this many between two writes */

struct bench {
	struct chunk_pool pool;
	struct chunk_list l;
	struct out w;	/* the printer's writer: into the list */
	struct out dst; /* the main printer's: into fd */
	int fd;
	char dbuf[1 << 16];
	uint8_t *want;
	size_t nwant;
	uint64_t written; /* out to dst */
};

static int spill(void *arg, const char *p, size_t n)
{
	struct bench *b = arg;
	int err = chunks_spill(&b->l, p, n);

	return err ? err : chunks_window(&b->l, &b->w);
}

static int setup(void **state)
{
	struct bench *b = calloc(1, sizeof(*b));

	if (!b)
		return -1;
	b->fd = memfd_create("test_chunks", MFD_CLOEXEC);
	b->want = malloc(TOTAL + (8u << 20));
	if (b->fd < 0 || !b->want)
		return -1;
	chunk_pool_init(&b->pool);
	chunks_init(&b->l, &b->pool);
	memset(&b->w, 0, sizeof(b->w));
	b->w.spill = spill;
	b->w.spill_arg = b;
	out_init(&b->dst, b->fd, false, b->dbuf, sizeof(b->dbuf));
	if (chunks_window(&b->l, &b->w))
		return -1;
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bench *b = *state;

	chunks_free(&b->l);
	chunk_pool_fini(&b->pool);
	close(b->fd);
	free(b->want);
	free(b);
	return 0;
}

/* What the writer wrote so far out to the file, as par_write does. */
static void write_out(struct bench *b)
{
	uint64_t to;

	out_flush(&b->w);
	to = chunks_end(&b->l);
	assert_int_equal(to, b->nwant);
	assert_int_equal(chunks_write(&b->l, b->written, to, &b->dst), 0);
	chunks_release(&b->l, to);
	b->written = to;
}

static void put(struct bench *b, const uint8_t *p, size_t n)
{
	out_raw(&b->w, (const char *)p, n);
	memcpy(b->want + b->nwant, p, n);
	b->nwant += n;
}

static void test_random(void **state)
{
	struct bench *b = *state;
	static uint8_t piece[6u << 20];
	uint64_t held = 0;
	size_t i, n, got = 0;
	uint8_t *file;

	srandom(21);
	for (i = 0; i < sizeof(piece); i++)
		piece[i] = (uint8_t)random();
	/* one piece longer than a big chunk, copied across chunks */
	put(b, piece, CHUNKS_BIG + 12345);
	held = CHUNKS_BIG + 12345;
	while (b->nwant < TOTAL) {
		long r = random();

		if (r % 64 == 0) /* longer than any window */
			n = CHUNKS_WINDOW_MIN + (size_t)(r >> 8) % 4096;
		else
			n = 1 + (size_t)(r >> 8) % 200;
		put(b, piece + (size_t)(r >> 20) % 4096, n);
		held += n;
		if (held > HELD_MAX || (r >> 12) % 1024 == 0) {
			write_out(b);
			held = 0;
		}
	}
	write_out(b);
	assert_int_equal(out_flush(&b->dst), 0);
	/* big chunks made: those held at once, not those written */
	assert_true(b->pool.nr_big <= HELD_MAX / CHUNKS_BIG + 3);
	file = malloc(b->nwant + 1);
	assert_non_null(file);
	while (got < b->nwant + 1) {
		ssize_t k = pread(b->fd, file + got, b->nwant + 1 - got,
				  (off_t)got);

		assert_true(k >= 0);
		if (!k)
			break;
		got += (size_t)k;
	}
	assert_int_equal(got, b->nwant);
	assert_memory_equal(file, b->want, b->nwant);
	free(file);
}

/* Ranges released, or past what the list holds: -EINVAL. */
static void test_ranges(void **state)
{
	struct bench *b = *state;
	static uint8_t piece[4096];
	uint64_t mid;

	memset(piece, 'x', sizeof(piece));
	while (b->nwant < 3 * CHUNKS_BIG)
		put(b, piece, sizeof(piece));
	out_flush(&b->w);
	mid = chunks_end(&b->l) / 2;
	assert_int_equal(chunks_write(&b->l, 0, mid, &b->dst), 0);
	chunks_release(&b->l, mid);
	assert_int_equal(chunks_write(&b->l, 0, 16, &b->dst), -EINVAL);
	assert_int_equal(chunks_write(&b->l, mid, chunks_end(&b->l) + 1,
				      &b->dst),
			 -EINVAL);
	assert_int_equal(chunks_write(&b->l, mid, mid, &b->dst), 0);
	assert_int_equal(chunks_write(&b->l, mid, chunks_end(&b->l), &b->dst),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_random, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ranges, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
