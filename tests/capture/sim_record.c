// SPDX-License-Identifier: MIT
/*
 * The simulated hardware path end to end: Intel PT bytes (PSB, PSBEND,
 * PADs: a valid stream) go into the simulated kernel, the consumer drains
 * them into perf.data through the writer, exactly as the emulated source
 * does.  Prints the simulator's ground truth for the shell test to compare
 * with what perf reads from the file.
 * Usage: sim_record OUTPUT full|snapshot
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/auxtrace.h"
#include "capture/ring.h"
#include "capture/simkern.h"
#include "qpt/writer.h"

#define PT_TYPE 8
#define SAMPLE_TYPE                                                            \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static const uint8_t psb[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
				0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};
static const uint8_t psbend[2] = {0x02, 0x23};

static int add_attrs(struct qpt_writer *w)
{
	struct perf_event_attr pt, dummy;
	uint64_t pt_id = 1, dummy_id = 2;
	int err;

	memset(&pt, 0, sizeof(pt));
	pt.size = sizeof(pt);
	pt.type = PT_TYPE;
	pt.config = 0x300e601;
	pt.sample_period = 1;
	pt.sample_type = SAMPLE_TYPE;
	pt.sample_id_all = 1;
	pt.exclude_kernel = 1;
	pt.exclude_hv = 1;
	dummy = pt;
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.mmap = dummy.mmap2 = dummy.comm = dummy.task = 1;
	err = qpt_writer_add_attr(w, &pt, &pt_id, 1, "intel_pt//u");
	if (err < 0)
		return err;
	return qpt_writer_add_attr(w, &dummy, &dummy_id, 1, "dummy:u");
}

static int write_info(struct qpt_writer *w, bool snapshot)
{
	struct qpt_intel_pt_params p;
	uint64_t buf[QPT_AUXTRACE_INFO_MAX / 8];

	qpt_intel_pt_params_default(&p);
	p.pmu_type = PT_TYPE;
	p.snapshot_mode = snapshot;
	p.tsc_ctc_n = 0;
	p.tsc_ctc_d = 0;
	if (qpt_intel_pt_info_fill(&p, buf, sizeof(buf)) < 0)
		return -1;
	return qpt_writer_write(w, buf);
}

int main(int argc, char **argv)
{
	struct qpt_simkern_stats ss;
	struct qpt_capture_stats st;
	struct qpt_simkern_opts so;
	struct qpt_simkern *sk;
	struct qpt_consumer *c;
	struct qpt_writer *w;
	struct qpt_ring ring;
	struct qpt_sink sink;
	static uint8_t chunk[10000];
	bool snapshot;
	int i;

	if (argc != 3)
		return 2;
	snapshot = !strcmp(argv[2], "snapshot");
	memset(chunk, 0, sizeof(chunk)); /* PAD packets */
	memcpy(chunk, psb, sizeof(psb));
	memcpy(chunk + sizeof(psb), psbend, sizeof(psbend));
	qpt_simkern_opts_init(&so);
	so.aux_size = 65536;
	so.aux_overwrite = snapshot;
	so.sample_id_all = true;
	so.sample_type = SAMPLE_TYPE;
	so.id = 1;
	so.pid = so.tid = 4242;
	so.cpu = 0;
	if (qpt_simkern_new(&so, &sk) < 0 ||
	    qpt_writer_open(argv[1], NULL, &w) < 0 || add_attrs(w) < 0 ||
	    write_info(w, snapshot) < 0)
		return 1;
	qpt_simkern_ring(sk, &ring);
	qpt_sink_writer(&sink, w);
	if (qpt_consumer_new(&ring, &sink, &c) < 0)
		return 1;
	qpt_simkern_set_time(sk, 1000);
	qpt_simkern_itrace_start(sk, 4242, 4242);
	for (i = 0; i < 40; i++) {
		qpt_simkern_set_time(sk, 2000 + i);
		qpt_simkern_aux_write(sk, chunk, sizeof(chunk), 0);
		/* Drain every 9th transaction: 90000 bytes > 65535 of room,
		 * so full-trace mode truncates. */
		if (i % 9 == 8) {
			if (snapshot && qpt_consumer_snapshot(c, 0) < 0)
				return 1;
			if (qpt_consumer_drain(c) < 0)
				return 1;
		}
	}
	if ((snapshot && qpt_consumer_snapshot(c, 0) < 0) ||
	    qpt_consumer_drain(c) < 0 || qpt_writer_close(w) < 0)
		return 1;
	qpt_simkern_stats(sk, &ss);
	memset(&st, 0, sizeof(st));
	qpt_consumer_add_stats(c, &st);
	printf("offered %llu written %llu lost %llu truncated %llu "
	       "aux_records %llu captured %llu buffers %llu\n",
	       (unsigned long long)ss.aux_offered,
	       (unsigned long long)ss.aux_written,
	       (unsigned long long)ss.aux_lost,
	       (unsigned long long)ss.aux_truncated,
	       (unsigned long long)ss.aux_records,
	       (unsigned long long)st.aux_bytes,
	       (unsigned long long)st.aux_buffers);
	qpt_consumer_free(c);
	qpt_writer_free(w);
	qpt_simkern_free(sk);
	return 0;
}
