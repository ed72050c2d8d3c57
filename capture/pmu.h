/* SPDX-License-Identifier: MIT */
/*
 * PMU discovery from sysfs: <root>/<name>/{type, format/<term>, caps/<cap>}
 * (root: /sys/bus/event_source/devices unless a test injects another).
 * A format file says where a term's bits go: "config:0-7,32",
 * "config1:3", "config2:0-31"; a value is scattered over those bits,
 * lowest first.
 */
#ifndef QPT_CAPTURE_PMU_H
#define QPT_CAPTURE_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "qpt/qpt.h"

#define QPT_SYSFS_PMU_ROOT "/sys/bus/event_source/devices"

struct qpt_pmu_format {
	char *name;
	int word;      /* 0: config, 1: config1, 2: config2 */
	uint64_t mask; /* the bits of that word */
};

struct qpt_pmu {
	char *name;
	char *dir; /* <root>/<name> */
	uint32_t type;
	struct qpt_pmu_format *formats;
	size_t nr_formats;
};

/*
 * Read PMU @name under @root (NULL: the real sysfs).  Returns 0 and *@pmu,
 * -QPT_E_NOPMU when <root>/<name>/type does not exist, -QPT_E_FORMAT for a
 * type or format file that does not parse, -QPT_E_INVAL for a name with a
 * '/' or "..", -ENOMEM, or -errno from reading.
 */
int qpt_pmu_open(const char *root, const char *name, struct qpt_pmu **pmu);
void qpt_pmu_free(struct qpt_pmu *pmu);

/*
 * The intel_pt PMU as the Linux driver describes it (format files only,
 * no caps, no directory), with type @type.  Returns 0 and *@pmu, -ENOMEM.
 */
int qpt_pmu_builtin_intel_pt(uint32_t type, struct qpt_pmu **pmu);

/* The format of term @name, or NULL. */
const struct qpt_pmu_format *qpt_pmu_format(const struct qpt_pmu *pmu,
					    const char *name);

/* Parse a format file's text ("config1:0-7,32\n").  Returns 0 or
 * -QPT_E_FORMAT. */
int qpt_pmu_parse_format(const char *text, int *word, uint64_t *mask);

/*
 * Scatter @value over @fmt's bits into @attr's config word, replacing what
 * was there.  Returns 0, or -QPT_E_INVAL when @value has more bits than the
 * format holds.
 */
int qpt_pmu_format_set(const struct qpt_pmu_format *fmt, uint64_t value,
		       struct perf_event_attr *attr);

/* The bits @value occupies in @fmt's word (perf_pmu__format_bits with a
 * value); a format with a single bit and @value 1 gives that bit. */
uint64_t qpt_pmu_format_bits(const struct qpt_pmu_format *fmt, uint64_t value);

/* The largest value @fmt holds. */
uint64_t qpt_pmu_format_max(const struct qpt_pmu_format *fmt);

/*
 * Read a number from <pmu dir>/@rel (e.g. "caps/mtc", "max_nonturbo_ratio")
 * in @base (0: C rules, 16: hex without 0x).  Returns 0, -ENOENT when the
 * file is absent, -QPT_E_FORMAT if it does not hold a number.
 */
int qpt_pmu_read_u64(const struct qpt_pmu *pmu, const char *rel, int base,
		     uint64_t *value);

#endif /* QPT_CAPTURE_PMU_H */
