// SPDX-License-Identifier: MIT
/*
 * The peer of bench/decode.sh's count-only figures: libipt's block
 * decoder alone over a raw Intel PT stream, as a decoder that prints
 * nothing would run it (blocks end at calls and jumps, as qpt asks):
 * every block and event taken, decode errors resynchronised at the next
 * PSB, the instructions counted.  Not a test.
 *
 *   blk_loop TRACE.pt FILE@ADDR...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)n;
out:
	if (f)
		fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct pt_block_decoder *dec;
	struct pt_image_section_cache *isc;
	struct pt_image *image;
	struct pt_config cfg;
	uint64_t insns = 0, errors = 0;
	size_t len = 0;
	uint8_t *buf;
	int i, st;

	if (argc < 2) {
		fprintf(stderr, "usage: blk_loop TRACE.pt FILE@ADDR...\n");
		return 2;
	}
	buf = slurp(argv[1], &len);
	if (!buf) {
		fprintf(stderr, "blk_loop: %s: cannot read\n", argv[1]);
		return 1;
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	cfg.flags.variant.block.end_on_call = 1;
	cfg.flags.variant.block.end_on_jump = 1;
	dec = pt_blk_alloc_decoder(&cfg);
	image = pt_image_alloc(NULL);
	isc = pt_iscache_alloc(NULL); /* sections stay mapped, as in qpt */
	if (!dec || !image || !isc)
		return 1;
	for (i = 2; i < argc; i++) {
		char *at = strrchr(argv[i], '@');

		if (!at)
			return 2;
		*at = '\0';
		st = pt_iscache_add_file(isc, argv[i], 0, UINT64_MAX,
					 strtoull(at + 1, NULL, 0));
		if (st < 0 || pt_image_add_cached(image, isc, st, NULL) < 0) {
			fprintf(stderr, "blk_loop: %s: cannot add\n", argv[i]);
			return 1;
		}
	}
	pt_blk_set_image(dec, image);
	st = pt_blk_sync_forward(dec);
	while (st != -pte_eos) {
		struct pt_block b;
		struct pt_event ev;

		while (st >= 0 && (st & pts_event_pending))
			st = pt_blk_event(dec, &ev, sizeof(ev));
		if (st >= 0 && (st & pts_eos))
			break;
		if (st >= 0) {
			st = pt_blk_next(dec, &b, sizeof(b));
			insns += b.ninsn;
		}
		if (st < 0 && st != -pte_eos) {
			errors++;
			st = pt_blk_sync_forward(dec);
		}
	}
	printf("%" PRIu64 " instructions, %" PRIu64 " errors\n", insns, errors);
	pt_blk_free_decoder(dec);
	pt_image_free(image);
	pt_iscache_free(isc);
	free(buf);
	return 0;
}
