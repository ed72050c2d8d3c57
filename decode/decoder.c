// SPDX-License-Identifier: MIT
/* The public decoder object: options, images, raw-stream runs, results. */
#include <errno.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "decode/decoder.h"
#include "decode/blks.h"
#include "decode/paths.h"

void qpt_decoder_opts_init_sized(struct qpt_decoder_opts *out, size_t size)
{
	struct qpt_decoder_opts o, *opts = &o;

	memset(opts, 0, sizeof(*opts));
	opts->want = QPT_WANT_INSN;
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

int qpt_decoder_new(const struct qpt_decoder_opts *opts,
		    struct qpt_decoder **out)
{
	struct qpt_decoder *dec;

	if (!out)
		return -QPT_E_INVAL;
	*out = NULL;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return -ENOMEM;
	qpt_decoder_opts_init(&dec->opts);
	if (opts && qpt_sized_opts_read(&dec->opts, sizeof(dec->opts), opts,
					offsetof(struct qpt_decoder_opts, want))) {
		free(dec);
		return -QPT_E_INVAL;
	}
	elf_version(EV_CURRENT);
	dec->files.sysroot = dec->opts.sysroot;
	dec->files.buildid_dir = dec->opts.buildid_dir;
	dec->files.log = dec->opts.log;
	dec->files.log_ctx = dec->opts.log_ctx;
	dec->files.demangle = dec->opts.demangle;
	dec->iscache = pt_iscache_alloc(NULL);
	dec->manual = qd_space_new(-1);
	dec->runs = qd_runs_new();
	dec->prof = qd_prof_new();
	dec->cov = qd_cov_new();
	dec->paths = qd_paths_new();
	dec->blks = qd_blks_new();
	if (!dec->iscache || !dec->manual || !dec->runs || !dec->prof ||
	    !dec->cov || !dec->paths || !dec->blks) {
		qpt_decoder_free(dec);
		return -ENOMEM;
	}
	*out = dec;
	return 0;
}

void qpt_decoder_free(struct qpt_decoder *dec)
{
	if (!dec)
		return;
	qd_space_free(dec->manual);
	qd_runs_free(dec->runs);
	qd_prof_free(dec->prof);
	qx86_cache_free(dec->icache);
	qd_cov_free(dec->cov);
	qd_paths_free(dec->paths);
	qd_blks_free(dec->blks);
	free(dec->missing);
	qd_files_free(&dec->files);
	pt_iscache_free(dec->iscache);
	free(dec);
}

int qpt_decoder_add_image(struct qpt_decoder *dec, const char *path,
			  uint64_t addr)
{
	struct qd_file *file;
	struct qd_files raw_files = dec ? dec->files : (struct qd_files){ 0 };

	if (!dec || !path)
		return -QPT_E_INVAL;
	/* given by hand: the path as is, not under the sysroot */
	raw_files.sysroot = NULL;
	raw_files.head = dec->files.head;
	file = qd_files_get(&raw_files, path, NULL, 0, true);
	dec->files.head = raw_files.head;
	if (!file)
		return -ENOMEM;
	if (!file->found) {
		snprintf(dec->errmsg, sizeof(dec->errmsg), "%s",
			 file->reason ? file->reason : "not found");
		return file->err ? file->err : -ENOENT;
	}
	return qd_space_map(dec->manual, dec->iscache, addr, file->size, 0,
			    file);
}

void qd_decoder_reset_results(struct qpt_decoder *dec)
{
	struct qd_file *f;

	memset(&dec->stats, 0, sizeof(dec->stats));
	qd_prof_reset(dec->prof);
	qd_cov_reset(dec->cov);
	qd_paths_reset(dec->paths); /* they point into prof and cov */
	qd_blks_reset(dec->blks); /* they name the run's spaces */
	for (f = dec->files.head; f; f = f->next)
		f->errors = f->bytes = 0;
	free(dec->missing);
	dec->missing = NULL;
	dec->nr_missing = 0;
	dec->errpos = 0;
	dec->errmsg[0] = '\0';
}

struct qx86_cache *qd_decoder_caches(struct qpt_decoder *dec)
{
	qd_runs_forget(dec->runs);
	if (dec->icache)
		qx86_cache_forget(dec->icache);
	else
		dec->icache = qx86_cache_new(QD_ICACHE_ORDER);
	return dec->icache;
}

struct qd_progress *qd_decoder_progress(struct qpt_decoder *dec, uint64_t total)
{
	struct qd_progress *p = &dec->progress;

	if (!dec->opts.progress)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->fn = dec->opts.progress;
	p->ctx = dec->opts.progress_ctx;
	p->total = total;
	return p;
}

int qd_decoder_collect_missing(struct qpt_decoder *dec)
{
	struct qd_file *f;
	size_t n = 0;

	free(dec->missing);
	dec->missing = NULL;
	dec->nr_missing = 0;
	for (f = dec->files.head; f; f = f->next)
		if (!f->found && f->used)
			n++;
	if (!n)
		return 0;
	dec->missing = calloc(n, sizeof(*dec->missing));
	if (!dec->missing)
		return -ENOMEM;
	for (f = dec->files.head; f; f = f->next) {
		struct qpt_missing_image *m;

		if (f->found || !f->used)
			continue;
		m = &dec->missing[dec->nr_missing++];
		m->path = f->path;
		m->reason = f->reason ? f->reason : "not found";
		m->errors = f->errors;
		m->bytes = f->bytes;
	}
	return 0;
}

int qpt_decoder_run_raw(struct qpt_decoder *dec, const void *buf, size_t len,
			qpt_item_fn fn, void *ctx)
{
	struct qd_flow_ctx fc;
	struct pt_config cfg;

	if (!dec || (!buf && len) || !fn)
		return -QPT_E_INVAL;
	qd_decoder_reset_results(dec);
	memset(&fc, 0, sizeof(fc));
	fc.want = dec->opts.want;
	fc.runs = dec->runs;
	fc.prof = dec->prof;
	fc.cov = dec->cov;
	fc.paths = dec->paths;
	fc.blks = dec->blks;
	fc.libipt_only = dec->opts.libipt_only;
	fc.fn = fn;
	fc.fn_ctx = ctx;
	fc.space = dec->manual;
	fc.pid = fc.tid = fc.cpu = -1;
	fc.stats = &dec->stats;
	fc.cache = qd_decoder_caches(dec);
	if (!fc.cache)
		return -ENOMEM;
	fc.progress = qd_decoder_progress(dec, len);
	pt_config_init(&cfg);
	return qd_flow_run(&fc, &cfg, buf, len);
}

uint64_t qpt_decoder_errpos(const struct qpt_decoder *dec)
{
	return dec ? dec->errpos : 0;
}

const char *qpt_decoder_errmsg(const struct qpt_decoder *dec)
{
	return dec ? dec->errmsg : "";
}

size_t qpt_decoder_missing(const struct qpt_decoder *dec,
			   const struct qpt_missing_image **list)
{
	if (list)
		*list = dec && dec->nr_missing ? dec->missing : NULL;
	return dec ? dec->nr_missing : 0;
}

/* The first version's stats end with skipped_bytes. */
#define STATS_SIZE_V1 (offsetof(struct qpt_decode_stats, skipped_bytes) + 8)

int qpt_decoder_stats_sized(const struct qpt_decoder *dec,
			    struct qpt_decode_stats *stats, size_t size)
{
	if (!dec || !stats || size < STATS_SIZE_V1)
		return -QPT_E_INVAL;
	qpt_sized_copy(stats, size, &dec->stats, sizeof(dec->stats));
	return 0;
}

static const char *const branch_names[QPT_BR_NR] = {
	[QPT_BR_JCC] = "jcc",
	[QPT_BR_JMP] = "jmp",
	[QPT_BR_IND_JMP] = "ind_jmp",
	[QPT_BR_CALL] = "call",
	[QPT_BR_IND_CALL] = "ind_call",
	[QPT_BR_RET] = "ret",
	[QPT_BR_SYSCALL] = "syscall",
	[QPT_BR_SYSRET] = "sysret",
	[QPT_BR_INT] = "int",
	[QPT_BR_IRET] = "iret",
	[QPT_BR_FAR] = "far",
	[QPT_BR_ASYNC] = "async",
	[QPT_BR_TX_ABORT] = "tx_abort",
	[QPT_BR_TRACE_BEGIN] = "trace_begin",
	[QPT_BR_TRACE_END] = "trace_end",
};

static const char *const event_names[QPT_EV_NR] = {
	[QPT_EV_ENABLED] = "enabled",
	[QPT_EV_DISABLED] = "disabled",
	[QPT_EV_OVERFLOW] = "overflow",
	[QPT_EV_ERROR] = "error",
	[QPT_EV_LOST] = "lost",
	[QPT_EV_EXEC_MODE] = "exec_mode",
	[QPT_EV_TSX] = "tsx",
	[QPT_EV_STOP] = "stop",
	[QPT_EV_PAGING] = "paging",
	[QPT_EV_VMCS] = "vmcs",
	[QPT_EV_POWER] = "power",
	[QPT_EV_PTWRITE] = "ptwrite",
};

int qpt_item_asm(const struct qpt_item *item, char *buf, size_t size)
{
	int err;

	if (size)
		buf[0] = '\0';
	if (!item || item->type != QPT_ITEM_INSN || !item->size)
		return -QPT_E_INVAL;
	err = qx86_format(NULL, item->raw,
			  item->size < sizeof(item->raw) ? item->size
							 : sizeof(item->raw),
			  item->mode ? item->mode : 64, item->ip, buf, size);
	return err == -QPT_E_TRUNCATED ? -QPT_E_FORMAT : err;
}

const char *qpt_branch_kind_name(unsigned kind)
{
	return kind < QPT_BR_NR ? branch_names[kind] : "unknown";
}

const char *qpt_event_kind_name(unsigned kind)
{
	return kind < QPT_EV_NR ? event_names[kind] : "unknown";
}
