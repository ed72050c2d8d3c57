// SPDX-License-Identifier: MIT
/* This machine's facts for a recording's features (see hostinfo.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/hostinfo.h"

/* The value of the first "@key<spaces>: value" line of @path, trimmed. */
static int proc_value(const char *path, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	char line[512];
	int err = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + klen, *v, *e;

		if (strncmp(line, key, klen) || (*p != ':' && !isspace(*p)))
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		v = p + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		e = v + strlen(v);
		while (e > v && isspace((unsigned char)e[-1]))
			*--e = '\0';
		snprintf(out, size, "%s", v);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* Runs of white space become one space, as perf does for the brand string. */
static void squash_spaces(char *s)
{
	char *d = s;
	bool space = false;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			if (!space)
				*d++ = ' ';
			space = true;
		} else {
			*d++ = *s;
			space = false;
		}
	}
	*d = '\0';
}

/* One more than the highest CPU number in a list like "0-3,8,10-11". */
static long cpu_list_max(const char *s)
{
	long max = -1, v;
	char *end;

	while (*s) {
		v = strtol(s, &end, 10);
		if (end == s || v < 0)
			return -1;
		if (v > max)
			max = v;
		s = end;
		if (*s == '-' || *s == ',')
			s++;
		else
			break;
	}
	return max + 1;
}

static void probe_cpus(struct qpt_host_info *h)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN), avail = -1;
	char line[256];
	FILE *f;

	f = fopen("/sys/devices/system/cpu/present", "re");
	if (f) {
		if (fgets(line, sizeof(line), f))
			avail = cpu_list_max(line);
		fclose(f);
	}
	if (avail <= 0)
		avail = sysconf(_SC_NPROCESSORS_CONF);
	if (online <= 0 || avail <= 0 || avail > UINT32_MAX)
		return;
	h->nr_cpus_avail = (uint32_t)avail;
	h->nr_cpus_online = (uint32_t)online;
}

static void probe_cpuid(struct qpt_host_probe *p)
{
	char vendor[64], family[16], model[16], stepping[16];
	const char *ci = "/proc/cpuinfo";

	if (!proc_value(ci, "model name", p->cpudesc, sizeof(p->cpudesc)) ||
	    !proc_value(ci, "Processor", p->cpudesc, sizeof(p->cpudesc))) {
		squash_spaces(p->cpudesc);
		p->info.cpudesc = p->cpudesc;
	}
	if (proc_value(ci, "vendor_id", vendor, sizeof(vendor)) ||
	    proc_value(ci, "cpu family", family, sizeof(family)) ||
	    proc_value(ci, "model", model, sizeof(model)) ||
	    proc_value(ci, "stepping", stepping, sizeof(stepping)))
		return;
	snprintf(p->cpuid, sizeof(p->cpuid), "%s,%s,%s,%s", vendor, family,
		 model, stepping);
	p->info.cpuid = p->cpuid;
}

void qpt_host_probe(struct qpt_host_probe *p, int argc, char *const argv[])
{
	unsigned long long kb;
	struct utsname u;
	char v[128];
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->info.size = sizeof(p->info);
	if (!uname(&u)) {
		snprintf(p->hostname, sizeof(p->hostname), "%s", u.nodename);
		snprintf(p->osrelease, sizeof(p->osrelease), "%s", u.release);
		snprintf(p->arch, sizeof(p->arch), "%s", u.machine);
		p->info.hostname = p->hostname;
		p->info.osrelease = p->osrelease;
		p->info.arch = p->arch;
	}
	probe_cpuid(p);
	probe_cpus(&p->info);
	if (!proc_value("/proc/meminfo", "MemTotal", v, sizeof(v)) &&
	    sscanf(v, "%llu", &kb) == 1)
		p->info.total_mem_kb = kb;
	n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	p->exe[n > 0 ? n : 0] = '\0';
	p->info.exe = p->exe;
	p->info.argc = argc;
	p->info.argv = argv;
}
