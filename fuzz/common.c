// SPDX-License-Identifier: MIT
/* What the fuzz targets share (see common.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode/decoder.h"
#include "fuzz/common.h"

/* The recordings' files: the program the seeds recorded (fuzz/sysroot). */
#define CODE_PATH "/code"
#define CODE_ADDR 0x400000 /* where its bytes lie: mapped whole, from 0 */

static volatile size_t sink;

void fz_fail(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	abort();
}

size_t fz_str(const char *s)
{
	size_t n = 0;

	while (s && *s)
		n += (unsigned char)*s++;
	return n;
}

int fz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("qpt-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void log_msg(enum qpt_log_level level, const char *msg, void *ctx)
{
	sink += fz_str(msg) + level;
}

/* A decoder that wants @want and finds files under fuzz/sysroot only. */
static struct qpt_decoder *decoder_new(unsigned want)
{
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;

	qpt_decoder_opts_init(&opts);
	opts.want = want & ~FZ_LIBIPT;
	opts.libipt_only = want & FZ_LIBIPT;
	opts.sysroot = QPT_FUZZ_SYSROOT;
	opts.buildid_dir = QPT_FUZZ_SYSROOT;
	opts.log = log_msg;
	return qpt_decoder_new(&opts, &dec) ? NULL : dec;
}

struct qpt_decoder *fz_decoder(unsigned want)
{
	struct qpt_decoder *dec = decoder_new(want);

	if (dec && qpt_decoder_add_image(dec, QPT_FUZZ_SYSROOT CODE_PATH,
					 CODE_ADDR) == -ENOMEM) {
		qpt_decoder_free(dec);
		return NULL;
	}
	return dec;
}

struct qpt_decoder *fz_file_decoder(unsigned want)
{
	static struct {
		unsigned want, uses;
		struct qpt_decoder *dec;
	} kept[4];
	size_t i;

	for (i = 0; i < 3 && kept[i].dec && kept[i].want != want; i++)
		;
	/* (a profile adds up every run's: emptied with the results) */
	if (kept[i].dec && kept[i].want == want && ++kept[i].uses < 4096)
		return kept[i].dec;
	qpt_decoder_free(kept[i].dec);
	kept[i].want = want;
	kept[i].uses = 0;
	kept[i].dec = decoder_new(want);
	return kept[i].dec;
}

void fz_file_done(struct qpt_decoder *dec)
{
	if (dec) {
		qd_decoder_reset_results(dec);
		qd_files_free(&dec->files);
	}
}

int fz_item_sink(const struct qpt_item *it, void *ctx)
{
	size_t n = it->ip + it->to + it->value + it->size + it->mode +
		   it->time + it->offset + it->cycles + it->symoff;

	n += fz_str(it->sym) + fz_str(it->msg) + fz_str(it->to_sym);
	if (it->size > sizeof(it->raw))
		fz_fail("an item's instruction is longer than its bytes");
	sink += n + it->raw[it->size ? it->size - 1 : 0];
	if (ctx) {
		size_t *left = ctx;

		if (!*left)
			return -1;
		--*left;
	}
	return 0;
}

static size_t strs(const char *const *s, size_t n)
{
	size_t i, sum = 0;

	for (i = 0; i < n; i++)
		sum += fz_str(s[i]);
	return sum;
}

size_t fz_touch_features(const struct qpt_reader *r)
{
	const struct qpt_features *f = qpt_reader_features(r);
	size_t i, j, n = 0;
	int k;

	n += strs(f->cmdline, f->nr_cmdline);
	n += strs(f->sibling_cores, f->nr_sibling_cores);
	n += strs(f->sibling_threads, f->nr_sibling_threads);
	n += strs(f->sibling_dies, f->nr_sibling_dies);
	for (i = 0; i < f->nr_build_ids; i++)
		n += fz_str(QPT_FEATURES_AT(f, build_ids, i)->filename);
	for (i = 0; i < f->nr_event_desc; i++) {
		const struct qpt_event_desc *e =
		    QPT_FEATURES_AT(f, event_desc, i);

		n += fz_str(e->name);
		for (j = 0; j < e->nr_ids; j++)
			n += e->ids[j];
	}
	for (i = 0; i < f->nr_topology_cpus; i++)
		n += QPT_FEATURES_AT(f, topology_cpus, i)->core_id;
	for (i = 0; i < f->nr_numa_nodes; i++)
		n += fz_str(QPT_FEATURES_AT(f, numa_nodes, i)->cpus);
	for (i = 0; i < f->nr_pmu_mappings; i++)
		n += fz_str(QPT_FEATURES_AT(f, pmu_mappings, i)->name);
	for (i = 0; i < f->nr_groups; i++)
		n += fz_str(QPT_FEATURES_AT(f, groups, i)->name);
	for (i = 0; i < f->nr_cpu_pmu_caps; i++)
		n += fz_str(QPT_FEATURES_AT(f, cpu_pmu_caps, i)->name) +
		     fz_str(QPT_FEATURES_AT(f, cpu_pmu_caps, i)->value);
	for (i = 0; i < f->nr_hybrid_nodes; i++)
		n += fz_str(QPT_FEATURES_AT(f, hybrid_nodes, i)->pmu_name) +
		     fz_str(QPT_FEATURES_AT(f, hybrid_nodes, i)->cpus);
	for (i = 0; i < f->nr_caches; i++) {
		const struct qpt_cache_level *c = QPT_FEATURES_AT(f, caches, i);

		n += fz_str(c->type) + fz_str(c->size) + fz_str(c->map);
	}
	for (k = 0; k < 256; k++) { /* every bit of the feature map */
		const void *raw;
		size_t len;

		if (qpt_feature_is_string((enum qpt_feature)k))
			n += fz_str(
			    qpt_reader_feature_string(r, (enum qpt_feature)k));
		if (qpt_reader_feature_raw(r, (enum qpt_feature)k, &raw,
					   &len) >= 0 &&
		    len)
			n += ((const uint8_t *)raw)[len - 1];
	}
	return n;
}
