// SPDX-License-Identifier: MIT
/*
 * qpt_split_file: the plan (split_plan.c) from a first pass over the
 * input, then a second pass writes every shard at once through the
 * writer: the attrs and features, every record but the AUXTRACE ones as
 * they are (AUX records that say trace was lost say so in one shard
 * only; an AUXTRACE_ERROR goes to the shard that tells it), and of each
 * AUXTRACE record the bytes of each shard's units, at the record's place.
 * Where a shard's queues would first come in another order than the
 * decode's, an empty AUXTRACE record opens them in that order first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auxfmt/sized.h"
#include "decode/split.h"

void qpt_split_opts_init_sized(struct qpt_split_opts *out, size_t size)
{
	struct qpt_split_opts o = {.size = sizeof(o), .shards = 1};

	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_split_name(const char *dir, uint32_t i, char *buf, size_t len)
{
	int n;

	if (!dir || !buf)
		return -QPT_E_INVAL;
	n = snprintf(buf, len, "%s/shard-%03u.data", dir, i);
	return n < 0 || (size_t)n >= len ? -QPT_E_INVAL : n;
}

int split_fail(struct split *sp, int err, const char *msg)
{
	snprintf(sp->errmsg, sizeof(sp->errmsg), "%s", msg);
	return err;
}

static int reader_fail(struct split *sp, struct qpt_reader *r, int err)
{
	if (r && qpt_reader_errmsg(r)[0]) {
		sp->errpos = qpt_reader_errpos(r);
		snprintf(sp->errmsg, sizeof(sp->errmsg), "%s",
			 qpt_reader_errmsg(r));
	}
	return err;
}

static int open_input(struct split *sp, const char *path, struct qpt_reader **r)
{
	int err = qpt_reader_open(path, NULL, r);

	if (err)
		return reader_fail(sp, *r, err);
	if (qpt_reader_is_pipe(*r) || qpt_reader_is_stream(*r))
		return split_fail(sp, -QPT_E_UNSUPPORTED,
				  "a pipe-mode stream: split reads a file "
				  "(qpt convert it into one)");
	if (qpt_reader_is_swapped(*r))
		return split_fail(sp, -QPT_E_UNSUPPORTED,
				  "a byte-swapped file: qpt convert it first");
	return 0;
}

/* The first pass: the session's queues and losses, what each AUXTRACE
 * record put where. */
static int read_plan(struct split *sp, const char *path)
{
	struct qpt_record rec;
	struct qd_put put;
	int err = open_input(sp, path, &sp->r);

	if (err)
		return err;
	pt_config_init(&sp->s.cfg);
	sp->s.reader = sp->r;
	sp->s.stable = true;
	/* the runs' pieces read with pread, as the decode reads them: the
	 * mapped input's pages stay out of memory (qpt_reader_next lets
	 * them go behind it) */
	sp->s.fd = qpt_reader_data_fd(sp->r);
	sp->s.put = &put;
	while ((err = qpt_reader_next(sp->r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_MMAP ||
		    rec.type == PERF_RECORD_MMAP2)
			continue; /* the address spaces are the decoder's */
		err = qd_session_record(&sp->s, &rec);
		sp->s.seq++;
		if (!err && rec.type == QPT_RECORD_AUXTRACE) {
			err = qd_reserve(&sp->puts, &sp->cap_puts, sp->nr_puts,
					 sizeof(put));
			if (!err)
				sp->puts[sp->nr_puts++] = put;
		}
		if (err)
			return err;
	}
	sp->s.put = NULL;
	if (err < 0)
		return reader_fail(sp, sp->r, err);
	if (!sp->s.have_info && !sp->s.nr_queues)
		return split_fail(sp, -QPT_E_UNSUPPORTED,
				  "no Intel PT trace in this file");
	return 0;
}

/*
 * Each run's bytes to exactly one record: a record's bytes begin where
 * it took up (never before the record before it in the run), or up to 7
 * bytes earlier, and end where the next record of the run takes up.
 */
static int partition_puts(struct split *sp)
{
	size_t nr_runs = 0, qi, i, *base;
	uint64_t *at;
	int err = -ENOMEM;

	for (qi = 0; qi < sp->s.nr_queues; qi++)
		nr_runs += sp->s.queues[qi].nr_runs;
	base = calloc(sp->s.nr_queues + 1, sizeof(*base));
	at = calloc(nr_runs + 1, sizeof(*at));
	if (!base || !at)
		goto out;
	for (qi = 0; qi < sp->s.nr_queues; qi++) {
		const struct qd_queue *q = &sp->s.queues[qi];

		base[qi + 1] = base[qi] + q->nr_runs;
		for (i = 0; i < q->nr_runs; i++)
			at[base[qi] + i] = q->runs[i].start;
	}
	for (i = 0; i < sp->nr_puts; i++) { /* takes up no earlier */
		struct qd_put *p = &sp->puts[i];
		uint64_t *a = &at[base[p->queue] + p->run];

		if (!p->valid)
			continue;
		if (p->from < *a)
			p->from = *a;
		*a = p->from;
	}
	for (qi = 0; qi < sp->s.nr_queues; qi++)
		for (i = 0; i < sp->s.queues[qi].nr_runs; i++)
			at[base[qi] + i] = sp->s.queues[qi].runs[i].start +
					   sp->s.queues[qi].runs[i].len;
	for (i = sp->nr_puts; i-- > 0;) { /* ends where the next takes up */
		struct qd_put *p = &sp->puts[i];
		uint64_t *a = &at[base[p->queue] + p->run], pad;
		uint64_t start = sp->s.queues[p->queue].runs[p->run].start;

		if (!p->valid)
			continue;
		p->to = *a;
		if (p->from > p->to)
			p->from = p->to;
		/* whole 8-byte words (the record before takes the rest), so
		 * that the writer's padding adds nothing to a shard's end */
		pad = (8 - (p->to - p->from) % 8) % 8;
		p->from = p->from - start >= pad ? p->from - pad : start;
		*a = p->from;
	}
	err = 0;
out:
	free(base);
	free(at);
	return err;
}

static int create_shards(struct split *sp, const char *dir)
{
	struct qpt_writer_opts wo;
	char name[4096];
	uint32_t i;
	int err;

	sp->sh = calloc(sp->nr_shards, sizeof(*sp->sh));
	if (!sp->sh)
		return -ENOMEM;
	qpt_writer_opts_init(&wo);
	for (i = 0; i < sp->nr_shards; i++) {
		struct split_shard *h = &sp->sh[i];

		if (qpt_split_name(dir, i, name, sizeof(name)) < 0)
			return split_fail(sp, -QPT_E_INVAL,
					  "output directory name too long");
		h->path = strdup(name);
		h->seen = calloc(sp->s.nr_queues + 1, sizeof(*h->seen));
		if (!h->path || !h->seen)
			return -ENOMEM;
		err = qpt_writer_open(name, &wo, &h->w);
		if (err) {
			free(h->path); /* not created: not ours to remove */
			h->path = NULL;
			snprintf(sp->errmsg, sizeof(sp->errmsg),
				 "cannot write shard-%03u.data: %s", i,
				 qpt_strerror(err));
			return err;
		}
	}
	for (i = 0; i < sp->nr_units; i++)
		if (!i || sp->units[i].shard != sp->units[i - 1].shard)
			sp->sh[sp->units[i].shard].next = i;
	return 0;
}

/* Every shard gets the input's attrs and features (the writer makes the
 * AUXTRACE index and the event descriptions anew). */
static int shard_headers(struct split *sp, struct qpt_reader *r)
{
	size_t i, n = qpt_reader_nr_attrs(r), size;
	const void *data;
	uint32_t k;
	int feat, err = 0;

	for (k = 0; !err && k < sp->nr_shards; k++) {
		struct qpt_writer *w = sp->sh[k].w;

		for (feat = 1; !err && feat < QPT_FEAT_LAST; feat++) {
			if (feat == QPT_FEAT_AUXTRACE ||
			    feat == QPT_FEAT_COMPRESSED ||
			    feat == QPT_FEAT_EVENT_DESC ||
			    feat == QPT_FEAT_DIR_FORMAT ||
			    qpt_reader_feature_raw(r, feat, &data, &size))
				continue;
			err = qpt_writer_set_feature_raw(w, feat, data, size);
		}
		for (i = 0; !err && i < n; i++) {
			const struct qpt_attr *a = qpt_reader_attr(r, i);
			struct perf_event_attr attr = a->attr;

			if (attr.size > sizeof(attr))
				attr.size = sizeof(attr);
			err = qpt_writer_add_attr(w, &attr, a->ids, a->nr_ids,
						  a->name);
		}
	}
	return err;
}

static int write_bytes(struct split *sp, uint32_t k, size_t qi,
		       const struct qpt_record_auxtrace *orig, uint64_t from,
		       uint64_t to, const struct qd_run *r)
{
	struct qpt_record_auxtrace hdr = *orig;
	struct iovec iov;
	int err = 0;

	hdr.size = 0;
	hdr.offset = from;
	iov.iov_len = (size_t)(to - from);
	iov.iov_base = r && iov.iov_len ? malloc(iov.iov_len) : NULL;
	if (r && iov.iov_len && !iov.iov_base)
		return -ENOMEM;
	if (iov.iov_base) /* the run's bytes, wherever its pieces are */
		err = qd_run_read(&sp->s, r, from - r->start, iov.iov_base,
				  iov.iov_len);
	sp->sh[k].seen[qi] = true;
	if (!err)
		err = qpt_writer_write_auxtrace(sp->sh[k].w, &hdr, &iov,
						iov.iov_base ? 1 : 0);
	free(iov.iov_base);
	return err;
}

/* Before bytes of queue @qi in shard @k: the shard's queues before it in
 * the decode's order that have had none, opened by empty records. */
static int open_queues(struct split *sp, uint32_t k, size_t qi)
{
	struct split_shard *h = &sp->sh[k];
	int err = 0;

	if (h->seen[qi])
		return 0;
	for (; !err && h->next < sp->nr_units &&
	       sp->units[h->next].shard == k && sp->units[h->next].queue != qi;
	     h->next++) {
		const struct split_unit *u = &sp->units[h->next];
		const struct qd_queue *q = &sp->s.queues[u->queue];
		struct qpt_record_auxtrace hdr;

		if (h->seen[u->queue])
			continue;
		memset(&hdr, 0, sizeof(hdr));
		hdr.idx = q->idx;
		hdr.tid = (uint32_t)q->tid;
		hdr.cpu = (uint32_t)q->cpu;
		err =
		    write_bytes(sp, k, u->queue, &hdr, u->from, u->from, NULL);
	}
	return err;
}

/* Where unit @u's bytes in its shard end: with the PSB+ after it when the
 * next unit, contiguous, goes to another shard. */
static uint64_t unit_end(const struct split *sp, size_t qi, size_t u)
{
	const struct split_unit *su = &sp->units[u];

	if (u + 1 < sp->end_unit[qi] && su[1].shard != su->shard &&
	    su[1].run == su->run && su[1].from == su->to)
		return su->tail;
	return su->to;
}

/*
 * AUXTRACE record @rec, what it put in its run: to each shard the bytes
 * of its units there, contiguous ones in one record.  A shard's bytes
 * that end where the record's do and begin at a PSB start up to 7 bytes
 * early (the decode skips them to the PSB), so that the writer's padding
 * to 8 bytes adds nothing past the end, where the decode tells the
 * trace's end.
 */
static int put_auxtrace(struct split *sp, const struct qpt_record *rec,
			const struct qd_put *p)
{
	const struct qd_queue *q;
	size_t u, qi = p->queue;
	uint64_t from, to, k;
	int err = 0;

	if (!p->valid || rec->size < sizeof(struct qpt_record_auxtrace))
		return 0;
	q = &sp->s.queues[qi];
	for (u = sp->first_unit[qi]; !err && u < sp->end_unit[qi]; u++) {
		const struct split_unit *su = &sp->units[u];
		bool begins = u == sp->first_unit[qi] ||
			      su[-1].shard != su->shard ||
			      su[-1].run != su->run || su[-1].to != su->from;
		bool at_psb = su->at_psb;

		if (su->run != p->run || su->to <= p->from || su->from >= p->to)
			continue;
		from = su->from > p->from ? su->from : p->from;
		while (u + 1 < sp->end_unit[qi] && su[1].shard == su->shard &&
		       su[1].run == su->run && su[1].from == su->to &&
		       su[1].from < p->to) {
			u++;
			su++;
		}
		to = unit_end(sp, qi, u);
		to = to < p->to ? to : p->to;
		k = (8 - (to - from) % 8) % 8;
		if (begins && at_psb && from > p->from && to == p->to &&
		    from - k >= p->from)
			from -= k;
		err = open_queues(sp, su->shard, qi);
		if (!err)
			err = write_bytes(sp, su->shard, qi, rec->data, from,
					  to, &q->runs[p->run]);
	}
	return err;
}

/* The loss the record at @pos is, or NULL. */
static const struct qd_lost *loss_at(struct split *sp, uint64_t pos,
				     size_t *cursor)
{
	while (*cursor < sp->s.nr_lost && sp->s.lost[*cursor].pos < pos)
		++*cursor;
	if (*cursor < sp->s.nr_lost && sp->s.lost[*cursor].pos == pos)
		return &sp->s.lost[*cursor];
	return NULL;
}

/* A record that tells a loss: an AUX record's loss in one shard (the
 * others get it as a mark only), an AUXTRACE_ERROR in one shard. */
static int put_loss(struct split *sp, const struct qpt_record *rec, size_t lost)
{
	uint8_t buf[4096];
	uint64_t flags;
	uint32_t k;
	int err = 0;

	if (rec->type == QPT_RECORD_AUXTRACE_ERROR)
		return qpt_writer_write(sp->sh[sp->lost_shard[lost]].w,
					rec->data);
	memcpy(buf, rec->data, rec->size);
	for (k = 0; !err && k < sp->nr_shards; k++) {
		memcpy(&flags, (const uint8_t *)rec->data + 24, 8);
		if (k != sp->lost_shard[lost])
			flags &= ~(uint64_t)(PERF_AUX_FLAG_TRUNCATED |
					     PERF_AUX_FLAG_COLLISION);
		memcpy(buf + 24, &flags, 8);
		err = qpt_writer_write(sp->sh[k].w, buf);
	}
	return err;
}

static int put_record(struct split *sp, const struct qpt_record *rec,
		      size_t *cursor)
{
	const struct qd_lost *l;
	uint32_t k;
	int err = 0;

	switch (rec->type) {
	case QPT_RECORD_COMPRESSED:
	case QPT_RECORD_COMPRESSED2:
	case QPT_RECORD_HEADER_ATTR:
	case QPT_RECORD_HEADER_FEATURE:
	case QPT_RECORD_HEADER_TRACING_DATA:
	case QPT_RECORD_HEADER_BUILD_ID:
		return 0; /* the inner records follow; the header's */
	case PERF_RECORD_AUX:
	case QPT_RECORD_AUXTRACE_ERROR:
		l = loss_at(sp, rec->pos, cursor);
		if (l && rec->size <= 4096)
			return put_loss(sp, rec, (size_t)(l - sp->s.lost));
		break;
	}
	for (k = 0; !err && k < sp->nr_shards; k++)
		err = qpt_writer_write(sp->sh[k].w, rec->data);
	return err;
}

/* The second pass: every record to the shards. */
static int write_shards(struct split *sp, const char *path)
{
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	size_t puts = 0, cursor = 0;
	int err = open_input(sp, path, &r);

	if (!err)
		err = shard_headers(sp, r);
	while (!err && (err = qpt_reader_next(r, &rec)) > 0) {
		if (rec.type != QPT_RECORD_AUXTRACE)
			err = put_record(sp, &rec, &cursor);
		else if (puts < sp->nr_puts)
			err = put_auxtrace(sp, &rec, &sp->puts[puts++]);
	}
	if (err < 0 && r && qpt_reader_errmsg(r)[0])
		err = reader_fail(sp, r, err);
	qpt_reader_free(r);
	return err;
}

/* PATH.vdso (the vDSO's bytes, which the decode looks for beside the
 * file) beside each shard. */
static int copy_vdso(struct split *sp, const char *path)
{
	char *src = NULL, *dst = NULL, buf[1 << 16];
	int in = -1, out, err = 0;
	uint32_t k;
	ssize_t n;

	if (asprintf(&src, "%s.vdso", path) < 0)
		return -ENOMEM;
	in = open(src, O_RDONLY | O_CLOEXEC);
	free(src);
	if (in < 0)
		return 0;
	for (k = 0; !err && k < sp->nr_shards; k++) {
		if (asprintf(&dst, "%s.vdso", sp->sh[k].path) < 0) {
			err = -ENOMEM;
			break;
		}
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		free(dst);
		if (out < 0 || lseek(in, 0, SEEK_SET) < 0)
			err = -errno;
		while (!err && (n = read(in, buf, sizeof(buf))) != 0)
			if (n < 0 || write(out, buf, (size_t)n) != n)
				err = n < 0 ? -errno : -EIO;
		if (out >= 0 && close(out) && !err)
			err = -errno;
	}
	close(in);
	return err;
}

static int close_shards(struct split *sp)
{
	uint32_t k;
	int err = 0;

	for (k = 0; !err && k < sp->nr_shards; k++)
		err = qpt_writer_close(sp->sh[k].w);
	return err;
}

static void split_free(struct split *sp, bool failed)
{
	char *v;
	uint32_t k;

	for (k = 0; sp->sh && k < sp->nr_shards; k++) {
		qpt_writer_free(sp->sh[k].w);
		if (failed && sp->sh[k].path) {
			unlink(sp->sh[k].path);
			if (asprintf(&v, "%s.vdso", sp->sh[k].path) >= 0) {
				unlink(v);
				free(v);
			}
		}
		free(sp->sh[k].path);
		free(sp->sh[k].seen);
	}
	free(sp->sh);
	qd_session_fini(&sp->s);
	qpt_reader_free(sp->r);
	free(sp->puts);
	free(sp->units);
	free(sp->first_unit);
	free(sp->end_unit);
	free(sp->lost_unit);
	free(sp->lost_shard);
}

int qpt_split_file(const char *path, const char *dir,
		   const struct qpt_split_opts *opts,
		   struct qpt_split_result *res)
{
	struct qpt_split_result out = {.size = sizeof(out)};
	struct qpt_split_opts o;
	struct split *sp;
	int err;

	qpt_split_opts_init(&o);
	if (!path || !dir || !res || res->size < sizeof(size_t) ||
	    (opts &&
	     qpt_sized_opts_read(&o, sizeof(o), opts, sizeof(size_t))) ||
	    !o.shards || o.shards > QPT_SPLIT_MAX)
		return -QPT_E_INVAL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->s.fd = -1;
	err = read_plan(sp, path);
	if (!err)
		err = split_plan(sp, o.shards);
	if (!err)
		err = partition_puts(sp);
	if (!err)
		err = create_shards(sp, dir);
	if (!err)
		err = write_shards(sp, path);
	if (!err)
		err = close_shards(sp);
	if (!err)
		err = copy_vdso(sp, path);
	out.shards = err ? 0 : sp->nr_shards;
	out.units = sp->nr_units;
	out.errpos = sp->errpos;
	snprintf(out.errmsg, sizeof(out.errmsg), "%s", sp->errmsg);
	split_free(sp, err != 0);
	free(sp);
	out.size = res->size; /* the caller's */
	qpt_sized_copy(res, res->size, &out, sizeof(out));
	return err;
}
