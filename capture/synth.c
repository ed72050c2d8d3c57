// SPDX-License-Identifier: MIT
/* Synthesized sideband and build-ids (see synth.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auxfmt/elfnote.h"
#include "capture/synth.h"
#include "capture/target.h"
#include "qpt/qpt.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

#define REC_MAX 8192

int qpt_synth_mmap2(const char *line, int pid, int tid, size_t id_hdr_size,
		    void *buf, size_t cap)
{
	unsigned long long start, end, pgoff, ino;
	struct qpt_mmap_event m;
	unsigned int maj, min;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &pgoff, &maj, &min, &ino, &pos) < 7 ||
	    !pos || strlen(perms) != 4 || end < start)
		return -QPT_E_FORMAT;
	if (perms[2] != 'x')
		return 0;
	memset(&m, 0, sizeof(m));
	m.filename = line + pos;
	m.filename_len = strcspn(m.filename, "\n");
	if (!m.filename_len) {
		m.filename = "//anon";
		m.filename_len = 6;
	}
	m.pid = pid;
	m.tid = tid;
	m.start = start;
	m.len = end - start;
	m.pgoff = pgoff;
	m.maj = maj;
	m.min = min;
	m.ino = ino;
	m.prot = (perms[0] == 'r' ? PROT_READ : 0) |
		 (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	return qpt_mmap2_build(&m, PERF_RECORD_MISC_USER, id_hdr_size, buf,
			       cap < UINT16_MAX ? cap : UINT16_MAX);
}

static int synth_comm(const char *proc, int pid, int tid, size_t id_hdr_size,
		      qpt_synth_emit_fn emit, void *ctx)
{
	uint64_t buf[16];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t *ids = (uint32_t *)(h + 1);
	char path[256], *comm = (char *)(ids + 2);
	size_t size = 8 + 8 + 16 + id_hdr_size;
	ssize_t n;
	int fd;

	if (size > sizeof(buf))
		return -ENOSPC;
	memset(buf, 0, size);
	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", proc, pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, comm, 15);
	close(fd);
	if (n < 0)
		return -errno;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	h->size = (uint16_t)size;
	ids[0] = (uint32_t)pid;
	ids[1] = (uint32_t)tid;
	return emit(ctx, h);
}

static int synth_comms(const char *proc, int pid, size_t id_hdr_size,
		       qpt_synth_emit_fn emit, void *ctx)
{
	int *tids, n = 0, err;
	size_t nr, i;

	err = qpt_target_threads(proc, pid, &tids, &nr);
	if (err < 0)
		return err;
	for (i = 0; i < nr; i++) {
		err = synth_comm(proc, pid, tids[i], id_hdr_size, emit, ctx);
		if (err == -ENOENT) /* the thread just ended */
			continue;
		if (err < 0)
			break;
		n++;
	}
	free(tids);
	return err < 0 ? err : n;
}

int qpt_synth_process(const char *proc, int pid, size_t id_hdr_size,
		      qpt_synth_emit_fn emit, void *ctx)
{
	uint64_t buf[REC_MAX / 8];
	char path[256], *line = NULL;
	size_t cap = 0;
	int n, err = 0, size;
	FILE *f;

	n = synth_comms(proc, pid, id_hdr_size, emit, ctx);
	if (n < 0)
		return n;
	snprintf(path, sizeof(path), "%s/%d/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, f) > 0) {
		size = qpt_synth_mmap2(line, pid, pid, id_hdr_size, buf,
				       sizeof(buf));
		if (size == -QPT_E_FORMAT || size == -ENOSPC)
			continue; /* a line we cannot use */
		if (size <= 0)
			continue;
		err = emit(ctx, (struct perf_event_header *)buf);
		if (err < 0)
			break;
		n++;
	}
	free(line);
	fclose(f);
	return err < 0 ? err : n;
}

/* The GNU build-id note of @elf: its length, 0 when none (or longer
 * than @cap), or -QPT_E_FORMAT. */
static int build_id_elf(Elf *elf, uint8_t *id, size_t cap)
{
	Elf_Scn *scn = NULL;
	const uint8_t *desc;
	Elf_Data *data;
	GElf_Shdr sh;
	int n;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -QPT_E_FORMAT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		n = qpt_elf_note_build_id(data->d_buf, data->d_size,
					  data->d_type == ELF_T_NHDR8 ? 8 : 4,
					  &desc);
		if (n <= 0)
			continue;
		if ((size_t)n > cap)
			return 0;
		memcpy(id, desc, (size_t)n);
		return n;
	}
	return 0;
}

int qpt_build_id_read(const char *path, uint8_t *id, size_t cap)
{
	int fd, ret;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ret = build_id_elf(elf, id, cap);
	elf_end(elf);
	close(fd);
	return ret;
}

int qpt_build_id_mem(const void *buf, size_t len, uint8_t *id, size_t cap)
{
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	/* libelf only reads the image: the cast drops const for its API */
	elf = elf_memory((char *)(uintptr_t)buf, len);
	ret = build_id_elf(elf, id, cap);
	elf_end(elf);
	return ret;
}
