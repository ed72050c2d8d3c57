// SPDX-License-Identifier: MIT
/* PMU discovery from sysfs (see pmu.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/pmu.h"

/* Read a small text file (< @cap bytes) into @buf, NUL-terminated. */
static int read_text(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < cap - 1) {
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (int)got;
}

static int parse_u64(const char *text, int base, uint64_t *value)
{
	char *end;

	while (*text == ' ' || *text == '\t')
		text++;
	if (!isxdigit((unsigned char)*text))
		return -QPT_E_FORMAT;
	errno = 0;
	*value = strtoull(text, &end, base);
	if (errno || end == text)
		return -QPT_E_FORMAT;
	while (*end == '\n' || *end == ' ')
		end++;
	return *end ? -QPT_E_FORMAT : 0;
}

int qpt_pmu_parse_format(const char *text, int *word, uint64_t *mask)
{
	const char *p = text;
	unsigned long lo, hi;
	char *end;

	if (!strncmp(p, "config2:", 8)) {
		*word = 2;
		p += 8;
	} else if (!strncmp(p, "config1:", 8)) {
		*word = 1;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		*word = 0;
		p += 7;
	} else {
		return -QPT_E_FORMAT;
	}
	*mask = 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -QPT_E_FORMAT;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -QPT_E_FORMAT;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -QPT_E_FORMAT;
		*mask |= (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) &
			 ~((1ULL << lo) - 1);
		if (*p != ',')
			break;
		p++;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -QPT_E_FORMAT : 0;
}

static int read_formats(struct qpt_pmu *pmu)
{
	char path[4096], text[256];
	struct qpt_pmu_format *f;
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/format", pmu->dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/format/%s", pmu->dir,
			 de->d_name);
		err = read_text(path, text, sizeof(text));
		if (err < 0)
			break;
		f = realloc(pmu->formats,
			    (pmu->nr_formats + 1) * sizeof(*pmu->formats));
		if (!f) {
			err = -ENOMEM;
			break;
		}
		pmu->formats = f;
		f += pmu->nr_formats;
		err = qpt_pmu_parse_format(text, &f->word, &f->mask);
		if (err < 0)
			break;
		f->name = strdup(de->d_name);
		if (!f->name) {
			err = -ENOMEM;
			break;
		}
		pmu->nr_formats++;
	}
	closedir(d);
	return err < 0 ? err : 0;
}

int qpt_pmu_open(const char *root, const char *name, struct qpt_pmu **out)
{
	struct qpt_pmu *pmu;
	char path[4096], text[64];
	uint64_t type;
	int err;

	*out = NULL;
	if (!name || !*name || strchr(name, '/') || strstr(name, ".."))
		return -QPT_E_INVAL;
	if (!root)
		root = QPT_SYSFS_PMU_ROOT;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	pmu->name = strdup(name);
	if (asprintf(&pmu->dir, "%s/%s", root, name) < 0)
		pmu->dir = NULL;
	if (!pmu->name || !pmu->dir) {
		err = -ENOMEM;
		goto out_free;
	}
	snprintf(path, sizeof(path), "%s/type", pmu->dir);
	err = read_text(path, text, sizeof(text));
	if (err == -ENOENT || err == -ENOTDIR) {
		err = -QPT_E_NOPMU;
		goto out_free;
	}
	if (err < 0)
		goto out_free;
	err = parse_u64(text, 10, &type);
	if (err < 0 || type > UINT32_MAX) {
		err = -QPT_E_FORMAT;
		goto out_free;
	}
	pmu->type = (uint32_t)type;
	err = read_formats(pmu);
	if (err < 0)
		goto out_free;
	*out = pmu;
	return 0;
out_free:
	qpt_pmu_free(pmu);
	return err;
}

void qpt_pmu_free(struct qpt_pmu *pmu)
{
	size_t i;

	if (!pmu)
		return;
	for (i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	free(pmu->formats);
	free(pmu->name);
	free(pmu->dir);
	free(pmu);
}

/* arch/x86/events/intel/pt.c's format attributes. */
static const struct {
	const char *name, *format;
} intel_pt_formats[] = {
    {"pt", "config:0"},
    {"cyc", "config:1"},
    {"pwr_evt", "config:4"},
    {"fup_on_ptw", "config:5"},
    {"mtc", "config:9"},
    {"tsc", "config:10"},
    {"noretcomp", "config:11"},
    {"ptw", "config:12"},
    {"branch", "config:13"},
    {"event", "config:31"},
    {"notnt", "config:55"},
    {"mtc_period", "config:14-17"},
    {"cyc_thresh", "config:19-22"},
    {"psb_period", "config:24-27"},
};

int qpt_pmu_builtin_intel_pt(uint32_t type, struct qpt_pmu **out)
{
	size_t n = sizeof(intel_pt_formats) / sizeof(intel_pt_formats[0]), i;
	struct qpt_pmu *pmu;

	*out = NULL;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	pmu->name = strdup("intel_pt");
	pmu->formats = calloc(n, sizeof(*pmu->formats));
	if (!pmu->name || !pmu->formats)
		goto out_free;
	pmu->type = type;
	for (i = 0; i < n; i++) {
		struct qpt_pmu_format *f = &pmu->formats[i];

		if (qpt_pmu_parse_format(intel_pt_formats[i].format, &f->word,
					 &f->mask) < 0)
			goto out_free;
		f->name = strdup(intel_pt_formats[i].name);
		if (!f->name)
			goto out_free;
		pmu->nr_formats++;
	}
	*out = pmu;
	return 0;
out_free:
	qpt_pmu_free(pmu);
	return -ENOMEM;
}

const struct qpt_pmu_format *qpt_pmu_format(const struct qpt_pmu *pmu,
					    const char *name)
{
	size_t i;

	for (i = 0; pmu && i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

uint64_t qpt_pmu_format_bits(const struct qpt_pmu_format *fmt, uint64_t value)
{
	uint64_t bits = 0, m = fmt->mask;
	int bit;

	while (m && value) {
		bit = __builtin_ctzll(m);
		if (value & 1)
			bits |= 1ULL << bit;
		value >>= 1;
		m &= m - 1;
	}
	return bits;
}

uint64_t qpt_pmu_format_max(const struct qpt_pmu_format *fmt)
{
	int n = __builtin_popcountll(fmt->mask);

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

int qpt_pmu_format_set(const struct qpt_pmu_format *fmt, uint64_t value,
		       struct perf_event_attr *attr)
{
	uint64_t *w;

	if (value > qpt_pmu_format_max(fmt))
		return -QPT_E_INVAL;
	w = fmt->word == 0   ? (uint64_t *)&attr->config
	    : fmt->word == 1 ? (uint64_t *)&attr->config1
			     : (uint64_t *)&attr->config2;
	*w = (*w & ~fmt->mask) | qpt_pmu_format_bits(fmt, value);
	return 0;
}

int qpt_pmu_read_u64(const struct qpt_pmu *pmu, const char *rel, int base,
		     uint64_t *value)
{
	char path[4096], text[64];
	int err;

	if (!pmu->dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", pmu->dir, rel);
	err = read_text(path, text, sizeof(text));
	if (err < 0)
		return err == -ENOTDIR ? -ENOENT : err;
	return parse_u64(text, base, value);
}
