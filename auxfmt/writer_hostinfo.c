// SPDX-License-Identifier: MIT
/*
 * This machine's features for a recording, gathered as perf record does:
 * uname() for HOSTNAME, OSRELEASE and ARCH; /proc/cpuinfo for CPUDESC
 * ("model name", spaces squashed) and CPUID (x86: vendor,family,model,
 * stepping); /sys/devices/system/cpu/present and the online count for
 * NRCPUS; /proc/meminfo for TOTAL_MEM (kB); /proc/self/exe and the
 * arguments for CMDLINE.  The only part of auxfmt that looks at the host.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "auxfmt/writer_priv.h"

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

static void set_nrcpus(struct qpt_writer *w)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN), avail = -1;
	struct qpt_wbuf *b = &w->feat[QPT_FEAT_NRCPUS];
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
	if (online <= 0 || avail <= 0) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no CPU count for NRCPUS");
		return;
	}
	b->len = 0;
	if (qpt_feat_encode_nrcpus(b, (uint32_t)avail, (uint32_t)online))
		return;
	w->has_feat[QPT_FEAT_NRCPUS] = true;
}

static void set_total_mem(struct qpt_writer *w)
{
	struct qpt_wbuf *b = &w->feat[QPT_FEAT_TOTAL_MEM];
	unsigned long long kb;
	char v[128];

	if (proc_value("/proc/meminfo", "MemTotal", v, sizeof(v)) ||
	    sscanf(v, "%llu", &kb) != 1) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no MemTotal for TOTAL_MEM");
		return;
	}
	b->len = 0;
	if (qpt_wbuf_add_u64(b, kb))
		return;
	w->has_feat[QPT_FEAT_TOTAL_MEM] = true;
}

static int set_cpu(struct qpt_writer *w)
{
	char desc[256], vendor[64], family[16], model[16], stepping[16];
	char cpuid[128];
	int err = 0;

	if (!proc_value("/proc/cpuinfo", "model name", desc, sizeof(desc)) ||
	    !proc_value("/proc/cpuinfo", "Processor", desc, sizeof(desc))) {
		squash_spaces(desc);
		err = qpt_writer_set_feature_string(w, QPT_FEAT_CPUDESC, desc);
	}
	if (err)
		return err;
	if (proc_value("/proc/cpuinfo", "vendor_id", vendor, sizeof(vendor)) ||
	    proc_value("/proc/cpuinfo", "cpu family", family, sizeof(family)) ||
	    proc_value("/proc/cpuinfo", "model", model, sizeof(model)) ||
	    proc_value("/proc/cpuinfo", "stepping", stepping,
		       sizeof(stepping))) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no x86 CPU id for CPUID");
		return 0;
	}
	snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, family, model,
		 stepping);
	return qpt_writer_set_feature_string(w, QPT_FEAT_CPUID, cpuid);
}

static int set_cmdline(struct qpt_writer *w, int argc, char *const argv[])
{
	struct qpt_wbuf *b = &w->feat[QPT_FEAT_CMDLINE];
	char exe[PATH_MAX];
	ssize_t n;
	int err;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		n = 0;
	exe[n] = '\0';
	b->len = 0;
	err = qpt_feat_encode_cmdline(b, exe, argc, (const char *const *)argv);
	if (!err)
		w->has_feat[QPT_FEAT_CMDLINE] = true;
	return err;
}

int qpt_writer_set_host_features(struct qpt_writer *w, int argc,
				 char *const argv[])
{
	char version[64];
	struct utsname u;
	int err = 0;

	if (!w || argc < 0 || (argc && !argv))
		return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	if (!uname(&u)) {
		err = qpt_writer_set_feature_string(w, QPT_FEAT_HOSTNAME,
						    u.nodename);
		if (!err)
			err = qpt_writer_set_feature_string(
			    w, QPT_FEAT_OSRELEASE, u.release);
		if (!err)
			err = qpt_writer_set_feature_string(w, QPT_FEAT_ARCH,
							    u.machine);
	}
	snprintf(version, sizeof(version), "qpt %s", qpt_version());
	if (!err)
		err =
		    qpt_writer_set_feature_string(w, QPT_FEAT_VERSION, version);
	if (!err)
		err = set_cpu(w);
	if (err)
		return err;
	set_nrcpus(w);
	set_total_mem(w);
	err = set_cmdline(w, argc, argv);
	/* pipe mode after the prologue: the rest go out as records too */
	if (!err && w->pipe && w->prologue) {
		err = qpt_writer_feat_record(w, QPT_FEAT_NRCPUS);
		if (!err)
			err = qpt_writer_feat_record(w, QPT_FEAT_TOTAL_MEM);
		if (!err)
			err = qpt_writer_feat_record(w, QPT_FEAT_CMDLINE);
	}
	return err;
}
