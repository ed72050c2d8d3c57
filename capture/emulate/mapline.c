// SPDX-License-Identifier: MIT
/* A line of /proc/PID/maps, read once for every reader of it (the ptrace
 * engine's mappings, the QEMU plugin's). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/emulate/proc.h"

int emu_map_parse(const char *line, struct emu_map *m, char *path, size_t size)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	int n, at = 0;

	n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &off, &maj, &min, &ino, &at);
	if (n < 7 || !at || strlen(perms) < 4 || !size)
		return 0;
	snprintf(path, size, "%s", line + at);
	path[strcspn(path, "\n")] = '\0';
	if (!path[0])
		snprintf(path, size, "//anon");
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->ino = ino;
	m->maj = maj;
	m->min = min;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->shared = perms[3] == 's';
	m->path = path;
	return 1;
}
