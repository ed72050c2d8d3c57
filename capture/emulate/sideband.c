// SPDX-License-Identifier: MIT
/* Sideband records (COMM, MMAP2, FORK, EXIT, ITRACE_START) as the kernel
 * lays them out, handed to the sink. */
#include "capture/emulate/sideband.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "qpt/reader.h"
#include "qpt/writer.h"

struct emu_trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

uint64_t emu_sb_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Append the trailer at @buf + @off and send the record. */
static int send(struct emu_sb *sb, pid_t pid, pid_t tid, uint8_t *buf,
		size_t off, uint32_t type, uint16_t misc)
{
	struct perf_event_header *hdr = (struct perf_event_header *)buf;
	struct emu_trailer t = {
	    .pid = (uint32_t)pid,
	    .tid = (uint32_t)tid,
	    .time = emu_sb_time(),
	    .cpu = UINT32_MAX,
	    .id = sb->id,
	};

	memcpy(buf + off, &t, sizeof(t));
	hdr->type = type;
	hdr->misc = misc;
	hdr->size = (uint16_t)(off + sizeof(t));
	return sb->ops->record(sb->ctx, tid, hdr);
}

static size_t put_string(uint8_t *buf, size_t off, const char *s, size_t max)
{
	size_t len = strnlen(s, max - 1);
	size_t padded = (len + 1 + 7) & ~(size_t)7;

	memset(buf + off, 0, padded);
	memcpy(buf + off, s, len);
	return off + padded;
}

int emu_sb_comm(struct emu_sb *sb, pid_t pid, pid_t tid, const char *comm,
		bool exec)
{
	uint8_t buf[128] __attribute__((aligned(8)));
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
	size_t off = sizeof(struct perf_event_header);

	memcpy(buf + off, ids, sizeof(ids));
	off = put_string(buf, off + sizeof(ids), comm, 16);
	return send(sb, pid, tid, buf, off, PERF_RECORD_COMM,
		    PERF_RECORD_MISC_USER |
			(exec ? PERF_RECORD_MISC_COMM_EXEC : 0));
}

int emu_sb_mmap2(struct emu_sb *sb, pid_t pid, pid_t tid,
		 const struct emu_map *map, const char *filename,
		 const uint8_t *bid, size_t bid_len)
{
	uint8_t buf[4096 + 256] __attribute__((aligned(8)));
	struct qpt_mmap_event m = {
	    .pid = pid,
	    .tid = tid,
	    .start = map->start,
	    .len = map->end - map->start,
	    .pgoff = map->pgoff,
	    .maj = map->maj,
	    .min = map->min,
	    .ino = map->ino,
	    .prot = map->prot,
	    .flags = MAP_PRIVATE,
	    .filename = filename,
	    .filename_len = 4095,
	};
	int size;

	if (bid_len && bid_len <= 20) {
		m.build_id = bid;
		m.build_id_size = (uint8_t)bid_len;
	}
	size = qpt_mmap2_build(&m, PERF_RECORD_MISC_USER, 0, buf,
			       sizeof(buf) - sizeof(struct emu_trailer));
	if (size < 0)
		return size;
	return send(sb, pid, tid, buf, (size_t)size, PERF_RECORD_MMAP2,
		    ((struct perf_event_header *)buf)->misc);
}

int emu_sb_task(struct emu_sb *sb, uint32_t type, pid_t pid, pid_t ppid,
		pid_t tid, pid_t ptid)
{
	uint8_t buf[128] __attribute__((aligned(8)));
	uint32_t ids[4] = {(uint32_t)pid, (uint32_t)ppid, (uint32_t)tid,
			   (uint32_t)ptid};
	uint64_t time = emu_sb_time();
	size_t off = sizeof(struct perf_event_header);

	memcpy(buf + off, ids, sizeof(ids));
	memcpy(buf + off + sizeof(ids), &time, sizeof(time));
	off += sizeof(ids) + sizeof(time);
	return send(sb, pid, tid, buf, off, type, 0);
}

int emu_sb_itrace_start(struct emu_sb *sb, pid_t pid, pid_t tid)
{
	uint8_t buf[64] __attribute__((aligned(8)));
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)tid};
	size_t off = sizeof(struct perf_event_header);

	memcpy(buf + off, ids, sizeof(ids));
	return send(sb, pid, tid, buf, off + sizeof(ids),
		    PERF_RECORD_ITRACE_START, 0);
}
