// SPDX-License-Identifier: MIT
/*
 * qpt info: the header and every feature of a perf.data, in the layout of
 * `perf report --header-only -I` (info_text.c) or with --json as one JSON
 * object (info_json.c).  In pipe mode the features arrive in-band, so
 * every record is read first.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/info.h"

const char *const info_sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};
const size_t info_nr_sample_bits =
	sizeof(info_sample_bits) / sizeof(info_sample_bits[0]);

const char *const info_branch_bits[] = {
	"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
	"ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP",
	"CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE",
	"COUNTERS",
};
const size_t info_nr_branch_bits =
	sizeof(info_branch_bits) / sizeof(info_branch_bits[0]);

const char *const info_read_bits[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};
const size_t info_nr_read_bits =
	sizeof(info_read_bits) / sizeof(info_read_bits[0]);

/* The flag bits of the word after read_format, by bit number. */
const char *const info_attr_flags[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user",
	"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm",
	"freq", "inherit_stat", "enable_on_exec", "task", "watermark",
	"precise_ip", NULL /* precise_ip is 2 bits */, "mmap_data",
	"sample_id_all", "exclude_host", "exclude_guest",
	"exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward",
	"namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
	"text_poke", "build_id", "inherit_thread", "remove_on_exec",
	"sigtrap",
};
const size_t info_nr_attr_flags =
	sizeof(info_attr_flags) / sizeof(info_attr_flags[0]);

uint64_t info_attr_flag_word(const struct perf_event_attr *a)
{
	uint64_t flags;

	memcpy(&flags,
	       (const uint8_t *)a + offsetof(struct perf_event_attr,
					     read_format) + 8,
	       8);
	return flags;
}

const char *info_feature_string(const struct qpt_reader *r,
				enum qpt_feature feat)
{
	const char *s = qpt_reader_feature_string(r, feat);

	return s ? s : "";
}

static const char help[] =
	"usage: qpt info [-i FILE] [--json] [-f]\n\n"
	"Print the header and features of a perf.data file.\n\n"
	"  -i, --input FILE  input (default perf.data; - is stdin)\n"
	"      --json        one JSON object\n"
	"  -f, --force       read a file not owned by you or root\n"
	"  -h, --help        this help\n";

/* The input's modification time as ctime() says it, or NULL. */
static const char *captured_on(const char *input, char *buf)
{
	struct stat st;

	if (!strcmp(input, "-") || stat(input, &st) ||
	    !ctime_r(&st.st_mtime, buf))
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static int print(const struct qpt_reader *r, const char *input, bool json)
{
	static char buf[1 << 16];
	char mtime[64];
	struct out w;

	out_init(&w, STDOUT_FILENO, json, buf, sizeof(buf));
	if (json)
		info_json(&w, r);
	else
		info_text(&w, r, captured_on(input, mtime));
	if (out_flush(&w))
		return cli_write_error(w.err);
	return QPT_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	struct cli_input in;
	int err = 0;

	err = cli_parse_input("info", help, argc, argv, &in);
	if (err >= 0)
		return err;
	if (cli_open_input(in.input, in.force, &r))
		return QPT_EXIT_ERROR;
	/* pipe mode: the features are records */
	err = 0;
	while (!err && qpt_reader_is_pipe(r) &&
	       (err = qpt_reader_next(r, &rec)) > 0)
		err = 0;
	if (err < 0) {
		cli_reader_error(in.input, r, err);
		qpt_reader_free(r);
		return QPT_EXIT_ERROR;
	}
	err = print(r, in.input, in.json);
	qpt_reader_free(r);
	return err;
}
