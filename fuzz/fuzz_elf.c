// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the readers of ELF files and of what describes
 * them: the decoder's file loader (decode/files.c: executable segments,
 * .symtab, .dynsym and PLT symbols, the build-id; then the file mapped
 * into an address space, decode/space.c, its code read and its symbols
 * looked up), the build-id readers of capture (capture/synth.c, on libelf)
 * and the ELF note walker both share (auxfmt/elfnote.c, on the raw bytes
 * too), and capture's reader of /proc maps lines (each line of the input).
 * Seeds: fuzz/seeds/fuzz_elf (see fuzz/seeds/README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/elfnote.h"
#include "capture/synth.h"
#include "decode/internal.h"
#include "fuzz/common.h"

static volatile size_t sink;

static void use_file(struct qd_file *file)
{
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct qd_space *space = qd_space_new(1);
	const struct qd_sym *s;
	uint8_t code[16];
	uint64_t off;
	size_t i;

	for (i = 0; i < file->nr_syms; i++) {
		s = qd_file_sym(file, file->syms[i].addr);
		if (!s || s->addr != file->syms[i].addr)
			fz_fail("a symbol that its own address does not find");
		sink += fz_str(s->name) + s->size;
	}
	if (!isc || !space ||
	    qd_space_map(space, isc, 0x400000, file->size, 0, file))
		goto out;
	for (i = 0; i < file->nr_segs && i < 8; i++) {
		uint64_t ip = 0x400000 + file->segs[i].offset;

		sink += qd_space_read(space, ip, code, sizeof(code));
		sink += fz_str(qd_space_sym(space, ip, &off)) + off;
	}
out:
	qd_space_free(space);
	pt_iscache_free(isc);
}

/* The decoder's loader, on the input as the file a recording names. */
static void load(const uint8_t *data, size_t size)
{
	struct qd_files files = {0};
	struct qd_file *file;
	char path[64];
	int fd;

	/* the memfd by its /proc name, with no sysroot: a sysroot is a
	 * root directory, where /proc's links to the memfd lead nowhere;
	 * no build-id cache there (a separate debug file of /usr/lib/debug
	 * only for an input with a host file's build-id) */
	files.buildid_dir = "/proc/self/fd";
	fd = fz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return;
	/* with the input's last 20 bytes as the recorded build-id: most
	 * mismatch, and the file is then looked up in the build-id cache */
	file = qd_files_get(&files, path, size >= 20 ? data + size - 20 : NULL,
			    size & 1 ? 20 : 0, false);
	if (file && file->found)
		use_file(file);
	qd_files_free(&files);
	close(fd);
}

/* Each line of the input as a line of /proc/PID/maps. */
static void maps_lines(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	struct perf_event_header h;
	uint64_t rec[64];
	int n;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		n = qpt_synth_mmap2(line, 1, 2, 8 * (size & 3), rec,
				    size & 4 ? 64 : sizeof(rec));
		if (n > (int)sizeof(rec))
			fz_fail("an MMAP2 record larger than its buffer");
		if (n > 0 && (memcpy(&h, rec, sizeof(h)), h.size != n))
			fz_fail("an MMAP2 record whose size is not its length");
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *desc;
	uint8_t id[20];
	int n;

	load(data, size);
	n = qpt_build_id_mem(data, size, id, sizeof(id));
	if (n > (int)sizeof(id))
		fz_fail("a build-id longer than its buffer");
	n = qpt_elf_note_build_id(data, size, size & 1 ? 8 : 4, &desc);
	if (n > 0 && (desc < data || desc + n > data + size))
		fz_fail("a note's descriptor outside the bytes given");
	maps_lines(data, size);
	return 0;
}
