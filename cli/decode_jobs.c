// SPDX-License-Identifier: MIT
/*
 * qpt decode -j: the library decodes parts of the trace on worker
 * threads (qpt_decoder_run_file_jobs) and the lines are printed there
 * too, into each part's chunks (chunks.c), which the library hands back
 * in order.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/chunks.h"
#include "cli/cli.h"
#include "cli/decode_jobs.h"

/*
 * -j: the parts of the trace are decoded on worker threads, and printed
 * there too, each worker with a printer of its own (the same options)
 * writing a part's lines into the part's chunks; the library hands the
 * parts back in order to the main printer.  A line depends on its item
 * only (no --calls depth, no --last ring), so the output is -j1's.
 */
struct par {
	struct printer *main;
	qpt_item_fn item; /* an item to a printer */
	/* a printer for each thread (the library's worker number), made by
	 * its first part on that thread: no thread writes another's entry */
	struct printer *pr[QPT_DECODE_MAX_JOBS + 1];
	struct chunk_pool pool; /* the parts' chunks */
};

struct par_job {
	struct par *par;
	struct printer *p;
	struct chunk_list c; /* the lines not yet written */
};

static void par_job_free(struct par_job *j)
{
	chunks_free(&j->c);
	free(j);
}

/* The worker's printer writes straight into @j's last chunk, from its
 * end on: no copy of each line from the printer's buffer into the
 * part's. */
static int par_spill(void *arg, const char *p, size_t n)
{
	struct par_job *j = arg;
	int err = chunks_spill(&j->c, p, n);

	return err ? err : chunks_window(&j->c, &j->p->w);
}

/* Thread @worker's printer, like the main one. */
static int par_printer(struct par *par, unsigned worker)
{
	struct printer *p = printer_new();

	if (!p)
		return -ENOMEM;
	memcpy(p, par->main, offsetof(struct printer, rings));
	p->samplers = NULL; /* --itrace=iPERIOD's: serial only */
	p->nr_samplers = 0;
	decode_print_init(p);
	par->pr[worker] = p;
	return 0;
}

static void *par_open(void *ctx, unsigned worker)
{
	struct par *par = ctx;
	struct par_job *j;

	if (worker > QPT_DECODE_MAX_JOBS ||
	    (!par->pr[worker] && par_printer(par, worker)))
		return NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->par = par;
	j->p = par->pr[worker];
	chunks_init(&j->c, &par->pool);
	j->p->w.spill = par_spill;
	j->p->w.spill_arg = j;
	j->p->w.len = 0;
	j->p->w.err = 0;
	if (chunks_window(&j->c, &j->p->w)) {
		par_job_free(j);
		return NULL;
	}
	return j;
}

static int par_item(const struct qpt_item *it, void *job)
{
	struct par_job *j = job;

	return j->par->item(it, j->p);
}

static uint64_t par_tell(void *job)
{
	struct par_job *j = job;

	return chunks_end(&j->c) + j->p->w.len;
}

static void par_finish(void *job)
{
	out_flush(&((struct par_job *)job)->p->w);
}

/* The lines of [@from, @to) to the main printer (the library writes a
 * part's in order, each once): the chunks written go back to the pool.
 * Lines past the chunks' are in the printer's window: the part's worker
 * waits in it (a part done had its window flushed), so the printer is
 * the part's to flush. */
static int par_write(void *job, uint64_t from, uint64_t to, void *ctx)
{
	struct par_job *j = job;
	struct par *par = ctx;
	int err;

	if (to > chunks_end(&j->c) && (err = out_flush(&j->p->w)))
		return err; /* no memory for a chunk */
	err = chunks_write(&j->c, from, to, &par->main->w);
	chunks_release(&j->c, to);
	return err;
}

/* The bytes before @upto are written: their chunks go back to the pool
 * (its worker waits meanwhile: its printer is ours to flush). */
static void par_drop(void *job, uint64_t upto)
{
	struct par_job *j = job;

	out_flush(&j->p->w); /* its window's bytes into the last chunk */
	chunks_release(&j->c, upto);
}

static void par_close(void *job, void *ctx)
{
	(void)ctx;
	par_job_free(job);
}

static void par_free(struct par *par)
{
	unsigned i;

	chunk_pool_fini(&par->pool);
	for (i = 0; i <= QPT_DECODE_MAX_JOBS; i++)
		printer_free(par->pr[i]);
}

/* QPT_JOBS_HOLD: the bytes of lines a part holds before its thread waits
 * for its turn (the library's default where unset or not a number): tests
 * make it small, so that every part waits. */
static uint64_t jobs_hold(void)
{
	const char *v = getenv("QPT_JOBS_HOLD");
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end ? 0 : n;
}

bool decode_jobs_wanted(unsigned jobs, const struct printer *o)
{
	return jobs != 1 && o->mode != MODE_CALLS && !o->last && !o->period;
}

int decode_jobs_run(struct qpt_decoder *dec, const char *name,
		    struct printer *o, qpt_item_fn item)
{
	struct qpt_job_sink sink = {
	    .size = sizeof(sink),
	    .open = par_open,
	    .item = par_item,
	    .tell = par_tell,
	    .finish = par_finish,
	    .write = par_write,
	    .close = par_close,
	    .drop = par_drop,
	    .serial = item,
	    .serial_ctx = o,
	};
	struct par *par = calloc(1, sizeof(*par));
	int err;

	if (!par)
		return -ENOMEM;
	chunk_pool_init(&par->pool);
	par->main = o;
	par->item = item;
	sink.ctx = par;
	sink.hold = jobs_hold();
	err = qpt_decoder_run_file_jobs(dec, name, &sink);
	par_free(par);
	free(par);
	return err;
}
