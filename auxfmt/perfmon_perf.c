// SPDX-License-Identifier: MIT
/* A perfmon buffer's LAST_BRANCH records as perf.data branch-stack
 * samples. */
#include <string.h>
#include <linux/perf_event.h>

#include "auxfmt/perfmon_priv.h"
#include "qpt/writer.h"

#define SAMPLE_TYPE                                                          \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |               \
	 PERF_SAMPLE_BRANCH_STACK)

static int setup(struct qpt_perfmon *pm, struct qpt_writer *w)
{
	static const char *const arch[] = { NULL, "x86_64", "aarch64" };
	struct perf_event_attr a;
	uint64_t id = 1;
	int err;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.size = sizeof(a);
	a.sample_period = 1;
	a.sample_type = SAMPLE_TYPE;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	err = qpt_writer_add_attr(w, &a, &id, 1, NULL);
	if (!err) /* perf record's mark of branch stacks */
		err = qpt_writer_set_feature_raw(w, QPT_FEAT_BRANCH_STACK,
						 NULL, 0);
	if (!err && pm->hdr.arch && pm->hdr.arch < 3)
		err = qpt_writer_set_feature_string(w, QPT_FEAT_ARCH,
						    arch[pm->hdr.arch]);
	return err;
}

/* @ticks at @tps ticks per second, in nanoseconds (ticks as they are when
 * the rate is unknown). */
static uint64_t to_ns(int64_t ticks, int64_t tps)
{
	if (tps <= 0 || ticks < 0)
		return (uint64_t)ticks;
	return (uint64_t)((unsigned __int128)(uint64_t)ticks * 1000000000u /
			  (uint64_t)tps);
}

static int sample(struct qpt_writer *w, const struct qpt_perfmon_record *r,
		  uint64_t time)
{
	uint64_t rec[4 + 2 + 3 * QPT_PERFMON_MAX_BRANCHES], *p = rec + 1;
	struct perf_event_header h;
	int32_t id = r->aspace <= INT32_MAX ? (int32_t)r->aspace : -1;
	uint32_t ids[2] = { (uint32_t)id, (uint32_t)id };
	uint32_t i;

	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	*p++ = r->num_branches ? r->branches[0].to : 0;
	memcpy(p++, ids, 8);
	*p++ = time;
	*p++ = r->num_branches;
	for (i = 0; i < r->num_branches; i++) {
		struct perf_branch_entry b;

		memset(&b, 0, sizeof(b));
		b.from = r->branches[i].from;
		b.to = r->branches[i].to;
		b.cycles = r->branches[i].info & QPT_PERFMON_INFO_CYCLES_MASK;
		b.mispred = !!(r->branches[i].info & QPT_PERFMON_INFO_MISPRED);
		memcpy(p, &b, 24);
		p += 3;
	}
	h.size = (uint16_t)((p - rec) * 8);
	memcpy(rec, &h, sizeof(h));
	return qpt_writer_write(w, rec);
}

int qpt_perfmon_to_perf(struct qpt_perfmon *pm, struct qpt_writer *w,
			uint64_t *skipped)
{
	struct qpt_perfmon_record r;
	uint64_t time = 0;
	int err, n = 0;

	*skipped = 0;
	err = setup(pm, w);
	while (!err && (err = qpt_perfmon_next(pm, &r, NULL)) > 0) {
		err = 0;
		if (r.type == QPT_PERFMON_TIME)
			time = to_ns(r.time, pm->hdr.ticks_per_second);
		else if (r.type != QPT_PERFMON_LAST_BRANCH)
			(*skipped)++;
		else if (!(err = sample(w, &r, time)))
			n++;
	}
	return err < 0 ? err : n;
}
