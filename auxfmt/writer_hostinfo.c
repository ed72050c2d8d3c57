// SPDX-License-Identifier: MIT
/*
 * The recording machine's features from the facts the caller gathered
 * (struct qpt_host_info; capture/hostinfo.c probes the host): HOSTNAME,
 * OSRELEASE, ARCH, CPUDESC, CPUID, NRCPUS, TOTAL_MEM, CMDLINE, and VERSION.
 */
#include <errno.h>
#include <stdio.h>

#include "auxfmt/writer_priv.h"
#include "qpt/reader.h"

static int set_string(struct qpt_writer *w, enum qpt_feature feat,
		      const char *s, const char *what)
{
	if (!s) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no %s for %s", what,
				qpt_feature_name(feat));
		return 0;
	}
	return qpt_writer_set_feature_string(w, feat, s);
}

static int set_strings(struct qpt_writer *w, const struct qpt_host_info *h)
{
	char version[64];
	int err;

	err = set_string(w, QPT_FEAT_HOSTNAME, h->hostname, "host name");
	if (!err)
		err = set_string(w, QPT_FEAT_OSRELEASE, h->osrelease,
				 "kernel release");
	if (!err)
		err = set_string(w, QPT_FEAT_ARCH, h->arch, "machine");
	snprintf(version, sizeof(version), "qpt %s", qpt_version());
	if (!err)
		err = qpt_writer_set_feature_string(w, QPT_FEAT_VERSION,
						    version);
	if (!err)
		err = set_string(w, QPT_FEAT_CPUDESC, h->cpudesc,
				 "CPU description");
	if (!err)
		err = set_string(w, QPT_FEAT_CPUID, h->cpuid, "x86 CPU id");
	return err;
}

static void set_counts(struct qpt_writer *w, const struct qpt_host_info *h)
{
	struct qpt_wbuf *b;

	if (!h->nr_cpus_avail || !h->nr_cpus_online) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no CPU count for NRCPUS");
	} else {
		b = &w->feat[QPT_FEAT_NRCPUS];
		b->len = 0;
		if (!qpt_feat_encode_nrcpus(b, h->nr_cpus_avail,
					    h->nr_cpus_online))
			w->has_feat[QPT_FEAT_NRCPUS] = true;
	}
	if (!h->total_mem_kb) {
		qpt_writer_logf(w, QPT_LOG_INFO, "no MemTotal for TOTAL_MEM");
		return;
	}
	b = &w->feat[QPT_FEAT_TOTAL_MEM];
	b->len = 0;
	if (!qpt_wbuf_add_u64(b, h->total_mem_kb))
		w->has_feat[QPT_FEAT_TOTAL_MEM] = true;
}

int qpt_writer_set_host_info(struct qpt_writer *w,
			     const struct qpt_host_info *h)
{
	struct qpt_wbuf *b;
	int err;

	if (!w || !h || h->size < sizeof(*h) || h->argc < 0 ||
	    (h->argc && !h->argv))
		return -QPT_E_INVAL;
	if (w->closed)
		return -QPT_E_STATE;
	err = set_strings(w, h);
	if (err)
		return err;
	set_counts(w, h);
	b = &w->feat[QPT_FEAT_CMDLINE];
	b->len = 0;
	err = qpt_feat_encode_cmdline(b, h->exe ? h->exe : "", h->argc,
				      (const char *const *)h->argv);
	if (err)
		return err;
	w->has_feat[QPT_FEAT_CMDLINE] = true;
	/* pipe mode after the prologue: the rest go out as records too */
	if (w->pipe && w->prologue) {
		err = qpt_writer_feat_record(w, QPT_FEAT_NRCPUS);
		if (!err)
			err = qpt_writer_feat_record(w, QPT_FEAT_TOTAL_MEM);
		if (!err)
			err = qpt_writer_feat_record(w, QPT_FEAT_CMDLINE);
	}
	return err;
}
