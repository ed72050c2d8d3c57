// SPDX-License-Identifier: MIT
/*
 * What both emulated sources (the ptrace engine's, emulate/record.c, and
 * QEMU's, emulate/qemu/source.c) write and check alike: the options they
 * take, the event's attr and the AUXTRACE_INFO of the emulated Intel PT.
 */
#include "capture/emulate/header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/auxtrace.h"
#include "capture/crash.h"
#include "capture/emulate/pt.h"
#include "capture/emulate/sideband.h"
#include "qpt/writer.h"

/* The intel_pt config the file's attr carries: the terms as asked, the
 * MTC and CYC periods only with their packets. */
static uint64_t attr_config(uint64_t c)
{
	uint64_t out =
	    1ULL | 1ULL << 13 | (c & (15ULL << 24 | 1ULL << 11 | 1ULL << 10));

	if (c & 1ULL << 9)
		out |= c & (1ULL << 9 | 15ULL << 14);
	if (c & 1ULL << 1)
		out |= c & (1ULL << 1 | 15ULL << 19);
	return out;
}

static void attr_of(uint64_t config, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = QPT_EMULATE_PMU_TYPE;
	attr->size = sizeof(*attr);
	attr->config = attr_config(config);
	attr->sample_period = 1;
	attr->sample_type = EMU_SAMPLE_TYPE;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->enable_on_exec = 1;
	attr->sample_id_all = 1;
}

int emu_write_header(struct qpt_recorder *rec, uint64_t config,
		     const char *cpuid)
{
	uint64_t info[QPT_AUXTRACE_INFO_MAX / 8], id = EMU_ID;
	struct qpt_intel_pt_params p;
	struct perf_event_attr attr;
	char *name;
	int err, size;

	err = rec_open_writer(rec);
	if (err < 0)
		return err;
	attr_of(config, &attr);
	if (cpuid)
		err = qpt_writer_set_feature_string(rec->writer, QPT_FEAT_CPUID,
						    cpuid);
	if (err)
		return err;
	if (asprintf(&name, "%s%s", qpt_event_string(rec->aux_ev),
		     QPT_EMULATE_EVENT_MARK) < 0)
		return -ENOMEM;
	err = qpt_writer_add_attr(rec->writer, &attr, &id, 1, name);
	free(name);
	if (!err) /* the crash facts' event: any thread may die */
		err = crash_add_attr(rec->writer);
	if (err)
		return err;
	qpt_intel_pt_params_default(&p);
	p.pmu_type = QPT_EMULATE_PMU_TYPE;
	p.snapshot_mode = rec->o.snapshot;
	p.per_cpu_mmaps = false;
	/* the emulated CPU: CPUID 0x15 and the max non-turbo ratio of
	 * emulate/pt.h, whatever the host has */
	p.tsc_ctc_n = EMU_PT_TSC_CTC_N;
	p.tsc_ctc_d = EMU_PT_TSC_CTC_D;
	p.max_nonturbo_ratio = EMU_PT_CBR;
	if (config & (1ULL << 10 | 1ULL << 9 | 1ULL << 1)) { /* tsc, mtc, cyc */
		p.time_shift = 0;
		p.time_mult = 1;
		p.time_zero = 0;
		p.cap_user_time_zero = true;
	}
	size = qpt_intel_pt_info_fill(&p, info, sizeof(info));
	if (size < 0)
		return size;
	err = qpt_writer_write(rec->writer, info);
	return err < 0 ? err : qpt_writer_flush(rec->writer);
}

int emu_check_opts(struct qpt_recorder *rec)
{
	const struct qpt_event *ev = rec->aux_ev;
	const struct perf_event_attr *attr;
	size_t i;
	uint64_t c;

	if (!rec->o.argv || !rec->o.argv[0] || rec->o.pid || rec->o.all_cpus ||
	    rec->o.cpu_list)
		return rec_fail(rec, -QPT_E_INVAL,
				"the emulation runs a command: no -p, -a or "
				"-C");
	for (i = 0; i < rec->nr_parsed; i++)
		if (strcmp(qpt_event_pmu(rec->parsed[i]), "intel_pt") || i > 0)
			return rec_fail(rec, -QPT_E_INVAL,
					"%s: the emulation records one "
					"intel_pt event only",
					rec->parsed[i]->str);
	attr = qpt_event_attr(ev);
	c = attr->config;
	if (attr->exclude_user)
		return rec_fail(rec, -QPT_E_INVAL,
				"%s: the emulation traces user space", ev->str);
	if ((c & ~QPT_EMULATE_CONFIG_MASK) || !(c & 1) || !(c & 1ULL << 13) ||
	    attr->config1 || attr->config2)
		return rec_fail(rec, -QPT_E_INVAL,
				"%s: config 0x%llx is not emulated (pt and "
				"branch are needed; tsc, mtc, mtc_period, "
				"cyc, cyc_thresh, noretcomp, psb_period are "
				"there)",
				ev->str, (unsigned long long)c);
	if (rec->data_pages > (1u << 20) || rec->aux_pages > (1u << 20))
		return rec_fail(rec, -QPT_E_INVAL,
				"rings of more than 2^20 pages");
	return 0;
}
