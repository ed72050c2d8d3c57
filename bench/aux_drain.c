// SPDX-License-Identifier: MIT
/*
 * AUX drain throughput: the ring consumer draining a simulated AUX area
 * into perf.data through the writer (AUXTRACE records, payload written
 * from the mapping), against memcpy of the same bytes out of the same
 * area, in the same run.  Usage: aux_drain [OUTPUT [MIB [CHUNK_KIB]]].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "capture/ring.h"
#include "capture/simkern.h"
#include "qpt/writer.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy @len bytes at free-running position @pos of a @size-byte area. */
static void copy_out(uint8_t *dst, const uint8_t *area, uint64_t size,
		     uint64_t pos, size_t len)
{
	size_t off = (size_t)(pos & (size - 1)), first = (size_t)size - off;

	if (first >= len) {
		memcpy(dst, area + off, len);
		return;
	}
	memcpy(dst, area + off, first);
	memcpy(dst + first, area, len - first);
}

struct times {
	double drain, copy, fresh;
};

/*
 * The peers on the bytes just written at @head: memcpy into a reused
 * buffer @dst, and into pages never touched before, as the page cache
 * behind the output file is.  Returns 0 or -1 (no memory).
 */
static int time_peers(struct times *tm, uint8_t *dst, const uint8_t *aux,
		      uint64_t aux_size, uint64_t head, size_t chunk)
{
	uint8_t *fresh;
	double t;

	t = now();
	copy_out(dst, aux, aux_size, head, chunk - 8);
	tm->copy += now() - t;
	t = now();
	fresh = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED)
		return -1;
	copy_out(fresh, aux, aux_size, head, chunk - 8);
	munmap(fresh, chunk);
	tm->fresh += now() - t;
	return 0;
}

static void report(const struct times *tm, uint64_t done, size_t chunk,
		   const char *out)
{
	printf("aux_drain: %.0f MiB in %zu KiB transactions\n",
	       (double)done / (1 << 20), chunk >> 10);
	printf("  drain to %s: %.0f MiB/s\n", out,
	       done / tm->drain / (1 << 20));
	printf("  memcpy into a reused buffer: %.0f MiB/s\n",
	       done / tm->copy / (1 << 20));
	printf("  memcpy into fresh pages:     %.0f MiB/s\n",
	       done / tm->fresh / (1 << 20));
	printf("  ratio drain/memcpy: %.2f (reused buffer), %.2f (fresh "
	       "pages); goal >= 0.5\n",
	       tm->copy / tm->drain, tm->fresh / tm->drain);
}

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "/tmp/qpt-aux-drain.data";
	uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 0) : 512;
	size_t chunk = (argc > 3 ? strtoull(argv[3], NULL, 0) : 1024) * 1024;
	struct qpt_simkern_opts so;
	struct qpt_simkern *sk;
	struct qpt_consumer *c;
	struct qpt_writer *w;
	struct qpt_ring ring;
	struct qpt_sink sink;
	uint8_t *src, *dst;
	struct times tm = {0, 0, 0};
	double t;
	uint64_t done = 0, total = mib << 20, head;
	size_t i;
	int err;

	qpt_simkern_opts_init(&so);
	so.aux_size = 4 * chunk;
	so.data_size = 1 << 20;
	src = malloc(chunk);
	dst = malloc(chunk);
	if (!src || !dst || qpt_simkern_new(&so, &sk) < 0)
		return 1;
	for (i = 0; i < chunk; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	err = qpt_writer_open(out, NULL, &w);
	if (err < 0) {
		fprintf(stderr, "aux_drain: %s: %s\n", out, qpt_strerror(err));
		return 1;
	}
	qpt_simkern_ring(sk, &ring);
	qpt_sink_writer(&sink, w);
	if (qpt_consumer_new(&ring, &sink, &c) < 0)
		return 1;
	while (done < total) {
		head = qpt_simkern_aux_head(sk);
		if (qpt_simkern_aux_write(sk, src, chunk - 8, 0) !=
		    (int64_t)(chunk - 8))
			return 1;
		if (time_peers(&tm, dst, ring.aux, so.aux_size, head, chunk))
			return 1;
		t = now();
		err = qpt_consumer_drain(c);
		tm.drain += now() - t;
		if (err < 0) {
			fprintf(stderr, "aux_drain: %s\n", qpt_strerror(err));
			return 1;
		}
		done += chunk - 8;
	}
	qpt_writer_close(w);
	qpt_writer_free(w);
	report(&tm, done, chunk, out);
	qpt_consumer_free(c);
	qpt_simkern_free(sk);
	free(src);
	free(dst);
	return 0;
}
