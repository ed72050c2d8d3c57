/* SPDX-License-Identifier: MIT */
/* This machine's facts for a recording's features, probed as perf record
 * gathers them, handed to the writer as data (qpt_writer_set_host_info). */
#ifndef QPT_CAPTURE_HOSTINFO_H
#define QPT_CAPTURE_HOSTINFO_H

#include <limits.h>

#include "qpt/writer.h"

struct qpt_host_probe {
	struct qpt_host_info info; /* its strings point into this struct */
	char hostname[65], osrelease[65], arch[65];
	char cpudesc[256], cpuid[128];
	char exe[PATH_MAX];
};

/*
 * uname() for HOSTNAME, OSRELEASE and ARCH; /proc/cpuinfo for CPUDESC
 * ("model name" or "Processor", spaces squashed) and CPUID (x86: vendor,
 * family, model, stepping); /sys/devices/system/cpu/present and the
 * online count for NRCPUS; /proc/meminfo for TOTAL_MEM (kB);
 * /proc/self/exe and @argc/@argv (borrowed) for CMDLINE.  What the
 * machine does not tell is left out of @p->info.
 */
void qpt_host_probe(struct qpt_host_probe *p, int argc, char *const argv[]);

#endif
