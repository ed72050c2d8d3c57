// SPDX-License-Identifier: MIT
/*
 * A recording's output: the writer with the attrs and their ids, the host
 * features, AUXTRACE_INFO and TIME_CONV, the synthesized sideband of the
 * targets, and at the end the build-ids of every mapped file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/crash.h"
#include "auxfmt/writer_io.h"
#include "capture/recorder.h"
#include "capture/hostinfo.h"
#include "capture/synth.h"
#include "qpt/reader.h"

int rec_remember_file(struct qpt_recorder *rec,
		      const struct perf_event_header *h)
{
	struct qpt_record r = {.type = h->type, .misc = h->misc,
			       .size = h->size, .data = h};
	struct qpt_mmap_event m;
	struct rec_file *nf;
	size_t i;

	/* a path, NUL-terminated within the record */
	if (qpt_mmap_parse(&r, &m) < 0 ||
	    m.filename + m.filename_len >= (const char *)h + h->size ||
	    m.filename[0] != '/')
		return 0;
	for (i = 0; i < rec->nr_files; i++)
		if (!strcmp(rec->files[i].name, m.filename))
			return 0;
	nf = realloc(rec->files, (rec->nr_files + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	rec->files = nf;
	nf += rec->nr_files;
	nf->name = strndup(m.filename, m.filename_len);
	if (!nf->name)
		return -ENOMEM;
	nf->misc = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	rec->nr_files++;
	return 0;
}

static int sink_record(void *ctx, const struct perf_event_header *rec_hdr)
{
	struct qpt_recorder *rec = ctx;
	int err;

	err = rec_remember_file(rec, rec_hdr);
	if (!err)
		err = rec_uprobe_sample(rec, rec_hdr);
	if (err < 0)
		return err;
	rec->records_since_round++;
	return qpt_writer_write(rec->writer, rec_hdr);
}

static int sink_auxtrace(void *ctx, const struct qpt_record_auxtrace *hdr,
			 const struct iovec *iov, int iovcnt)
{
	struct qpt_recorder *rec = ctx;

	rec->records_since_round++;
	return qpt_writer_write_auxtrace(rec->writer, hdr, iov, iovcnt);
}

static int synth_emit(void *ctx, const struct perf_event_header *h)
{
	return sink_record(ctx, h);
}

static int write_auxtrace_info(struct qpt_recorder *rec)
{
	uint64_t buf[QPT_AUXTRACE_INFO_MAX / 8];
	struct qpt_auxtrace_ctx ctx;
	int size;

	memset(&ctx, 0, sizeof(ctx));
	ctx.pmu = rec->aux_ev->pmu;
	ctx.attr = &rec->evs[0].attr;
	ctx.page = rec->rings[0].ring.page;
	ctx.snapshot = rec->o.snapshot;
	ctx.per_cpu = !rec->o.per_thread;
	/* perf: context-switch events, CPU-wide (3) or per-thread (2). */
	ctx.have_sched_switch = rec->o.per_thread ? 2 : 3;
	size = rec->aux_ev->aux->info(&ctx, buf, sizeof(buf));
	if (size < 0)
		return size;
	return qpt_writer_write(rec->writer, buf);
}

static int write_time_conv(struct qpt_recorder *rec)
{
	const struct perf_event_mmap_page *pg = rec->rings[0].ring.page;
	struct qpt_record_time_conv tc;

	if (!pg->cap_user_time_zero)
		return 0;
	memset(&tc, 0, sizeof(tc));
	tc.header.type = QPT_RECORD_TIME_CONV;
	tc.header.size = sizeof(tc);
	tc.time_shift = pg->time_shift;
	tc.time_mult = pg->time_mult;
	tc.time_zero = pg->time_zero;
	tc.time_cycles = pg->time_cycles;
	tc.time_mask = pg->time_mask;
	tc.cap_user_time_zero = 1;
	tc.cap_user_time_short = pg->cap_user_time_short;
	return qpt_writer_write(rec->writer, &tc);
}

/* COMM and MMAP2 of the processes already running: -p's, or all of them
 * with -a/-C.  A command is exec'd under the events: the kernel reports
 * its mappings itself. */
static int synth_targets(struct qpt_recorder *rec)
{
	struct dirent *de;
	DIR *d;
	int err = 0, pid;

	if (rec->o.pid)
		return qpt_synth_process("/proc", rec->o.pid, rec->id_hdr_size,
					 synth_emit, rec);
	if (rec->child)
		return 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		err = qpt_synth_process("/proc", pid, rec->id_hdr_size,
					synth_emit, rec);
		if (err == -ESRCH || err == -EACCES || err == -ENOENT)
			err = 0; /* gone, or a kernel thread */
		if (err < 0)
			break;
	}
	closedir(d);
	return err < 0 ? err : 0;
}

/* Append a PMU_MAPPINGS entry: u32 type, then perf's string (u32 length,
 * NUL included and aligned to 64, then the bytes). */
static int put_mapping(uint8_t **buf, size_t *len, uint32_t type,
		       const char *name)
{
	size_t slen = strlen(name);
	uint32_t n = (uint32_t)((slen + 1 + 63) & ~(size_t)63);
	uint8_t *nb = realloc(*buf, *len + 8 + n);

	if (!nb)
		return -ENOMEM;
	memcpy(nb + *len, &type, 4);
	memcpy(nb + *len + 4, &n, 4);
	memset(nb + *len + 8, 0, n);
	memcpy(nb + *len + 8, name, slen);
	*buf = nb;
	*len += 8 + n;
	return 0;
}

/* PMU_MAPPINGS as perf writes it: every PMU in sysfs, type and name. */
static int write_pmu_mappings(struct qpt_recorder *rec)
{
	const char *root =
	    rec->o.sysfs_root ? rec->o.sysfs_root : QPT_SYSFS_PMU_ROOT;
	uint8_t *buf = calloc(1, 4);
	size_t len = 4;
	uint32_t nr = 0;
	struct qpt_pmu *pmu;
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (!buf)
		return -ENOMEM;
	d = opendir(root);
	while (d && !err && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    qpt_pmu_open(root, de->d_name, &pmu) < 0)
			continue;
		err = put_mapping(&buf, &len, pmu->type, pmu->name);
		nr++;
		qpt_pmu_free(pmu);
	}
	if (d)
		closedir(d);
	memcpy(buf, &nr, 4);
	if (!err && nr)
		err = qpt_writer_set_feature_raw(
		    rec->writer, QPT_FEAT_PMU_MAPPINGS, buf, len);
	free(buf);
	return err;
}

/* The writer on the output, the host features, the consumers' sink. */
int rec_open_writer(struct qpt_recorder *rec)
{
	struct qpt_host_probe *host;
	struct qpt_writer_opts wo;
	int err;

	qpt_writer_opts_init(&wo);
	wo.compress = rec->o.compress;
	wo.log = rec->o.log;
	wo.log_ctx = rec->o.log_ctx;
	err = qpt_writer_open_io(rec->o.output, &wo,
				 rec->sys ? rec->sys->out : NULL,
				 &rec->writer);
	if (err < 0)
		return rec_fail(rec, err, "%s: %s", rec->o.output,
				qpt_strerror(err));
	rec->sink.record = sink_record;
	rec->sink.auxtrace = sink_auxtrace;
	rec->sink.ctx = rec;
	host = malloc(sizeof(*host));
	if (!host)
		return -ENOMEM;
	qpt_host_probe(host, rec->o.cmd_argc, rec->o.cmd_argv);
	err = qpt_writer_set_host_info(rec->writer, &host->info);
	free(host);
	return err;
}

int rec_open_output(struct qpt_recorder *rec)
{
	size_t i;
	int err;

	err = rec_open_writer(rec);
	if (err < 0)
		return err;
	for (i = 0; i < rec->nr_evs; i++) {
		err = qpt_writer_add_attr(rec->writer, &rec->evs[i].attr,
					  rec->evs[i].ids, rec->evs[i].nr_ids,
					  rec->evs[i].name);
		if (err < 0)
			return err;
	}
	if (rec_crash_wanted(rec)) {
		err = crash_add_attr(rec->writer);
		if (err < 0)
			return err;
	}
	err = write_pmu_mappings(rec);
	if (err < 0)
		return err;
	if (rec->aux_ev) {
		err = write_auxtrace_info(rec);
		if (err < 0)
			return err;
	}
	err = write_time_conv(rec);
	if (err < 0)
		return err;
	err = synth_targets(rec);
	if (err < 0)
		return rec_fail(rec, err,
				"cannot read the targets' mappings: "
				"%s",
				qpt_strerror(err));
	/* From here on, the file on disk reads as a whole. */
	err = qpt_writer_flush(rec->writer);
	if (err < 0)
		return rec_fail(rec, err, "%s: %s", rec->o.output,
				qpt_strerror(err));
	return 0;
}

int rec_write_build_ids(struct qpt_recorder *rec)
{
	uint8_t id[64];
	size_t i;
	int len, err;

	for (i = 0; i < rec->nr_files; i++) {
		len = qpt_build_id_read(rec->files[i].name, id, sizeof(id));
		if (len <= 0 || len > 20)
			continue; /* gone, not ELF, or no build-id */
		err = qpt_writer_add_build_id(rec->writer, -1, id, (size_t)len,
					      rec->files[i].name,
					      rec->files[i].misc);
		if (err < 0)
			return err;
	}
	return 0;
}
