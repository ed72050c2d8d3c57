// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the decoder: bytes that start like a perf.data file
 * go through qpt_decoder_run_file (via a memfd), others are a bare PT
 * stream for qpt_decoder_run_raw over a small code image at 0x1000; the
 * x86 layer also decodes (and formats, at every 16th) every offset.  The same entry
 * point replays its seeds as the test fuzz_decode_replay (fuzz/replay.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auxfmt/x86/x86.h"
#include "qpt/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* xor eax,eax; jz +4; nop x4; call +3; nop; syscall; ret; jmp [rip]... */
static const uint8_t code[] = {
	0x31, 0xc0, 0x74, 0x04, 0x90, 0x90, 0x90, 0x90, 0xe8, 0x03, 0x00,
	0x00, 0x00, 0x90, 0x0f, 0x05, 0xc3, 0xff, 0x25, 0x00, 0x00, 0x00,
	0x00, 0xc5, 0xf8, 0x77, 0xeb, 0xe4,
};

static int count(const struct qpt_item *it, void *ctx)
{
	size_t *n = ctx;

	*n += it->size + (it->msg ? strlen(it->msg) : 0) +
	      (it->sym ? strlen(it->sym) : 0);
	return 0;
}

static int memfd_path(const uint8_t *data, size_t size, char *path,
		      size_t len)
{
	int fd = memfd_create("qpt-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int modes[] = { 16, 32, 64 };
	static struct qx86 *x86; /* made once for every input */
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;
	char img[64], path[64];
	size_t i, sink = 0;
	char text[96];
	int ifd, fd;

	if (!x86 && !(x86 = qx86_new()))
		return 0;
	for (i = 0; i < size && i < 4096; i++) {
		struct qx86_insn in;

		if (qx86_decode(x86, data + i, size - i, modes[i % 3], i,
				&in) > 0)
			sink += in.len + in.opnd.size;
		if (i % 16 == 0 &&
		    qx86_format(x86, data + i, size - i, modes[i % 3], i, text,
				sizeof(text)) > 0)
			sink += strlen(text);
	}
	qpt_decoder_opts_init(&opts);
	opts.want = QPT_WANT_INSN | QPT_WANT_BRANCH | QPT_WANT_EVENT |
		    QPT_WANT_SYMBOLS;
	if (qpt_decoder_new(&opts, &dec))
		return 0;
	ifd = memfd_path(code, sizeof(code), img, sizeof(img));
	if (ifd >= 0)
		qpt_decoder_add_image(dec, img, 0x1000);
	if (size >= 8 && !memcmp(data, "PERFILE2", 8)) {
		fd = memfd_path(data, size, path, sizeof(path));
		if (fd >= 0) {
			qpt_decoder_run_file(dec, path, count, &sink);
			close(fd);
		}
	} else {
		qpt_decoder_run_raw(dec, data, size, count, &sink);
	}
	if (ifd >= 0)
		close(ifd);
	qpt_decoder_free(dec);
	return sink == (size_t)-1;
}
