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
/* The room a worker's printer writes into (in its part's buffer): as
 * much as the part's lines so far, from PAR_WINDOW_MIN (a part of a few
 * lines, as each of many short queues has, takes little memory while it
 * waits for its turn) up to PAR_WINDOW_MAX (a spill every that many
 * bytes). */
#define PAR_WINDOW_MIN (2 * OUT_RESERVE_MAX)
#define PAR_WINDOW_MAX (64u << 10)
/* The buffers kept for reuse with @n printers: one for each (a new one
 * costs little more: its pages are huge where they can be, bigmem.h). */
#define PAR_KEEP(n) (n)

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
 * writing a part's lines into the part's buffer; the library hands the
 * buffers back in order to the main printer.  A line depends on its item
 * only (no --calls depth, no --last ring), so the output is -j1's.
 */
struct par {
	struct printer *main;
	qpt_item_fn item; /* an item to a printer */
	/* a printer for each thread (the library's worker number), made by
	 * its first part on that thread: no thread writes another's entry */
	struct printer *pr[QPT_DECODE_MAX_JOBS + 1];
	void *mem[QPT_DECODE_MAX_JOBS + 1];
	/* buffers of closed parts, for the next ones (their pages stay
	 * mapped: no fault for each line of each part) */
	pthread_mutex_t mu;
	struct par_job *free;
	unsigned nr_free;
	unsigned nr_pr; /* printers made (PAR_KEEP: the buffers kept) */
};

struct par_job {
	struct par_job *next; /* in par->free */
	struct par *par;
	struct printer *p;
	char *buf;
	size_t len, cap;
	uint64_t base; /* the output's bytes dropped before buf[0] */
};

/* Room for at least @n more bytes in @j's buffer (doubled as needed;
 * large ones on huge pages: bigmem.h). */
static int par_grow(struct par_job *j, size_t n)
{
	size_t cap = j->cap ? j->cap : 4096;
	char *buf;

	if (n <= j->cap - j->len)
		return 0;
	while (n > cap - j->len)
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		else
			cap *= 2;
	buf = bigmem_zalloc(cap);
	if (!buf)
		return -ENOMEM;
	if (j->len)
		memcpy(buf, j->buf, j->len);
	bigmem_free(j->buf, j->cap);
	j->buf = buf;
	j->cap = cap;
	return 0;
}

static void par_job_free(struct par_job *j)
{
	bigmem_free(j->buf, j->cap);
	free(j);
}

/* The worker's printer writes straight into @j's buffer, from its end
 * on: no copy of each line from the printer's buffer into the part's. */
static int par_window(struct par_job *j)
{
	size_t room = j->len < PAR_WINDOW_MIN	? PAR_WINDOW_MIN
		      : j->len > PAR_WINDOW_MAX ? PAR_WINDOW_MAX
						: j->len;
	int err = par_grow(j, room);

	if (err)
		return err;
	j->p->w.buf = j->buf + j->len;
	j->p->w.cap = j->cap - j->len;
	return 0;
}

/* What the printer wrote: in place (its window), or bytes to copy (a
 * string longer than the window). */
static int par_spill(void *arg, const char *p, size_t n)
{
	struct par_job *j = arg;
	int err;

	if (p != j->buf + j->len) {
		err = par_grow(j, n);
		if (err)
			return err;
		memcpy(j->buf + j->len, p, n);
	}
	j->len += n;
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
	__atomic_add_fetch(&par->nr_pr, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *par_open(void *ctx, unsigned worker)
{
	struct par *par = ctx;
	struct par_job *j;

	if (worker > QPT_DECODE_MAX_JOBS ||
	    (!par->pr[worker] && par_printer(par, worker)))
		return NULL;
	pthread_mutex_lock(&par->mu);
	j = par->free;
	if (j) {
		par->free = j->next;
		par->nr_free--;
	}
	pthread_mutex_unlock(&par->mu);
	if (!j && !(j = calloc(1, sizeof(*j))))
		return NULL;
	j->len = 0;
	j->base = 0;
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

	return j->base + j->len + j->p->w.len;
}

static void par_finish(void *job)
{
	out_flush(&((struct par_job *)job)->p->w);
}

static int par_write(void *job, uint64_t from, uint64_t to, void *ctx)
{
	struct par_job *j = job;
	struct par *par = ctx;

	if (to <= from) /* a part with no lines may have no buffer */
		return 0;
	out_raw(&par->main->w, j->buf + (from - j->base), (size_t)(to - from));
	return par->main->w.err;
}

/* The bytes before @upto are written: the part's next lines take their
 * room (its worker waits meanwhile: its printer is ours to move). */
static void par_drop(void *job, uint64_t upto)
{
	struct par_job *j = job;
	size_t keep;

	out_flush(&j->p->w); /* its window's bytes into j->len */
	if (upto <= j->base || upto > j->base + j->len)
		return;
	keep = (size_t)(j->base + j->len - upto);
	memmove(j->buf, j->buf + (upto - j->base), keep);
	j->base = upto;
	j->len = keep;
	par_window(j); /* no growth: the room is there */
}

static void par_close(void *job, void *ctx)
{
	struct par_job *j = job;
	struct par *par = ctx;

	pthread_mutex_lock(&par->mu);
	if (par->nr_free < PAR_KEEP(__atomic_load_n(&par->nr_pr,
						    __ATOMIC_RELAXED))) {
		j->next = par->free;
		par->free = j;
		par->nr_free++;
		j = NULL;
	}
	pthread_mutex_unlock(&par->mu);
	if (j) {
		par_job_free(j);
	}
}

static void par_free(struct par *par)
{
	unsigned i;

	while (par->free) {
		struct par_job *j = par->free;

		par->free = j->next;
		par_job_free(j);
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
