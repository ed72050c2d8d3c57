// SPDX-License-Identifier: MIT
/*
 * The emulated Intel PT source of a recording (rec_source_emulate): the
 * ptrace engine (trace.c) runs the command; each traced thread gets a
 * simulated kernel (control page, data ring, AUX area written by the
 * kernel's rules) as a per-thread perf mmap would be, drained by the ring
 * consumer into the recorder's output.  The producer and the consumer
 * share one thread here: the consumer drains a ring whenever the next
 * write could find it full, as a reader keeping up would (so, as with
 * hardware, only an area smaller than a write, or snapshot mode, loses or
 * overwrites trace).  Snapshots, the output, stop and the command's status
 * are the recorder's, as for the PMU source.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/auxtrace.h"
#include "capture/buildid_cache.h"
#include "capture/crash.h"
#include "capture/emulate/header.h"
#include "capture/emulate/pt.h"
#include "capture/emulate/record.h"
#include "capture/emulate/sideband.h"
#include "capture/recorder.h"
#include "capture/ring.h"
#include "capture/simkern.h"
#include "qpt/writer.h"

struct emu_ring {
	pid_t tid;
	struct qpt_simkern *sk;
	struct qpt_consumer *cons;
	uint64_t aux_pending, data_pending;
};

struct emu_src {
	struct qpt_recorder *rec;
	struct emu_ring *rings;
	size_t nr_rings, cap_rings;
	uint64_t data_size, aux_size;
	uint32_t next_idx;
	struct qpt_capture_stats closed; /* of the rings closed */
	char *vdso_path;		 /* OUTPUT.vdso; NULL in a pipe */
	bool vdso_kept;
	uint64_t config; /* intel_pt's, as asked */
	struct emu_trace_opts to;
	struct emu_trace_result tres;
	struct emu_tracer *tr;
	bool done;
	struct crash_list crashes;
	struct emu_trigger trig;
	uint8_t stack[QPT_CRASH_STACK_MAX]; /* a crash's, read */
};

/* The test seam: the next emulated recorder steps through these. */
struct emu_seam {
	const struct emu_ptrace_ops *ops;
	void *ctx;
};

static struct emu_src *src_of(const struct qpt_recorder *rec)
{
	return rec->src_priv;
}

static struct emu_ring *find_ring(struct emu_src *er, pid_t tid)
{
	size_t i;

	for (i = 0; i < er->nr_rings; i++)
		if (er->rings[i].tid == tid && er->rings[i].sk)
			return &er->rings[i];
	return NULL;
}

static int on_thread_new(void *ctx, pid_t pid, pid_t tid)
{
	struct emu_src *er = ctx;
	struct qpt_simkern_opts so;
	struct qpt_ring ring;
	struct emu_ring *r;
	int err;

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
	so.aux_overwrite = er->rec->o.snapshot;
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
	err = qpt_consumer_new(&ring, &er->rec->sink, &r->cons);
	if (err) {
		qpt_simkern_free(r->sk);
		r->sk = NULL;
		return err;
	}
	er->nr_rings++;
	return 0;
}

static int drain(struct emu_src *er, struct emu_ring *r)
{
	int err;

	if (er->rec->o.snapshot)
		err = qpt_consumer_read_data(r->cons);
	else
		err = qpt_consumer_drain(r->cons);
	r->data_pending = 0;
	if (!er->rec->o.snapshot)
		r->aux_pending = 0;
	return err < 0 ? err : 0;
}

/*
 * The source's bytes into the thread's AUX area.  Unlike hardware, the
 * emulator can wait for its reader: in full-trace mode the area is drained
 * before a write could find it full, so no trace is lost whatever the
 * burst (the area holds aux_size - 1 bytes, perf_aux_output_begin's
 * CIRC_SPACE, and a larger write goes in pieces); snapshot mode overwrites
 * as designed.
 */
static int on_aux(void *ctx, pid_t tid, const uint8_t *buf, size_t len)
{
	struct emu_src *er = ctx;
	struct emu_ring *r = find_ring(er, tid);
	size_t piece;
	int64_t n;
	int err;

	if (!r)
		return -QPT_E_STATE;
	for (; len; buf += piece, len -= piece) {
		piece = len < er->aux_size - 1 ? len : er->aux_size - 1;
		if ((!er->rec->o.snapshot &&
		     r->aux_pending + piece >= er->aux_size) ||
		    r->data_pending + 256 > er->data_size / 2) {
			err = drain(er, r);
			if (err)
				return err;
		}
		qpt_simkern_set_time(r->sk, emu_sb_time());
		n = qpt_simkern_aux_write(r->sk, buf, piece, 0);
		if (n < 0)
			return (int)n;
		r->aux_pending += piece;
		r->data_pending += 64;
	}
	return 0;
}

static int on_record(void *ctx, pid_t tid, const struct perf_event_header *h)
{
	struct emu_src *er = ctx;
	struct emu_ring *r = find_ring(er, tid);
	int err;

	if (!r)
		return -QPT_E_STATE;
	/* the trace of an exiting thread goes out before its EXIT, so that
	 * a reader decoding at EXIT (perf in pipe mode) has all of it */
	if (r->data_pending + h->size > er->data_size / 2 ||
	    (h->type == PERF_RECORD_EXIT && !er->rec->o.snapshot)) {
		err = drain(er, r);
		if (err)
			return err;
	}
	err = qpt_simkern_output(r->sk, h);
	r->data_pending += h->size;
	return err < 0 ? err : 0;
}

static int64_t snapshot(struct emu_src *er, struct emu_ring *r)
{
	int64_t n;
	int err;

	n = qpt_consumer_snapshot(r->cons, er->rec->o.snapshot_size);
	if (n < 0)
		return n;
	err = drain(er, r);
	return err < 0 ? err : n;
}

/* Final drain (or snapshot) of a ring; its counters go to the total. */
static int close_ring(struct emu_src *er, struct emu_ring *r)
{
	int64_t err;

	err = er->rec->o.snapshot ? snapshot(er, r) : drain(er, r);
	qpt_consumer_add_stats(r->cons, &er->closed);
	qpt_consumer_free(r->cons);
	qpt_simkern_free(r->sk);
	r->cons = NULL;
	r->sk = NULL;
	return err < 0 ? (int)err : 0;
}

static int on_thread_exit(void *ctx, pid_t tid)
{
	struct emu_src *er = ctx;
	struct emu_ring *r = find_ring(er, tid);

	return r ? close_ring(er, r) : 0;
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
	struct emu_src *er = ctx;
	struct qpt_recorder *rec = er->rec;
	const char *dir = rec->o.buildid_dir;
	char *cached = NULL;
	int err;

	if (er->vdso_kept)
		return 0;
	er->vdso_kept = true;
	if (er->vdso_path) {
		err = write_file(er->vdso_path, buf, len);
		if (err)
			rec_log(rec, QPT_LOG_WARN,
				"%s: %s: vDSO code will not decode",
				er->vdso_path, strerror(-err));
	}
	if (!bid_len)
		return 0; /* decoders use their own vDSO */
	err = qpt_writer_add_build_id(rec->writer, -1, bid, bid_len, "[vdso]",
				      PERF_RECORD_MISC_USER);
	if (err)
		return err;
	if (dir) {
		err = qpt_buildid_cache_add(dir, "[vdso]", "vdso", bid, bid_len,
					    buf, len, &cached);
		if (err == -ENOMEM)
			return err;
		if (err)
			rec_log(rec, QPT_LOG_WARN,
				"%s: %s: the vDSO is not in the build-id cache",
				dir, strerror(-err));
	}
	if (!er->vdso_path)
		rec_log(rec, QPT_LOG_WARN,
			"%s: the vDSO's code cannot travel in the stream (no "
			"perf record carries it)%s%s",
			rec->o.output,
			cached ? "; it is in the build-id cache: "
			       : " nor is it in the build-id cache: it will "
				 "not decode",
			cached ? cached : "");
	free(cached);
	return 0;
}

static int on_crash(void *ctx, pid_t pid, pid_t tid, const siginfo_t *si,
		    const struct user_regs_struct *regs, const uint8_t *insn,
		    size_t insn_len)
{
	struct emu_src *er = ctx;
	size_t len;

	/* the stack as the thread left it, while it is held */
	len = crash_read_stack(tid, regs->rsp, er->stack, sizeof(er->stack));
	return crash_add(&er->crashes, QPT_CRASH_SIGNAL, pid, tid, si, regs,
			 insn, insn_len, emu_sb_time(), er->stack, len);
}

static int64_t snapshot_all(struct emu_src *er);

/* --snapshot-on: a snapshot, and where and when it was taken. */
static int on_trigger(void *ctx, pid_t pid, pid_t tid,
		      const struct user_regs_struct *regs)
{
	struct emu_src *er = ctx;
	int64_t n;
	int err;

	err = crash_add(&er->crashes, QPT_CRASH_TRIGGER, pid, tid, NULL, regs,
			NULL, 0, emu_sb_time(), NULL, 0);
	n = err ? err : snapshot_all(er);
	return n < 0 ? (int)n : 0;
}

static const struct emu_sink_ops record_ops = {
    .thread_new = on_thread_new,
    .aux = on_aux,
    .record = on_record,
    .thread_exit = on_thread_exit,
    .vdso = on_vdso,
    .crash = on_crash,
    .trigger = on_trigger,
};

/* The engine's options from the event's config (the driver's format). */
static void trace_opts(struct emu_src *er, const struct emu_seam *seam)
{
	struct qpt_recorder *rec = er->rec;
	struct emu_trace_opts *to = &er->to;
	uint64_t c = er->config;

	to->step = rec->o.emulate_step;
	to->bind = rec->o.emulate_cpu != QPT_CPU_UNBOUND;
	to->cpu = rec->o.emulate_cpu;
	to->no_aslr = !rec->o.aslr;
	to->inherit = rec->o.inherit;
	to->retcomp = !(c & 1ULL << 11);
	to->tsc = c >> 10 & 1;
	to->mtc = c >> 9 & 1;
	to->cyc = c >> 1 & 1;
	to->mtc_period = (uint8_t)(c >> 14 & 15);
	to->cyc_thresh = (uint8_t)(c >> 19 & 15);
	to->psb_period = 1u << ((c >> 24 & 15) + 11);
	to->sample_id = EMU_ID;
	/* a reader keeps up at half the area, as perf's aux_watermark */
	to->chunk = (uint32_t)(er->aux_size / 2 < 8192 ? er->aux_size / 2
						       : 8192);
	to->stop_request = rec->o.stop_request;
	to->stop_grace_ms = rec->o.stop_grace_ms;
	to->ptrace = seam ? seam->ops : NULL;
	to->ptrace_ctx = seam ? seam->ctx : NULL;
	to->log = rec->o.log;
	to->log_ctx = rec->o.log_ctx;
	to->crash_signals = rec->o.crash_signals ? rec->o.crash_signals
						 : crash_default_signals();
	to->trigger = rec->o.snapshot_on ? &er->trig : NULL;
}

static int emu_open(struct qpt_recorder *rec)
{
	long page = sysconf(_SC_PAGESIZE);
	struct emu_src *er;
	int err;

	err = emu_check_opts(rec);
	if (err < 0)
		return err;
	er = calloc(1, sizeof(*er));
	if (er && rec->o.snapshot_on &&
	    (!rec->o.snapshot ||
	     emu_trigger_parse(&er->trig, rec->o.snapshot_on))) {
		free(er);
		return rec_fail(rec, -QPT_E_INVAL,
				"--snapshot-on needs snapshot mode and "
				"SYMBOL[+OFF]");
	}
	if (!er)
		return -ENOMEM;
	rec->src_priv = er;
	er->rec = rec;
	er->config = qpt_event_attr(rec->aux_ev)->config;
	er->data_size = rec->data_pages * (uint64_t)page;
	er->aux_size = rec->aux_pages * (uint64_t)page;
	er->tres.wait_status = -1;
	trace_opts(er, rec->seam);
	if (strcmp(rec->o.output, "-") &&
	    asprintf(&er->vdso_path, "%s.vdso", rec->o.output) < 0) {
		er->vdso_path = NULL;
		return -ENOMEM;
	}
	return emu_write_header(rec, er->config, NULL);
}

static int trace_error(struct qpt_recorder *rec, int err)
{
	struct emu_src *er = src_of(rec);

	if (er->tres.exec_failed)
		return rec_fail(rec, err, "%s: %s", rec->o.argv[0],
				strerror(-err));
	if (er->tres.bind_errno && rec->o.emulate_cpu >= 0)
		return rec_fail(
		    rec, err, "cannot bind the command to CPU %d: %s",
		    rec->o.emulate_cpu, strerror(er->tres.bind_errno));
	if (er->tres.bind_errno)
		return rec_fail(rec, err,
				"cannot bind the command to a CPU: %s",
				strerror(er->tres.bind_errno));
	if (err == -EPERM || err == -EACCES)
		return rec_fail(rec, err, "%s: cannot trace it with ptrace: %s",
				rec->o.argv[0], strerror(-err));
	if (er->tres.pt_error)
		return rec_fail(rec, err, "%s: the Intel PT encoder failed: %s",
				rec->o.argv[0], er->tres.pt_error);
	return rec_fail(rec, err, "%s: %s", rec->o.output, qpt_strerror(err));
}

/* The command forked, traced, stopped at its exec. */
static int emu_start(struct qpt_recorder *rec)
{
	struct emu_src *er = src_of(rec);
	int err;

	err = emu_trace_start(rec->o.argv, &er->to, &record_ops, er, &er->tres,
			      &er->tr);
	if (er->tr)
		rec->child = emu_trace_child(er->tr);
	if (err < 0) {
		rec->exec_failed = er->tres.exec_failed;
		er->done = true;
		return trace_error(rec, err);
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The run's end seen: the command's status, the output flushed. */
static int run_over(struct qpt_recorder *rec, int ret)
{
	struct emu_src *er = src_of(rec);
	int err;

	er->done = true;
	rec->status = er->tres.wait_status;
	if (ret < 0)
		return trace_error(rec, ret);
	err = qpt_writer_flush(rec->writer);
	return err < 0 ? err : 1;
}

static int emu_poll(struct qpt_recorder *rec, int timeout_ms)
{
	struct emu_src *er = src_of(rec);
	int ret;

	if (!er->tr)
		return -QPT_E_STATE; /* not started */
	if (er->done)
		return 1;
	ret = emu_trace_continue(er->tr, now_ns() + (uint64_t)(timeout_ms > 0
							      ? timeout_ms
							      : 1) *
							  1000000u);
	if (ret == 0)
		return qpt_writer_flush(rec->writer);
	return run_over(rec, ret);
}

/* A snapshot waits this long at most for threads running natively to stop
 * and tell what they ran. */
#define EMU_QUIESCE_MS 500

static int64_t emu_snapshot(struct qpt_recorder *rec)
{
	struct emu_src *er = src_of(rec);
	int err = 0;

	/* what the threads ran up to now, in their AUX areas */
	if (er->tr && !er->done) {
		err = emu_trace_quiesce(er->tr,
					now_ns() + EMU_QUIESCE_MS * 1000000ull);
		if (err)
			err = run_over(rec, err);
	}
	if (err < 0)
		return err;
	return snapshot_all(er);
}

/* A snapshot of every thread's ring; the bytes written. */
static int64_t snapshot_all(struct emu_src *er)
{
	int64_t total = 0, n;
	size_t i;

	for (i = 0; i < er->nr_rings; i++) {
		if (!er->rings[i].sk)
			continue;
		n = snapshot(er, &er->rings[i]);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* The command ended (as perf record ends its workload when the
 * recording stops first), every ring's last data or snapshot written. */
static int emu_stop(struct qpt_recorder *rec)
{
	struct emu_src *er = src_of(rec);
	int err = 0, cerr;
	size_t i;

	if (er->tr && !er->done) {
		err = emu_trace_end(er->tr, rec_stop_signal(rec));
		err = run_over(rec, err);
		err = err < 0 ? err : 0;
	}
	for (i = 0; i < er->nr_rings; i++)
		if (er->rings[i].sk) {
			cerr = close_ring(er, &er->rings[i]);
			if (!err)
				err = cerr;
		}
	cerr = crash_write(&er->crashes, rec->writer);
	return err ? err : cerr;
}

static void emu_stats(const struct qpt_recorder *rec,
		      struct qpt_capture_stats *st)
{
	const struct emu_src *er = src_of(rec);
	size_t i;

	if (!er)
		return;
	*st = er->closed;
	for (i = 0; i < er->nr_rings; i++)
		if (er->rings[i].cons)
			qpt_consumer_add_stats(er->rings[i].cons, st);
	st->insns = er->tres.insns;
	st->threads = er->tres.threads;
	st->stops = er->tres.stops;
	st->lost_traps = er->tres.lost_traps;
	st->trace_gaps = er->tres.gaps;
	st->loops = er->tres.loops;
	st->loop_trips = er->tres.loop_trips;
}

static void emu_free(struct qpt_recorder *rec)
{
	struct emu_src *er = src_of(rec);
	size_t i;

	if (!er)
		return;
	emu_trace_free(er->tr);
	for (i = 0; i < er->nr_rings; i++) {
		qpt_consumer_free(er->rings[i].cons);
		qpt_simkern_free(er->rings[i].sk);
	}
	free(er->rings);
	free(er->vdso_path);
	crash_release(&er->crashes);
	free(er);
	rec->child = 0; /* reaped by the engine */
}

const struct rec_source_ops rec_source_emulate = {
    .data_pages = 128,
    .aux_pages = 1024,
    .build_ids = true,
    .open = emu_open,
    .start = emu_start,
    .poll = emu_poll,
    .snapshot = emu_snapshot,
    .stop = emu_stop,
    .stats = emu_stats,
    .free = emu_free,
};

int emu_recorder_new(const struct qpt_recorder_opts *opts,
		     const struct emu_ptrace_ops *ops, void *ops_ctx,
		     struct qpt_recorder **rec)
{
	struct emu_seam seam = {ops, ops_ctx};
	struct qpt_recorder_opts o = *opts;

	o.source = QPT_SOURCE_EMULATE;
	return rec_new(&o, &seam, rec);
}
