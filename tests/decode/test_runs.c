// SPDX-License-Identifier: MIT
/*
 * Runs of branches (qpt_item's @run): on a real trace (arcus-hello, its
 * raw stream and code pages), a decode whose callback returns
 * QPT_ITEM_RUN_TOLD for every run it has seen, and tells that run's
 * branches itself from what it kept, gives the same branches as a decode
 * that takes every item (the reference, which the other tests hold to
 * perf); every time a run comes again its branches are those it had
 * the first time; and runs are told (most of this trace is loops).
 * Both ways of the runs' table (all of it at once on huge pages, or
 * grown by doubling on small ones) give the same branches.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "auxfmt/bigmem.h"
#include "qpt/decode.h"

struct br {
	uint64_t ip, to;
	unsigned kind;
	int32_t tid;
};

struct brs {
	struct br *v;
	size_t n, cap;
};

static void add_br(struct brs *l, struct br b)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = b;
}

static struct br br_of(const struct qpt_item *it)
{
	return (struct br){it->ip, it->to, it->kind, it->tid};
}

/* A run as first seen: where its branches start in the list. */
struct seen {
	uint64_t run;
	size_t at;
	uint32_t len;
};

struct log {
	struct brs all;
	struct seen *seen;
	size_t nr_seen, cap_seen;
	bool tell;		/* return QPT_ITEM_RUN_TOLD for runs seen */
	uint64_t runs, told;	/* runs begun, and told by the callback */
	uint64_t skipped;	/* items the library left out */
	uint32_t left;		/* branches of the run at hand still to come */
	bool again;		/* ... a run seen before: */
	size_t again_at;	/* its next branch the first time */
};

static const struct seen *find(const struct log *l, uint64_t run)
{
	size_t i;

	for (i = 0; i < l->nr_seen; i++)
		if (l->seen[i].run == run)
			return &l->seen[i];
	return NULL;
}

static void assert_br_equal(struct br a, struct br b)
{
	assert_true(a.ip == b.ip && a.to == b.to && a.kind == b.kind &&
		    a.tid == b.tid);
}

static int on_item(const struct qpt_item *it, void *ctx)
{
	struct log *l = ctx;
	const struct seen *s;
	size_t i;

	if (it->type != QPT_ITEM_BRANCH)
		return 0;
	assert_true(QPT_SIZED_HAS(struct qpt_item, it, run_len));
	if (l->left) { /* within a run: no other run begins there */
		assert_int_equal(it->run, 0);
		l->left--;
		if (l->again) /* as the first time */
			assert_br_equal(br_of(it), l->all.v[l->again_at++]);
	} else if (it->run) {
		assert_true(it->run_len >= 1);
		l->runs++;
		l->left = it->run_len - 1;
		s = find(l, it->run);
		l->again = s != NULL;
		if (s) {
			assert_int_equal(s->len, it->run_len);
			assert_br_equal(br_of(it), l->all.v[s->at]);
			l->again_at = s->at + 1;
		} else {
			if (l->nr_seen == l->cap_seen) {
				l->cap_seen = l->cap_seen ? 2 * l->cap_seen
							  : 256;
				l->seen = realloc(l->seen, l->cap_seen *
							     sizeof(*l->seen));
				assert_non_null(l->seen);
			}
			l->seen[l->nr_seen++] =
			    (struct seen){it->run, l->all.n, it->run_len};
		}
		if (s && l->tell) { /* its branches from the first time */
			for (i = 0; i < s->len; i++)
				add_br(&l->all, l->all.v[s->at + i]);
			l->told++;
			l->skipped += s->len - 1;
			l->left = 0;
			return QPT_ITEM_RUN_TOLD;
		}
	}
	add_br(&l->all, br_of(it));
	return 0;
}

/* Decode the trace of @dir (trace.pt, its code pages in mem/ADDR.bin)
 * into @l. */
static void decode(const char *dir, struct log *l)
{
	struct qpt_decoder_opts opts;
	struct qpt_decoder *dec;
	char path[4096], *buf;
	struct dirent *d;
	size_t len;
	DIR *md;
	FILE *f;

	qpt_decoder_opts_init(&opts);
	opts.want = QPT_WANT_BRANCH;
	assert_int_equal(qpt_decoder_new(&opts, &dec), 0);
	snprintf(path, sizeof(path), "%s/mem", dir);
	md = opendir(path);
	assert_non_null(md);
	while ((d = readdir(md))) {
		unsigned long long a;

		if (sscanf(d->d_name, "%llx.bin", &a) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/mem/%s", dir, d->d_name);
		assert_int_equal(qpt_decoder_add_image(dec, path, a), 0);
	}
	closedir(md);
	snprintf(path, sizeof(path), "%s/trace.pt", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	assert_int_equal(qpt_decoder_run_raw(dec, buf, len, on_item, l), 0);
	free(buf);
	qpt_decoder_free(dec);
}

static void log_free(struct log *l)
{
	free(l->all.v);
	free(l->seen);
}

/* The arcus-hello trace's folder into @dir (the test skips without the
 * shared traces). */
static void arcus_dir(char dir[4096])
{
	const char *shared = getenv("QPT_SHARED");

	if (!shared)
		skip();
	snprintf(dir, 4096, "%s/traces/arcus-hello", shared);
}

/* @a and @b hold the same branches, in the same order; both freed. */
static void same_branches(struct log *a, struct log *b)
{
	assert_int_equal(a->all.n, b->all.n);
	assert_memory_equal(a->all.v, b->all.v, a->all.n * sizeof(*a->all.v));
	log_free(a);
	log_free(b);
}

static void test_runs_told(void **state)
{
	struct log whole = {.tell = false}, told = {.tell = true};
	char dir[4096];

	(void)state;
	arcus_dir(dir);
	decode(dir, &whole);
	decode(dir, &told);
	print_message("%zu branches; %llu runs, %llu told by the callback "
		      "(%llu items left out)\n",
		      whole.all.n, (unsigned long long)told.runs,
		      (unsigned long long)told.told,
		      (unsigned long long)told.skipped);
	assert_true(whole.runs > 0);
	assert_true(told.told > 0 && told.skipped > 0);
	same_branches(&whole, &told);
}

/* The runs' table grown from its small start (past 1024 runs: this trace
 * has about 2,000) decodes as the table whole from the start does. */
static void test_runs_small_pages(void **state)
{
	struct log big = {.tell = false}, small = {.tell = false};
	char dir[4096];

	(void)state;
	arcus_dir(dir);
	bigmem_set_huge(true);
	decode(dir, &big);
	bigmem_set_huge(false);
	decode(dir, &small);
	assert_true(big.all.n > 10000);
	same_branches(&big, &small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs_told),
	    cmocka_unit_test(test_runs_small_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
