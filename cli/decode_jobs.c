// SPDX-License-Identifier: MIT
/*
 * qpt decode -j: the library decodes parts of the trace on worker
 * threads (qpt_decoder_run_file_jobs) and the lines are printed there
 * too, into each part's buffer, which the library hands back in order.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/bigmem.h"
#include "cli/cli.h"
#include "cli/decode_jobs.h"

#define PRINTER_ALIGN _Alignof(struct printer)
/* The least room a worker's printer writes into (in its part's last
 * chunk): less left there starts a new chunk. */
#define PAR_WINDOW_MIN (2 * OUT_RESERVE_MAX)
/* A part's lines are kept in a list of chunks: its first of
 * CHUNK_FIRST bytes (malloc's: a part of a few lines, as each of many
 * short queues has, takes little memory while it waits for its turn),
 * the next ones of CHUNK_BIG (on huge pages where they can be, bigmem.h),
 * handed back to the run's pool as soon as their lines are written and
 * taken from it again: a part's lines are never copied to grow or to
 * drop, and a loop's parts of tens of MiB each do not fault (the kernel
 * zeroing) fresh pages for each. */
#define CHUNK_FIRST (64u << 10)
#define CHUNK_BIG (2u << 20)

#define PRINTER_BYTES (sizeof(struct printer) + PRINTER_ALIGN)
/* A printer zeroed, on huge pages where it can be (its caches are
 * touched all over: bigmem.h), and aligned as its line cache wants;
 * *@mem is what printer_free takes. */
struct printer *printer_new(void **mem)
{
	*mem = bigmem_zalloc(PRINTER_BYTES);
	if (!*mem)
		return NULL;
	return (void *)(((uintptr_t)*mem + PRINTER_ALIGN - 1) &
			~(uintptr_t)(PRINTER_ALIGN - 1));
}

void printer_free(void *mem)
{
	bigmem_free(mem, PRINTER_BYTES);
}

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
	void *mem[QPT_DECODE_MAX_JOBS + 1];
	pthread_mutex_t mu;
	struct chunk *free; /* CHUNK_BIG ones written, for the next lines */
};

struct chunk {
	struct chunk *next;
	size_t cap, used;
	uint64_t pos; /* of data[0] in its part's output */
	char data[];
};

struct par_job {
	struct par *par;
	struct printer *p;
	struct chunk *head, *tail; /* the lines not yet written, and the
				    * chunk the printer writes into */
};

static void chunk_put(struct par *par, struct chunk *c)
{
	if (c->cap + sizeof(*c) != CHUNK_BIG) {
		free(c);
		return;
	}
	pthread_mutex_lock(&par->mu);
	c->next = par->free;
	par->free = c;
	pthread_mutex_unlock(&par->mu);
}

/* A chunk after @j's last (its first: CHUNK_FIRST bytes). */
static int chunk_add(struct par_job *j)
{
	struct par *par = j->par;
	struct chunk *c = NULL;
	size_t size = j->tail ? CHUNK_BIG : CHUNK_FIRST;

	if (size == CHUNK_BIG) {
		pthread_mutex_lock(&par->mu);
		c = par->free;
		if (c)
			par->free = c->next;
		pthread_mutex_unlock(&par->mu);
		if (!c)
			c = bigmem_zalloc(CHUNK_BIG);
	} else {
		c = malloc(CHUNK_FIRST);
	}
	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->cap = size - sizeof(*c);
	c->used = 0;
	c->pos = j->tail ? j->tail->pos + j->tail->used : 0;
	if (j->tail)
		j->tail->next = c;
	else
		j->head = c;
	j->tail = c;
	return 0;
}

/* The output's bytes of @j so far, but those in its printer's window. */
static uint64_t par_end(const struct par_job *j)
{
	return j->tail ? j->tail->pos + j->tail->used : 0;
}

/* The chunks wholly before @upto handed back (not the last: the
 * printer's window is there). */
static void par_release(struct par_job *j, uint64_t upto)
{
	struct chunk *c;

	while ((c = j->head) != j->tail && c->pos + c->used <= upto) {
		j->head = c->next;
		chunk_put(j->par, c);
	}
}

static void par_job_free(struct par_job *j)
{
	struct chunk *c, *next;

	for (c = j->head; c; c = next) {
		next = c->next;
		chunk_put(j->par, c);
	}
	free(j);
}

/* The worker's printer writes straight into @j's last chunk, from its
 * end on: no copy of each line from the printer's buffer into the
 * part's. */
static int par_window(struct par_job *j)
{
	int err;

	if ((!j->tail || j->tail->cap - j->tail->used < PAR_WINDOW_MIN) &&
	    (err = chunk_add(j)))
		return err;
	j->p->w.buf = j->tail->data + j->tail->used;
	j->p->w.cap = j->tail->cap - j->tail->used;
	return 0;
}

/* What the printer wrote: in place (its window), or bytes to copy (a
 * string longer than the window). */
static int par_spill(void *arg, const char *p, size_t n)
{
	struct par_job *j = arg;
	struct chunk *c = j->tail;
	int err;

	if (p == c->data + c->used) {
		c->used += n;
		return par_window(j);
	}
	while (n) {
		size_t k;

		if (c->used == c->cap) {
			if ((err = chunk_add(j)))
				return err;
			c = j->tail;
		}
		k = c->cap - c->used < n ? c->cap - c->used : n;
		memcpy(c->data + c->used, p, k);
		c->used += k;
		p += k;
		n -= k;
	}
	return par_window(j);
}

/* Thread @worker's printer, like the main one. */
static int par_printer(struct par *par, unsigned worker)
{
	struct printer *p = printer_new(&par->mem[worker]);

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
	j->p->w.spill = par_spill;
	j->p->w.spill_arg = j;
	j->p->w.len = 0;
	j->p->w.err = 0;
	if (par_window(j)) {
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

	return par_end(j) + j->p->w.len;
}

static void par_finish(void *job)
{
	out_flush(&((struct par_job *)job)->p->w);
}

/* The lines of [@from, @to) to the main printer (the library writes a
 * part's in order, each once): the chunks written go back to the pool.
 * Lines past the last chunk's are in the printer's window: the part's
 * worker waits in it (a part done had its window flushed), so the
 * printer is the part's to flush. */
static int par_write(void *job, uint64_t from, uint64_t to, void *ctx)
{
	struct par_job *j = job;
	struct par *par = ctx;
	const struct chunk *c;

	if (to > par_end(j))
		out_flush(&j->p->w);
	for (c = j->head; c && from < to; c = c->next) {
		uint64_t end = c->pos + c->used;

		if (from >= end)
			continue;
		if (from < c->pos) /* a range before the first chunk kept */
			return -EINVAL;
		end = end < to ? end : to;
		out_raw(&par->main->w, c->data + (from - c->pos),
			(size_t)(end - from));
		from = end;
	}
	if (from < to)
		return -EINVAL;
	par_release(j, to);
	return par->main->w.err;
}

/* The bytes before @upto are written: their chunks go back to the pool
 * (its worker waits meanwhile: its printer is ours to flush). */
static void par_drop(void *job, uint64_t upto)
{
	struct par_job *j = job;

	out_flush(&j->p->w); /* its window's bytes into the last chunk */
	par_release(j, upto);
	par_window(j); /* a new chunk only where the last is full */
}

static void par_close(void *job, void *ctx)
{
	(void)ctx;
	par_job_free(job);
}

static void par_free(struct par *par)
{
	unsigned i;

	while (par->free) {
		struct chunk *c = par->free;

		par->free = c->next;
		bigmem_free(c, CHUNK_BIG);
	}
	pthread_mutex_destroy(&par->mu);
	for (i = 0; i <= QPT_DECODE_MAX_JOBS; i++)
		printer_free(par->mem[i]);
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
	pthread_mutex_init(&par->mu, NULL);
	par->main = o;
	par->item = item;
	sink.ctx = par;
	sink.hold = jobs_hold();
	err = qpt_decoder_run_file_jobs(dec, name, &sink);
	par_free(par);
	free(par);
	return err;
}
