// SPDX-License-Identifier: MIT
/*
 * Perfmon buffers in qpt dump and qpt convert: telling them from perf.data
 * (no magic of their own: a regular file without PERFILE2 in either byte
 * order is read as one), and qpt dump's view of every record: text
 *
 *   perfmon buffer: version 0 arch x86_64 flags 0x0 ticks_per_second N
 *   capture_end 0x...
 *   0xOFF [0xSIZE]: TIME reserved_flags=0 event=0x801 time=N
 *   0xOFF [0xSIZE]: LAST_BRANCH reserved_flags=0 event=0x0 aspace=0x...
 *   branches=N
 *   .....  0: FROM -> TO cycles C[ M]
 *
 * or JSON Lines with every field (the header first), from which the
 * buffer can be written again byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/perfmon_cli.h"
#include "qpt/perf_format.h"
#include "qpt/writer.h"

int cli_perfmon_error(const char *path, const struct qpt_perfmon *pm, int err)
{
	if (qpt_perfmon_errmsg(pm)[0])
		cli_error_at(path, qpt_perfmon_errpos(pm), "%s",
			     qpt_perfmon_errmsg(pm));
	else
		cli_error(path, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

/* Whether @path is a regular file whose first 8 bytes are not perf's
 * magic (a short or unreadable file is left to the perf.data reader). */
static bool not_perf(const char *path)
{
	uint64_t magic = 0;
	struct stat st;
	int fd;
	bool ret;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < 8)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ret = read(fd, &magic, 8) == 8 && magic != QPT_PERF_MAGIC2 &&
	      magic != QPT_PERF_MAGIC2_SW;
	close(fd);
	return ret;
}

int cli_open_perfmon(const char *path, bool force, struct qpt_perfmon **pm)
{
	int err;

	*pm = NULL;
	if (!not_perf(path))
		return -1;
	if (cli_check_owner(path, force))
		return QPT_EXIT_ERROR;
	err = qpt_perfmon_open(path, pm);
	if (!err)
		return 0;
	if (*pm && qpt_perfmon_errmsg(*pm)[0]) {
		static const char pfx[] = "not a perfmon buffer: ";
		const char *m = qpt_perfmon_errmsg(*pm);

		if (!strncmp(m, pfx, sizeof(pfx) - 1))
			m += sizeof(pfx) - 1;
		cli_error_at(path, qpt_perfmon_errpos(*pm),
			     "not a perf.data file (bad magic) nor a perfmon "
			     "buffer: %s", m);
	} else
		cli_error(path, "%s", qpt_strerror(err));
	qpt_perfmon_free(*pm);
	*pm = NULL;
	return QPT_EXIT_ERROR;
}

static const char *const arch_names[] = { "unknown", "x86_64", "arm64" };

static void header(struct out *w, const struct qpt_perfmon_header *h)
{
	out_begin(w);
	if (w->json) {
		out_kv_cstr(w, "type", "header");
		out_kv_u64(w, "version", h->version);
		out_kv_u64(w, "arch", h->arch);
		out_kv_u64(w, "flags", h->flags);
		out_kv_i64(w, "ticks_per_second", h->ticks_per_second);
		out_kv_hex(w, "capture_end", h->capture_end);
	} else {
		out_lit(w, "perfmon buffer: version ");
		out_dec(w, h->version);
		out_lit(w, " arch ");
		out_cstr(w, h->arch < 3 ? arch_names[h->arch] : "?");
		out_lit(w, " flags 0x");
		out_hex(w, h->flags);
		if (h->flags & QPT_PERFMON_BUFFER_FLAG_FULL)
			out_lit(w, " (full: records were dropped)");
		out_lit(w, " ticks_per_second ");
		out_i64(w, h->ticks_per_second);
		out_lit(w, " capture_end 0x");
		out_hex(w, h->capture_end);
	}
	out_end(w);
}

static void json_branches(struct out *w, const struct qpt_perfmon_record *r)
{
	uint32_t i;

	out_kv_hex(w, "aspace", r->aspace);
	out_array(w, "branches");
	for (i = 0; i < r->num_branches; i++) {
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "from", r->branches[i].from);
		out_kv_hex(w, "to", r->branches[i].to);
		out_kv_hex(w, "info", r->branches[i].info);
		out_end(w);
	}
	out_array_end(w);
}

/* The members of @r after its type (JSON or text key=value). */
static void fields(struct out *w, const struct qpt_perfmon_record *r)
{
	out_kv_u64(w, "reserved_flags", r->reserved_flags);
	out_kv_hex(w, "event", r->event);
	switch (r->type) {
	case QPT_PERFMON_TIME:
		out_kv_i64(w, "time", r->time);
		break;
	case QPT_PERFMON_COUNT:
		out_kv_u64(w, "count", r->value);
		break;
	case QPT_PERFMON_VALUE:
		out_kv_u64(w, "value", r->value);
		break;
	case QPT_PERFMON_PC:
		out_kv_hex(w, "aspace", r->aspace);
		out_kv_hex(w, "pc", r->pc);
		break;
	case QPT_PERFMON_LAST_BRANCH:
		if (w->json) {
			json_branches(w, r);
		} else {
			out_kv_hex(w, "aspace", r->aspace);
			out_kv_u64(w, "branches", r->num_branches);
		}
		break;
	}
}

/* ".....  N: FROM -> TO cycles C[ M]" per branch (text). */
static void text_branches(struct out *w, const struct qpt_perfmon_record *r)
{
	uint32_t i;

	for (i = 0; i < r->num_branches; i++) {
		out_lit(w, ".....");
		out_dec_pad(w, i, 3, ' ');
		out_lit(w, ": ");
		out_hex_pad(w, r->branches[i].from, 16);
		out_lit(w, " -> ");
		out_hex_pad(w, r->branches[i].to, 16);
		out_lit(w, " cycles ");
		out_dec(w, r->branches[i].info & QPT_PERFMON_INFO_CYCLES_MASK);
		if (r->branches[i].info & QPT_PERFMON_INFO_MISPRED)
			out_lit(w, " M");
		if (r->branches[i].info & ~(QPT_PERFMON_INFO_CYCLES_MASK |
					    QPT_PERFMON_INFO_MISPRED)) {
			out_lit(w, " info 0x");
			out_hex(w, r->branches[i].info);
		}
		out_char(w, '\n');
	}
}

int dump_perfmon(struct out *w, struct qpt_perfmon *pm)
{
	struct qpt_perfmon_record r;
	uint64_t pos;
	int err = 0;

	header(w, qpt_perfmon_header(pm));
	while (!w->err && (err = qpt_perfmon_next(pm, &r, &pos)) > 0) {
		size_t size = qpt_perfmon_record_size(&r);

		out_begin(w);
		if (w->json) {
			out_kv_u64(w, "offset", pos);
			out_kv_cstr(w, "type", qpt_perfmon_type_name(r.type));
			out_kv_u64(w, "size", size);
		} else {
			out_lit(w, "0x");
			out_hex(w, pos);
			out_lit(w, " [0x");
			out_hex(w, size);
			out_lit(w, "]: ");
			out_cstr(w, qpt_perfmon_type_name(r.type));
		}
		fields(w, &r);
		out_end(w);
		if (!w->json)
			text_branches(w, &r);
	}
	return w->err ? 0 : err;
}

/* The records of @pm through the perfmon writer again, into @out. */
static int rewrite(const char *in, struct qpt_perfmon *pm, const char *out)
{
	struct qpt_perfmon_writer *w = NULL;
	struct qpt_perfmon_record r;
	int err;

	err = qpt_perfmon_writer_new(qpt_perfmon_header(pm), &w);
	while (!err && (err = qpt_perfmon_next(pm, &r, NULL)) > 0)
		err = qpt_perfmon_writer_add(w, &r);
	if (err < 0 && qpt_perfmon_errmsg(pm)[0]) {
		qpt_perfmon_writer_free(w);
		return cli_perfmon_error(in, pm, err);
	}
	if (!err)
		err = qpt_perfmon_writer_save(w, out);
	qpt_perfmon_writer_free(w);
	if (!err)
		return QPT_EXIT_OK;
	cli_error(out, "%s", qpt_strerror(err));
	return QPT_EXIT_ERROR;
}

int convert_perfmon(const char *in, struct qpt_perfmon *pm, const char *out,
		    bool to_perfmon)
{
	struct qpt_writer *w = NULL;
	uint64_t skipped = 0;
	int err;

	if (to_perfmon)
		return rewrite(in, pm, out);
	err = qpt_writer_open(out, NULL, &w);
	if (err) {
		cli_error(out, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	err = qpt_perfmon_to_perf(pm, w, &skipped);
	if (err < 0 && qpt_perfmon_errmsg(pm)[0]) {
		qpt_writer_free(w);
		return cli_perfmon_error(in, pm, err);
	}
	if (err >= 0)
		err = qpt_writer_close(w);
	qpt_writer_free(w);
	if (err) {
		cli_error(out, "%s", qpt_strerror(err));
		return QPT_EXIT_ERROR;
	}
	if (skipped)
		cli_warn("%s: %llu records besides TIME and LAST_BRANCH have "
			 "no perf.data form", in, (unsigned long long)skipped);
	return QPT_EXIT_OK;
}
