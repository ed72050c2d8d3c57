// SPDX-License-Identifier: MIT
/*
 * qpt convert: rewrite a perf.data (file or pipe mode, either byte order,
 * compressed or not) through qpt's writer.  `-o -` writes pipe mode;
 * -z/--compress[=LEVEL] compresses every record but AUXTRACE payloads into
 * COMPRESSED records.  COMPRESSED input records are replaced by their
 * inner records; AUXTRACE records get a fresh HEADER_AUXTRACE index (so an
 * input without one gains one); the input's attrs, names, build-ids and
 * features are carried over (raw, or re-encoded from a byte-swapped input
 * where qpt knows how).  qpt's crash facts (qpt/crash.h) go on as samples
 * of its crash event, re-encoded in host order from a byte-swapped input;
 * those of files qpt 0.1 wrote (a header feature) become such samples,
 * so that a pipe carries them too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perfmon_cli.h"
#include "qpt/crash.h"
#include "qpt/reader.h"
#include "qpt/writer.h"

struct convert {
	const char *in_name, *out_name;
	struct qpt_reader *r;
	struct qpt_writer *w;
	bool started; /* attrs handed to the writer */
	bool created; /* the output file is ours to remove on failure */
	/* progress on a terminal */
	bool progress, shown;
	uint64_t nr, in_size;
	time_t last;
	bool warned_tracing;
	bool force; /* -f: an input not owned by the user or root */
	struct qpt_crash *old; /* the input's crash feature (qpt 0.1) */
	int nr_old;
};

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: qpt convert [-i IN] -o OUT [-z|--compress[=LEVEL]]\n\n"
	       "Rewrite a perf.data file through qpt's writer.  A Fuchsia\n"
	       "perfmon buffer becomes perf.data with a branch-stack sample\n"
	       "per LAST_BRANCH record (or, --format=perfmon, a perfmon buffer\n"
	       "written again from its records).\n\n"
	       "  -i, --input IN        input (default perf.data; - is stdin)\n"
	       "  -o, --output OUT      output (- writes pipe mode to stdout)\n"
	       "  -z, --compress[=N]    zstd-compress records (level N, 1..22,"
	       " default 1)\n"
	       "  -f, --force           read an input not owned by you or root\n"
	       "      --format=perfmon  a perfmon input stays a perfmon buffer\n"
	       "  -h, --help            this help\n");
}

static void log_cb(enum qpt_log_level level, const char *msg, void *ctx)
{
	if (level == QPT_LOG_WARN)
		cli_warn("%s", msg);
}

static int writer_error(struct convert *cv, int err)
{
	cli_error(cv->out_name, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

/* A feature from a byte-swapped input, re-encoded in host order where the
 * parsed form says all of it; 1 when it was, 0 when it cannot be. */
static int swapped_feature(struct convert *cv, int feat)
{
	const struct qpt_features *f = qpt_reader_features(cv->r);
	uint64_t u[2];
	uint32_t v[2];
	size_t i;
	const char *s;
	int err;

	if (qpt_feature_is_string(feat)) {
		s = qpt_reader_feature_string(cv->r, feat);
		if (!s)
			return 0;
		err = qpt_writer_set_feature_string(cv->w, feat, s);
		return err < 0 ? err : 1;
	}
	switch (feat) {
	case QPT_FEAT_NRCPUS:
		v[0] = f->nr_cpus_avail;
		v[1] = f->nr_cpus_online;
		err = qpt_writer_set_feature_raw(cv->w, feat, v, sizeof(v));
		break;
	case QPT_FEAT_TOTAL_MEM:
		err = qpt_writer_set_feature_raw(cv->w, feat, &f->total_mem,
						 sizeof(f->total_mem));
		break;
	case QPT_FEAT_SAMPLE_TIME:
		u[0] = f->sample_time_first;
		u[1] = f->sample_time_last;
		err = qpt_writer_set_feature_raw(cv->w, feat, u, sizeof(u));
		break;
	case QPT_FEAT_CLOCKID:
		err = qpt_writer_set_feature_raw(cv->w, feat, &f->clockid,
						 sizeof(f->clockid));
		break;
	case QPT_FEAT_CMDLINE:
		err = qpt_writer_set_cmdline(cv->w, (int)f->nr_cmdline,
					     f->cmdline);
		break;
	case QPT_FEAT_BUILD_ID:
		err = 0;
		for (i = 0; i < f->nr_build_ids && !err; i++)
			err = qpt_writer_add_build_id(
			    cv->w, f->build_ids[i].pid, f->build_ids[i].id,
			    f->build_ids[i].size, f->build_ids[i].filename,
			    f->build_ids[i].misc);
		break;
	default:
		return 0;
	}
	return err < 0 ? err : 1;
}

/* The crash facts of a file qpt 0.1 wrote (a feature far above perf's),
 * read in the input's byte order: written as crash event samples at the
 * end (the attr goes with the others). */
static int read_old_crash(struct convert *cv)
{
	int n = qpt_crash_read(cv->r, &cv->old);

	if (n < 0)
		cli_warn("%s: crash facts dropped: %s", cv->in_name,
			 qpt_strerror(n));
	cv->nr_old = n > 0 ? n : 0;
	return 0;
}

static int write_old_crash(struct convert *cv)
{
	uint8_t *buf;
	int i, n = 0;

	if (!cv->nr_old)
		return 0;
	buf = malloc(QPT_CRASH_SAMPLE_MAX);
	if (!buf)
		return writer_error(cv, -ENOMEM);
	for (i = 0; i < cv->nr_old && n >= 0; i++) {
		n = qpt_crash_sample_encode(&cv->old[i], buf,
					    QPT_CRASH_SAMPLE_MAX);
		if (n >= 0)
			n = qpt_writer_write(cv->w, buf);
	}
	free(buf);
	return n < 0 ? writer_error(cv, n) : 0;
}

/* A crash event sample of a byte-swapped input: its RAW fields are in
 * the input's order, re-encoded in the host's. */
static int swapped_crash(struct convert *cv, const struct qpt_record *rec)
{
	struct qpt_crash c;
	uint8_t *buf;
	int n;

	if (qpt_crash_sample_parse(rec, true, &c)) {
		cli_warn("%s: offset %#llx: a crash sample that does not "
			 "parse, dropped",
			 cv->in_name, (unsigned long long)rec->pos);
		return 0;
	}
	buf = malloc(QPT_CRASH_SAMPLE_MAX);
	if (!buf)
		return writer_error(cv, -ENOMEM);
	n = qpt_crash_sample_encode(&c, buf, QPT_CRASH_SAMPLE_MAX);
	if (n >= 0)
		n = qpt_writer_write(cv->w, buf);
	free(buf);
	return n < 0 ? writer_error(cv, n) : 0;
}

/* File-mode input: the features of the header. */
static int copy_features(struct convert *cv)
{
	bool swapped = qpt_reader_is_swapped(cv->r);
	const void *data;
	size_t size;
	int feat, err;

	for (feat = 1; feat < QPT_FEAT_LAST; feat++) {
		/* the writer's own, or made from the attrs and their names */
		if (feat == QPT_FEAT_AUXTRACE || feat == QPT_FEAT_COMPRESSED ||
		    feat == QPT_FEAT_EVENT_DESC || feat == QPT_FEAT_DIR_FORMAT)
			continue;
		if (qpt_reader_feature_raw(cv->r, feat, &data, &size))
			continue;
		if (swapped) {
			err = swapped_feature(cv, feat);
			if (!err)
				cli_warn("%s: feature %s of a byte-swapped "
					 "file dropped",
					 cv->in_name, qpt_feature_name(feat));
		} else {
			err =
			    qpt_writer_set_feature_raw(cv->w, feat, data, size);
		}
		if (err < 0)
			return writer_error(cv, err);
	}
	return read_old_crash(cv);
}

/* Hand the attrs known so far to the writer (before the first record). */
static int start(struct convert *cv)
{
	size_t i, n = qpt_reader_nr_attrs(cv->r);
	struct perf_event_attr crash;
	uint64_t id = QPT_CRASH_EVENT_ID;
	bool has_crash = false;
	int err;

	if (cv->started)
		return 0;
	cv->started = true;
	for (i = 0; i < n; i++) {
		const struct qpt_attr *a = qpt_reader_attr(cv->r, i);
		struct perf_event_attr attr = a->attr;

		has_crash |= qpt_crash_is_event(a);
		/* the reader keeps the fields this build knows */
		if (attr.size > sizeof(attr)) {
			cli_warn("%s: event %zu: attr of %u bytes cut to %zu",
				 cv->in_name, i, attr.size, sizeof(attr));
			attr.size = sizeof(attr);
		}
		err = qpt_writer_add_attr(cv->w, &attr, a->ids, a->nr_ids,
					  a->name);
		if (err)
			return writer_error(cv, err);
	}
	if (!cv->nr_old || has_crash)
		return 0;
	qpt_crash_event_attr(&crash);
	err = qpt_writer_add_attr(cv->w, &crash, &id, 1, QPT_CRASH_EVENT_NAME);
	return err ? writer_error(cv, err) : 0;
}

/* Pipe-mode input: a HEADER_FEATURE record carries one feature. */
static int pipe_feature(struct convert *cv, const struct qpt_record *rec)
{
	const uint8_t *p = rec->data;
	uint64_t feat;
	int err;

	if (rec->size < 16)
		return 0;
	memcpy(&feat, p + 8, sizeof(feat));
	if (feat == 0 || feat >= QPT_FEAT_LAST || feat == QPT_FEAT_AUXTRACE ||
	    feat == QPT_FEAT_COMPRESSED || feat == QPT_FEAT_EVENT_DESC ||
	    feat == QPT_FEAT_DIR_FORMAT)
		return 0;
	if (qpt_reader_is_swapped(cv->r)) {
		err = swapped_feature(cv, (int)feat);
		if (!err)
			cli_warn("%s: feature %s of a byte-swapped "
				 "stream dropped",
				 cv->in_name, qpt_feature_name((int)feat));
	} else {
		err = qpt_writer_set_feature_raw(cv->w, (int)feat, p + 16,
						 rec->size - 16u);
	}
	return err < 0 ? writer_error(cv, err) : 0;
}

static int auxtrace(struct convert *cv, const struct qpt_record *rec)
{
	struct qpt_record_auxtrace hdr;
	struct iovec iov;
	int err;

	if (rec->size < sizeof(hdr))
		return 0;
	memcpy(&hdr, rec->data, sizeof(hdr));
	iov.iov_base = (void *)rec->aux;
	iov.iov_len = rec->aux_size;
	hdr.size = 0; /* the payload says */
	err = qpt_writer_write_auxtrace(cv->w, &hdr, &iov, 1);
	return err ? writer_error(cv, err) : 0;
}

/* Now and then, how far into the input (on a terminal only). */
static void show_progress(struct convert *cv, const struct qpt_record *rec)
{
	time_t now;

	if (!cv->progress || (++cv->nr & 0xfff))
		return;
	now = time(NULL);
	if (now == cv->last)
		return;
	cv->last = now;
	cv->shown = true;
	if (cv->in_size)
		cli_progress("qpt convert: %3u%%",
			     (unsigned)(rec->pos * 100 / cv->in_size));
	else
		cli_progress("qpt convert: %llu MiB",
			     (unsigned long long)(rec->pos >> 20));
}

static int one_record(struct convert *cv, const struct qpt_record *rec)
{
	int err;

	switch (rec->type) {
	case QPT_RECORD_COMPRESSED:
	case QPT_RECORD_COMPRESSED2:
		return 0; /* its inner records follow */
	case QPT_RECORD_HEADER_ATTR:
		if (cv->started) {
			cli_error_at(cv->in_name, rec->pos,
				     "HEADER_ATTR after the first event is "
				     "not supported");
			return QPT_EXIT_ERROR;
		}
		return 0; /* the reader keeps it */
	case QPT_RECORD_HEADER_FEATURE:
		return pipe_feature(cv, rec);
	case QPT_RECORD_HEADER_TRACING_DATA:
		if (!cv->warned_tracing)
			cli_warn("%s: tracing data dropped", cv->in_name);
		cv->warned_tracing = true;
		return 0;
	}
	err = start(cv);
	if (err)
		return err;
	if (rec->type == QPT_RECORD_AUXTRACE)
		return auxtrace(cv, rec);
	if (rec->type == PERF_RECORD_SAMPLE && qpt_reader_is_swapped(cv->r) &&
	    qpt_crash_is_event(rec->attr))
		return swapped_crash(cv, rec);
	err = qpt_writer_write(cv->w, rec->data);
	return err ? writer_error(cv, err) : 0;
}

static int same_file(const char *in, const char *out)
{
	struct stat a, b;

	if (!strcmp(in, "-") || !strcmp(out, "-"))
		return 0;
	if (stat(in, &a) || stat(out, &b))
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int convert(struct convert *cv, int level)
{
	struct qpt_writer_opts wo;
	struct qpt_record rec;
	struct stat st;
	int err, ret;

	if (cli_open_input(cv->in_name, cv->force, &cv->r))
		return QPT_EXIT_ERROR;
	qpt_writer_opts_init(&wo);
	wo.compress = level;
	wo.log = log_cb;
	err = qpt_writer_open(cv->out_name, &wo, &cv->w);
	if (err)
		return writer_error(cv, err);
	/* only a regular file, never a device like /dev/null */
	cv->created = strcmp(cv->out_name, "-") && !stat(cv->out_name, &st) &&
		      S_ISREG(st.st_mode);
	if (!qpt_reader_is_pipe(cv->r)) {
		ret = copy_features(cv);
		if (ret)
			return ret;
	}
	cv->progress = cli_show_progress();
	cv->last = time(NULL);
	if (!stat(cv->in_name, &st) && S_ISREG(st.st_mode))
		cv->in_size = (uint64_t)st.st_size;
	while ((err = qpt_reader_next(cv->r, &rec)) > 0) {
		show_progress(cv, &rec);
		ret = one_record(cv, &rec);
		if (ret)
			return ret;
	}
	if (err < 0)
		return cli_reader_error(cv->in_name, cv->r, err);
	ret = start(cv);
	if (!ret)
		ret = write_old_crash(cv);
	if (ret)
		return ret;
	err = qpt_writer_close(cv->w);
	return err ? writer_error(cv, err) : QPT_EXIT_OK;
}

/* The options into @cv, *@level and *@to_perfmon.  Returns -1 to go on,
 * or the exit code (help, a usage error). */
static int parse_args(int argc, char **argv, struct convert *cv, int *level,
		      bool *to_perfmon)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"compress", optional_argument, NULL, 'z'},
	    {"force", no_argument, NULL, 'f'},
	    {"format", required_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:z::fh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'f':
			cv->force = true;
			break;
		case 'i':
			cv->in_name = optarg;
			break;
		case 'o':
			cv->out_name = optarg;
			break;
		case 'z':
			*level = 1;
			if (!optarg)
				break;
			if (cli_number("convert", "compression level", optarg,
				       1, 22, &v))
				return QPT_EXIT_USAGE;
			*level = (int)v;
			break;
		case 'F':
			if (strcmp(optarg, "perfmon"))
				return cli_usage_error(
				    "convert", "--format wants perfmon, not '%s'",
				    optarg);
			*to_perfmon = true;
			break;
		case 'h':
			usage(stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("convert");
		}
	}
	if (optind < argc)
		return cli_usage_error("convert", "unexpected argument '%s'",
				       argv[optind]);
	if (!cv->out_name)
		return cli_usage_error("convert", "no output: -o OUT");
	return -1;
}

int cmd_convert(int argc, char **argv)
{
	struct convert cv = {.in_name = "perf.data"};
	struct qpt_perfmon *pm = NULL;
	bool to_perfmon = false;
	int level = 0, ret;

	ret = parse_args(argc, argv, &cv, &level, &to_perfmon);
	if (ret >= 0)
		return ret;
	if (same_file(cv.in_name, cv.out_name)) {
		cli_error(cv.out_name, "is the input file");
		return QPT_EXIT_ERROR;
	}
	ret = cli_open_perfmon(cv.in_name, cv.force, &pm);
	if (ret > 0)
		return ret;
	if (!ret) {
		ret = convert_perfmon(cv.in_name, pm, cv.out_name, to_perfmon);
		qpt_perfmon_free(pm);
		return ret;
	}
	if (to_perfmon)
		return cli_usage_error("convert",
				       "--format=perfmon converts perfmon buffers only");
	ret = convert(&cv, level);
	if (cv.shown)
		cli_progress_end();
	qpt_writer_free(cv.w);
	qpt_reader_free(cv.r);
	free(cv.old);
	/* a file left by a failed conversion is not a conversion */
	if (ret && cv.created)
		unlink(cv.out_name);
	return ret;
}
