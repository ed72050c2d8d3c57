// SPDX-License-Identifier: MIT
/*
 * qpt_emulate_record: the emulated Intel PT source wired to the recording
 * pipeline.  Each traced thread gets a simulated kernel (control page,
 * data ring, AUX area written by the kernel's rules) as a per-thread
 * perf mmap would be, drained by the ring consumer into the auxfmt writer.
 * The producer and the consumer share one thread here: the consumer
 * drains a ring whenever the next write could find it full, as a reader
 * keeping up would (so, as with hardware, only an area smaller than a
 * write, or snapshot mode, loses or overwrites trace).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/auxtrace.h"
#include "capture/buildid_cache.h"
#include "capture/emulate/crash.h"
#include "capture/emulate/record.h"
#include "capture/emulate/pt.h"
#include "capture/emulate/sideband.h"
#include "capture/emulate/trace.h"
#include "capture/ring.h"
#include "capture/simkern.h"
#include "qpt/emulate.h"
#include "qpt/writer.h"

#define EMU_ID 1
#define EMU_DEFAULT_DATA_PAGES 128
#define EMU_DEFAULT_AUX_PAGES 1024

struct emu_ring {
	pid_t tid;
	struct qpt_simkern *sk;
	struct qpt_consumer *cons;
	uint64_t aux_pending, data_pending;
};

struct emu_rec {
	const struct qpt_emulate_opts *o;
	struct qpt_writer *writer;
	struct qpt_sink sink;
	struct emu_ring *rings;
	size_t nr_rings, cap_rings;
	uint64_t data_size, aux_size;
	uint32_t next_idx;
	struct qpt_capture_stats stats;
	char *vdso_path; /* OUTPUT.vdso; NULL in a pipe */
	bool vdso_kept;
	struct emu_crashes crashes;
	int err;
};

void qpt_emulate_opts_init(struct qpt_emulate_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->output = "perf.data";
	opts->psb_period = 3;
	opts->mtc_period = 3;
}

static void set_error(const struct qpt_emulate_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(const struct qpt_emulate_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->errbuf || !o->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(o->errbuf, o->errlen, fmt, ap);
	va_end(ap);
}

static void emu_attr(const struct qpt_emulate_opts *o,
		     struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = QPT_EMULATE_PMU_TYPE;
	attr->size = sizeof(*attr);
	/* format bits of the Linux intel_pt PMU: pt config:0, cyc config:1,
	 * mtc config:9, tsc config:10, noretcomp config:11, branch
	 * config:13, mtc_period config:14-17, cyc_thresh config:19-22,
	 * psb_period config:24-27 */
	attr->config = 1ULL | 1ULL << 13 | (uint64_t)o->psb_period << 24 |
		       (o->noretcomp ? 1ULL << 11 : 0) |
		       (o->tsc ? 1ULL << 10 : 0);
	if (o->mtc)
		attr->config |= 1ULL << 9 | (uint64_t)o->mtc_period << 14;
	if (o->cyc)
		attr->config |= 1ULL << 1 | (uint64_t)o->cyc_thresh << 19;
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

static int write_header(struct emu_rec *er)
{
	const struct qpt_emulate_opts *o = er->o;
	uint64_t info[QPT_AUXTRACE_INFO_MAX / 8];
	struct qpt_intel_pt_params p;
	struct qpt_writer_opts wo;
	struct perf_event_attr attr;
	uint64_t id = EMU_ID;
	int err, size;

	qpt_writer_opts_init(&wo);
	wo.compress = o->compress;
	wo.log = o->log;
	wo.log_ctx = o->log_ctx;
	err = qpt_writer_open(o->output, &wo, &er->writer);
	if (err < 0) {
		set_error(o, "%s: %s", o->output, qpt_strerror(err));
		return err;
	}
	qpt_sink_writer(&er->sink, er->writer);
	emu_attr(o, &attr);
	err = qpt_writer_add_attr(er->writer, &attr, &id, 1,
				  QPT_EMULATE_EVENT_NAME);
	if (!err && o->cmd_argv)
		err = qpt_writer_set_host_features(er->writer, o->cmd_argc,
						   o->cmd_argv);
	if (err)
		return err;
	qpt_intel_pt_params_default(&p);
	p.pmu_type = QPT_EMULATE_PMU_TYPE;
	p.snapshot_mode = o->snapshot;
	p.per_cpu_mmaps = false;
	/* the emulated CPU: CPUID 0x15 and the max non-turbo ratio of
	 * emulate/pt.h, whatever the host has */
	p.tsc_ctc_n = EMU_PT_TSC_CTC_N;
	p.tsc_ctc_d = EMU_PT_TSC_CTC_D;
	p.max_nonturbo_ratio = EMU_PT_CBR;
	if (o->tsc || o->mtc || o->cyc) {
		p.time_shift = 0;
		p.time_mult = 1;
		p.time_zero = 0;
		p.cap_user_time_zero = true;
	}
	size = qpt_intel_pt_info_fill(&p, info, sizeof(info));
	if (size < 0)
		return size;
	return qpt_writer_write(er->writer, info);
}

static struct emu_ring *find_ring(struct emu_rec *er, pid_t tid)
{
	size_t i;

	for (i = 0; i < er->nr_rings; i++)
		if (er->rings[i].tid == tid && er->rings[i].sk)
			return &er->rings[i];
	return NULL;
}

static int on_thread_new(void *ctx, pid_t pid, pid_t tid)
{
	struct emu_rec *er = ctx;
	struct qpt_simkern_opts so;
	struct qpt_ring ring;
	struct emu_ring *r;
	int err;

	if (!er->writer) {
		err = write_header(er);
		if (err)
			return err;
	}
	if (er->nr_rings == er->cap_rings) {
		size_t cap = er->cap_rings ? 2 * er->cap_rings : 8;

		r = realloc(er->rings, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		er->rings = r;
		er->cap_rings = cap;
	}
	r = &er->rings[er->nr_rings];
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	qpt_simkern_opts_init(&so);
	so.data_size = er->data_size;
	so.aux_size = er->aux_size;
	so.aux_overwrite = er->o->snapshot;
	so.enabled = true;
	so.sample_id_all = true;
	so.sample_type = EMU_SAMPLE_TYPE;
	so.id = EMU_ID;
	so.pid = (uint32_t)pid;
	so.tid = (uint32_t)tid;
	so.cpu = UINT32_MAX;
	so.idx = er->next_idx++;
	so.ring_tid = (uint32_t)tid;
	so.ring_cpu = UINT32_MAX;
	err = qpt_simkern_new(&so, &r->sk);
	if (err)
		return err;
	qpt_simkern_ring(r->sk, &ring);
	err = qpt_consumer_new(&ring, &er->sink, &r->cons);
	if (err) {
		qpt_simkern_free(r->sk);
		r->sk = NULL;
		return err;
	}
	er->nr_rings++;
	return 0;
}

static int drain(struct emu_rec *er, struct emu_ring *r)
{
	int err;

	if (er->o->snapshot)
		err = qpt_consumer_read_data(r->cons);
	else
		err = qpt_consumer_drain(r->cons);
	r->data_pending = 0;
	if (!er->o->snapshot)
		r->aux_pending = 0;
	return err < 0 ? err : 0;
}

static int on_aux(void *ctx, pid_t tid, const uint8_t *buf, size_t len)
{
	struct emu_rec *er = ctx;
	struct emu_ring *r = find_ring(er, tid);
	int64_t n;
	int err;

	if (!r)
		return -QPT_E_STATE;
	if ((!er->o->snapshot && r->aux_pending + len > er->aux_size) ||
	    r->data_pending + 256 > er->data_size / 2) {
		err = drain(er, r);
		if (err)
			return err;
	}
	qpt_simkern_set_time(r->sk, emu_sb_time());
	n = qpt_simkern_aux_write(r->sk, buf, len, 0);
	if (n < 0)
		return (int)n;
	r->aux_pending += len;
	r->data_pending += 64;
	return 0;
}

static int on_record(void *ctx, pid_t tid, const struct perf_event_header *h)
{
	struct emu_rec *er = ctx;
	struct emu_ring *r = find_ring(er, tid);
	int err;

	if (!r)
		return -QPT_E_STATE;
	/* the trace of an exiting thread goes out before its EXIT, so that
	 * a reader decoding at EXIT (perf in pipe mode) has all of it */
	if (r->data_pending + h->size > er->data_size / 2 ||
	    (h->type == PERF_RECORD_EXIT && !er->o->snapshot)) {
		err = drain(er, r);
		if (err)
			return err;
	}
	err = qpt_simkern_output(r->sk, h);
	r->data_pending += h->size;
	return err < 0 ? err : 0;
}

static int snapshot(struct emu_rec *er, struct emu_ring *r)
{
	int64_t n;

	n = qpt_consumer_snapshot(r->cons, er->o->snapshot_size);
	if (n < 0)
		return (int)n;
	return drain(er, r);
}

/* Final drain (or snapshot) of a ring; its counters go to the total. */
static int close_ring(struct emu_rec *er, struct emu_ring *r)
{
	int err;

	err = er->o->snapshot ? snapshot(er, r) : drain(er, r);
	qpt_consumer_add_stats(r->cons, &er->stats);
	qpt_consumer_free(r->cons);
	qpt_simkern_free(r->sk);
	r->cons = NULL;
	r->sk = NULL;
	return err;
}

static int on_thread_exit(void *ctx, pid_t tid)
{
	struct emu_rec *er = ctx;
	struct emu_ring *r = find_ring(er, tid);

	return r ? close_ring(er, r) : 0;
}

/* A snapshot of every thread's ring. */
static int snapshot_all(struct emu_rec *er)
{
	size_t i;
	int err;

	for (i = 0; i < er->nr_rings; i++) {
		if (!er->rings[i].sk)
			continue;
		err = snapshot(er, &er->rings[i]);
		if (err)
			return err;
	}
	er->stats.snapshots++;
	return 0;
}

static int on_poll(void *ctx, uint64_t insns)
{
	struct emu_rec *er = ctx;

	if (er->o->progress)
		er->o->progress(insns, er->o->progress_ctx);
	if (!er->o->snapshot_request || !*er->o->snapshot_request)
		return 0;
	*er->o->snapshot_request = 0;
	return snapshot_all(er);
}

/* --snapshot-on: a snapshot, and where and when it was taken. */
static int on_trigger(void *ctx, pid_t pid, pid_t tid,
		      const struct user_regs_struct *regs)
{
	struct emu_rec *er = ctx;
	int err;

	err = emu_crash_add(&er->crashes, QPT_CRASH_TRIGGER, pid, tid, NULL,
			    regs, NULL, 0, emu_sb_time());
	return err ? err : snapshot_all(er);
}

static void warn(const struct qpt_emulate_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(const struct qpt_emulate_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->log(QPT_LOG_WARN, msg, o->log_ctx);
}

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * The vDSO of the traced processes (the same for all: the first one is
 * kept): OUTPUT.vdso, its build-id in BUILD_ID and the bytes in the
 * build-id cache, as perf record keeps them.
 */
static int on_vdso(void *ctx, pid_t pid, const uint8_t *buf, size_t len,
		   const uint8_t *bid, size_t bid_len)
{
	struct emu_rec *er = ctx;
	const struct qpt_emulate_opts *o = er->o;
	char *cached = NULL;
	int err;

	if (er->vdso_kept)
		return 0;
	er->vdso_kept = true;
	if (er->vdso_path) {
		err = write_file(er->vdso_path, buf, len);
		if (err)
			warn(o, "%s: %s: vDSO code will not decode",
			     er->vdso_path, strerror(-err));
	}
	if (!bid_len)
		return 0; /* decoders use their own vDSO */
	err = qpt_writer_add_build_id(er->writer, -1, bid, bid_len, "[vdso]",
				      PERF_RECORD_MISC_USER);
	if (err)
		return err;
	if (o->buildid_dir) {
		err = qpt_buildid_cache_add(o->buildid_dir, "[vdso]", "vdso",
					    bid, bid_len, buf, len, &cached);
		if (err == -ENOMEM)
			return err;
		if (err)
			warn(o, "%s: %s: the vDSO is not in the build-id cache",
			     o->buildid_dir, strerror(-err));
	}
	if (!er->vdso_path)
		warn(o,
		     "%s: the vDSO's code cannot travel in the stream (no "
		     "perf record carries it)%s%s",
		     o->output,
		     cached ? "; it is in the build-id cache: "
			    : " nor is it in the build-id cache: it will not "
			      "decode",
		     cached ? cached : "");
	free(cached);
	return 0;
}

static int on_crash(void *ctx, pid_t pid, pid_t tid, const siginfo_t *si,
		    const struct user_regs_struct *regs, const uint8_t *insn,
		    size_t insn_len)
{
	struct emu_rec *er = ctx;

	if (!strcmp(er->o->output, "-") && !er->crashes.nr)
		warn(er->o, "%s: the crash facts cannot travel in a pipe "
			    "(perf knows no record for them)", er->o->output);
	return emu_crash_add(&er->crashes, QPT_CRASH_SIGNAL, pid, tid, si,
			     regs, insn, insn_len, emu_sb_time());
}

static const struct emu_sink_ops record_ops = {
    .thread_new = on_thread_new,
    .aux = on_aux,
    .record = on_record,
    .thread_exit = on_thread_exit,
    .vdso = on_vdso,
    .poll = on_poll,
    .crash = on_crash,
    .trigger = on_trigger,
};

static int check_opts(const struct qpt_emulate_opts *o, struct emu_rec *er)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t dp = o->data_pages ? o->data_pages : EMU_DEFAULT_DATA_PAGES;
	uint64_t ap = o->aux_pages ? o->aux_pages : EMU_DEFAULT_AUX_PAGES;

	if (o->size < sizeof(*o) || !o->output || !o->argv || !o->argv[0]) {
		set_error(o, "no command to run");
		return -QPT_E_INVAL;
	}
	if ((dp & (dp - 1)) || (ap & (ap - 1)) || dp > (1u << 20) ||
	    ap > (1u << 20) || o->psb_period > 15 || o->mtc_period > 15 ||
	    o->cyc_thresh > 15) {
		set_error(o, "ring sizes must be powers of two pages, "
			     "psb_period, mtc_period and cyc_thresh 0..15");
		return -QPT_E_INVAL;
	}
	er->data_size = dp * (uint64_t)page;
	er->aux_size = ap * (uint64_t)page;
	return 0;
}

/* OUTPUT.vdso beside the output, NULL in a pipe. */
static int vdso_name(struct emu_rec *er)
{
	const char *out = er->o->output;

	if (!strcmp(out, "-"))
		return 0;
	if (asprintf(&er->vdso_path, "%s.vdso", out) < 0) {
		er->vdso_path = NULL;
		return -ENOMEM;
	}
	return 0;
}

int qpt_emulate_record(const struct qpt_emulate_opts *o,
		       struct qpt_emulate_result *res)
{
	return emu_record_run(o, res, NULL, NULL);
}

int emu_record_run(const struct qpt_emulate_opts *o,
		   struct qpt_emulate_result *res,
		   const struct emu_ptrace_ops *ops, void *ops_ctx)
{
	struct emu_trace_opts to;
	struct emu_trace_result tres;
	struct emu_trigger trig;
	struct emu_rec er;
	size_t i;
	int err, cerr;

	memset(&er, 0, sizeof(er));
	memset(res, 0, sizeof(*res));
	er.o = o;
	err = check_opts(o, &er);
	if (!err)
		err = vdso_name(&er);
	if (err)
		return err;
	memset(&to, 0, sizeof(to));
	to.no_aslr = !o->aslr;
	to.inherit = o->inherit;
	to.retcomp = !o->noretcomp;
	to.tsc = o->tsc;
	to.mtc = o->mtc;
	to.cyc = o->cyc;
	to.mtc_period = (uint8_t)o->mtc_period;
	to.cyc_thresh = (uint8_t)o->cyc_thresh;
	to.psb_period = 1u << (o->psb_period + 11);
	to.sample_id = EMU_ID;
	to.crash_signals =
	    o->crash_signals ? o->crash_signals : emu_crash_default_signals();
	if (o->snapshot_on) {
		if (!o->snapshot || emu_trigger_parse(&trig, o->snapshot_on)) {
			set_error(o, "--snapshot-on needs snapshot mode and "
				     "SYMBOL[+OFF]");
			free(er.vdso_path);
			return -QPT_E_INVAL;
		}
		to.trigger = &trig;
	}
	/* a reader keeps up at half the area, as perf's aux_watermark */
	to.chunk = (uint32_t)(er.aux_size / 2 < 8192 ? er.aux_size / 2 : 8192);
	to.stop_request = o->stop_request;
	to.stop_grace_ms = o->stop_grace_ms;
	to.ptrace = ops;
	to.ptrace_ctx = ops_ctx;
	to.log = o->log;
	to.log_ctx = o->log_ctx;
	err = emu_trace_run(o->argv, &to, &record_ops, &er, &tres);
	res->insns = tres.insns;
	res->trace_bytes = tres.bytes;
	res->threads = tres.threads;
	res->exit_status = tres.exit_status;
	res->term_signal = tres.term_signal;
	res->exec_failed = tres.exec_failed;
	res->lost_traps = tres.lost_traps;
	res->gaps = tres.gaps;
	if (tres.exec_failed)
		set_error(o, "%s: %s", o->argv[0], strerror(-err));
	else if (err == -EPERM || err == -EACCES)
		set_error(o, "%s: cannot trace it with ptrace: %s", o->argv[0],
			  strerror(-err));
	else if (err)
		set_error(o, "%s: %s", o->output, qpt_strerror(err));
	for (i = 0; i < er.nr_rings; i++)
		if (er.rings[i].sk) {
			cerr = close_ring(&er, &er.rings[i]);
			if (!err)
				err = cerr;
		}
	if (er.writer) {
		cerr = emu_crash_write(&er.crashes, er.writer);
		if (!err)
			err = cerr;
		cerr = qpt_writer_close(er.writer);
		if (!err)
			err = cerr;
		res->output_bytes = qpt_writer_bytes(er.writer);
		qpt_writer_free(er.writer);
	}
	res->capture = er.stats;
	free(er.rings);
	free(er.vdso_path);
	emu_crash_release(&er.crashes);
	return err;
}
