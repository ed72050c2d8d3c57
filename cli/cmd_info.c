// SPDX-License-Identifier: MIT
/*
 * qpt info: the header and every feature of a perf.data in human form, in
 * the layout of `perf report --header-only -I` (one "# name : value" line
 * per item).  In pipe mode the features arrive in-band, so every record is
 * read first.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "qpt/reader.h"

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const read_bits[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

/* The flag bits of the word after read_format, by bit number. */
static const char *const attr_flags[] = {
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

static void print_bits(const char *const *names, size_t n, uint64_t v)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < n; i++)
		if (v & (1ull << i)) {
			printf("%s%s", sep, names[i]);
			sep = "|";
		}
	if (v >> n)
		printf("%s0x%" PRIx64, sep, v >> n << n);
}

static void print_attr(const char *name, const struct perf_event_attr *a,
		       const uint64_t *ids, uint32_t nr_ids)
{
	uint64_t flags;
	uint32_t i;

	printf("# event : name = %s, ", name ? name : "");
	if (nr_ids) {
		printf(", id = {");
		for (i = 0; i < nr_ids; i++)
			printf("%s %" PRIu64, i ? "," : "", ids[i]);
		printf(" }");
	}
	if (a->type)
		printf(", type = %u", a->type);
	printf(", size = %u", a->size);
	if (a->config)
		printf(", config = 0x%llx", (unsigned long long)a->config);
	if (a->sample_period)
		printf(", { sample_period, sample_freq } = %llu",
		       (unsigned long long)a->sample_period);
	if (a->sample_type) {
		printf(", sample_type = ");
		print_bits(sample_bits, sizeof(sample_bits) / sizeof(*sample_bits),
			   a->sample_type);
	}
	if (a->read_format) {
		printf(", read_format = ");
		print_bits(read_bits, sizeof(read_bits) / sizeof(*read_bits),
			   a->read_format);
	}
	memcpy(&flags, (const uint8_t *)a + offsetof(struct perf_event_attr,
						      read_format) + 8, 8);
	for (i = 0; i < sizeof(attr_flags) / sizeof(*attr_flags); i++) {
		if (!attr_flags[i])
			continue;
		if (i == 15 && a->precise_ip)
			printf(", precise_ip = %u", a->precise_ip);
		else if (i != 15 && (flags >> i & 1))
			printf(", %s = 1", attr_flags[i]);
	}
	if (a->wakeup_events)
		printf(", { wakeup_events, wakeup_watermark } = %u",
		       a->wakeup_events);
	if (a->bp_type)
		printf(", bp_type = %u", a->bp_type);
	if (a->config1)
		printf(", { bp_addr, config1 } = 0x%llx",
		       (unsigned long long)a->config1);
	if (a->config2)
		printf(", { bp_len, config2 } = 0x%llx",
		       (unsigned long long)a->config2);
	if (a->branch_sample_type)
		printf(", branch_sample_type = 0x%llx",
		       (unsigned long long)a->branch_sample_type);
	if (a->sample_regs_user)
		printf(", sample_regs_user = 0x%llx",
		       (unsigned long long)a->sample_regs_user);
	if (a->sample_stack_user)
		printf(", sample_stack_user = %u", a->sample_stack_user);
	if (a->clockid)
		printf(", clockid = %d", a->clockid);
	if (a->sample_regs_intr)
		printf(", sample_regs_intr = 0x%llx",
		       (unsigned long long)a->sample_regs_intr);
	if (a->aux_watermark)
		printf(", aux_watermark = %u", a->aux_watermark);
	if (a->sample_max_stack)
		printf(", sample_max_stack = %u", a->sample_max_stack);
	if (a->aux_sample_size)
		printf(", aux_sample_size = %u", a->aux_sample_size);
	if (a->sig_data)
		printf(", sig_data = %llu", (unsigned long long)a->sig_data);
	printf("\n");
}

static void print_events(const struct qpt_reader *r,
			 const struct qpt_features *f)
{
	size_t i;

	if (f->nr_event_desc) {
		for (i = 0; i < f->nr_event_desc; i++)
			print_attr(f->event_desc[i].name, &f->event_desc[i].attr,
				   f->event_desc[i].ids,
				   f->event_desc[i].nr_ids);
		return;
	}
	for (i = 0; i < qpt_reader_nr_attrs(r); i++) {
		const struct qpt_attr *a = qpt_reader_attr(r, i);

		print_attr(a->name, &a->attr, a->ids, a->nr_ids);
	}
}

static void print_topology(const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_sibling_cores; i++)
		printf("# sibling sockets : %s\n", f->sibling_cores[i]);
	for (i = 0; i < f->nr_sibling_dies; i++)
		printf("# sibling dies    : %s\n", f->sibling_dies[i]);
	for (i = 0; i < f->nr_sibling_threads; i++)
		printf("# sibling threads : %s\n", f->sibling_threads[i]);
	for (i = 0; i < f->nr_topology_cpus; i++) {
		const struct qpt_cpu_topology_cpu *c = &f->topology_cpus[i];

		if (f->has_die_id)
			printf("# CPU %zu: Core ID %u, Die ID %u, Socket ID %u\n",
			       i, c->core_id, c->die_id, c->socket_id);
		else
			printf("# CPU %zu: Core ID %u, Socket ID %u\n", i,
			       c->core_id, c->socket_id);
	}
}

static void print_numa(const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_numa_nodes; i++) {
		const struct qpt_numa_node *n = &f->numa_nodes[i];

		printf("# node%u meminfo  : total = %" PRIu64
		       " kB, free = %" PRIu64 " kB\n",
		       n->node, n->mem_total, n->mem_free);
		printf("# node%u cpu list : %s\n", n->node, n->cpus);
	}
}

static void print_list(const char *title, size_t n,
		       const struct qpt_pmu_mapping *m)
{
	size_t i;

	printf("# %s: ", title);
	for (i = 0; i < n; i++)
		printf("%s%s = %u", i ? ", " : "", m[i].name, m[i].type);
	printf("\n");
}

static void print_time(const char *what, uint64_t ns)
{
	printf("# %s : %" PRIu64 ".%06" PRIu64 "\n", what, ns / 1000000000,
	       ns % 1000000000 / 1000);
}

/* Present features qpt keeps only as raw bytes. */
static void print_other_features(const struct qpt_reader *r)
{
	static const enum qpt_feature raw[] = {
		QPT_FEAT_TRACING_DATA, QPT_FEAT_MEM_TOPOLOGY,
		QPT_FEAT_DIR_FORMAT,   QPT_FEAT_BPF_PROG_INFO,
		QPT_FEAT_BPF_BTF,      QPT_FEAT_PMU_CAPS,
	};
	const void *data;
	size_t i, size;

	if (qpt_reader_has_feature(r, QPT_FEAT_BRANCH_STACK))
		printf("# contains samples with branch stack\n");
	if (qpt_reader_has_feature(r, QPT_FEAT_STAT))
		printf("# contains stat data\n");
	for (i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		if (!qpt_reader_feature_raw(r, raw[i], &data, &size))
			printf("# %s: %zu bytes (not decoded)\n",
			       qpt_feature_name(raw[i]), size);
}

/* The host: perf's header lines from hostname to cmdline, in its order. */
static void print_host(const struct qpt_reader *r, const struct qpt_features *f)
{
	static const struct {
		enum qpt_feature feat;
		const char *label;
	} strs[] = {
		{QPT_FEAT_HOSTNAME, "hostname"},
		{QPT_FEAT_OSRELEASE, "os release"},
		{QPT_FEAT_VERSION, "perf version"},
		{QPT_FEAT_ARCH, "arch"},
	};
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (qpt_reader_has_feature(r, strs[i].feat))
			printf("# %s : %s\n", strs[i].label,
			       qpt_reader_feature_string(r, strs[i].feat));
	if (qpt_reader_has_feature(r, QPT_FEAT_NRCPUS))
		printf("# nrcpus online : %u\n# nrcpus avail : %u\n",
		       f->nr_cpus_online, f->nr_cpus_avail);
	if (qpt_reader_has_feature(r, QPT_FEAT_CPUDESC))
		printf("# cpudesc : %s\n",
		       qpt_reader_feature_string(r, QPT_FEAT_CPUDESC));
	if (qpt_reader_has_feature(r, QPT_FEAT_CPUID))
		printf("# cpuid : %s\n",
		       qpt_reader_feature_string(r, QPT_FEAT_CPUID));
	if (qpt_reader_has_feature(r, QPT_FEAT_TOTAL_MEM))
		printf("# total memory : %" PRIu64 " kB\n", f->total_mem);
	if (qpt_reader_has_feature(r, QPT_FEAT_CMDLINE)) {
		printf("# cmdline : ");
		for (i = 0; i < f->nr_cmdline; i++)
			printf("%s ", f->cmdline[i]);
		printf("\n");
	}
}

static void print_auxtrace_index(const struct qpt_reader *r)
{
	const struct qpt_auxtrace_index_entry *e;
	size_t i, n = qpt_reader_auxtrace_index(r, &e);

	printf("# contains AUX area data (e.g. instruction trace)\n");
	for (i = 0; i < n; i++)
		printf("# auxtrace index %zu: offset 0x%" PRIx64
		       ", size 0x%" PRIx64 "\n",
		       i, e[i].file_offset, e[i].sz);
}

/* Sample times, clocks and compression. */
static void print_clocks(const struct qpt_reader *r,
			 const struct qpt_features *f)
{
	if (qpt_reader_has_feature(r, QPT_FEAT_SAMPLE_TIME)) {
		print_time("time of first sample", f->sample_time_first);
		print_time("time of last sample", f->sample_time_last);
		printf("# sample duration : %10.3f ms\n",
		       (double)(f->sample_time_last - f->sample_time_first) /
			       1e6);
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_CLOCKID))
		printf("# clockid frequency: %" PRIu64 " MHz\n",
		       f->clockid ? 1000 / f->clockid : 0);
	if (qpt_reader_has_feature(r, QPT_FEAT_CLOCK_DATA))
		printf("# clockid: %u\n# reference time: %" PRIu64
		       " ns\n# clockid time: %" PRIu64 " ns\n",
		       f->clock_data.clockid, f->clock_data.wall_clock_ns,
		       f->clock_data.clk_id_ns);
	if (qpt_reader_has_feature(r, QPT_FEAT_COMPRESSED))
		printf("# compressed : %s, level = %u, ratio = %u\n",
		       f->compressed.type == 1 ? "Zstd" : "Unknown",
		       f->compressed.level, f->compressed.ratio);
}

static void print_build_ids(const struct qpt_features *f)
{
	size_t i, j;

	for (i = 0; i < f->nr_build_ids; i++) {
		printf("# build id: ");
		for (j = 0; j < f->build_ids[i].size; j++)
			printf("%02x", f->build_ids[i].id[j]);
		printf(" %s\n", f->build_ids[i].filename);
	}
}

static void print_features(const struct qpt_reader *r)
{
	const struct qpt_features *f = qpt_reader_features(r);
	size_t i;

	print_host(r, f);
	print_events(r, f);
	if (qpt_reader_has_feature(r, QPT_FEAT_CPU_TOPOLOGY))
		print_topology(f);
	if (qpt_reader_has_feature(r, QPT_FEAT_NUMA_TOPOLOGY))
		print_numa(f);
	if (qpt_reader_has_feature(r, QPT_FEAT_PMU_MAPPINGS))
		print_list("pmu mappings", f->nr_pmu_mappings, f->pmu_mappings);
	for (i = 0; i < f->nr_groups; i++)
		printf("# group: %s{leader %u, %u members}\n",
		       f->groups[i].name, f->groups[i].leader_idx,
		       f->groups[i].nr_members);
	if (qpt_reader_has_feature(r, QPT_FEAT_AUXTRACE))
		print_auxtrace_index(r);
	if (f->nr_caches) {
		printf("# CPU cache info:\n");
		for (i = 0; i < f->nr_caches; i++)
			printf("#  L%-1u %-15s %8s [%s]\n", f->caches[i].level,
			       f->caches[i].type, f->caches[i].size,
			       f->caches[i].map);
	}
	print_clocks(r, f);
	for (i = 0; i < f->nr_cpu_pmu_caps; i++)
		printf("# cpu pmu capabilities: %s=%s\n",
		       f->cpu_pmu_caps[i].name, f->cpu_pmu_caps[i].value);
	for (i = 0; i < f->nr_hybrid_nodes; i++)
		printf("# %s cpu list : %s\n", f->hybrid_nodes[i].pmu_name,
		       f->hybrid_nodes[i].cpus);
	print_other_features(r);
	print_build_ids(f);
}

static void print_header(const struct qpt_reader *r, const char *input)
{
	const struct qpt_file_header *h = qpt_reader_file_header(r);
	struct stat st;
	char buf[64];
	unsigned i, nfeat = 0;
	const char *sep = "";

	printf("# ========\n");
	if (strcmp(input, "-") && !stat(input, &st) &&
	    ctime_r(&st.st_mtime, buf)) {
		buf[strcspn(buf, "\n")] = 0;
		printf("# captured on    : %s\n", buf);
	}
	printf("# header version : 1\n");
	printf("# data offset    : %" PRIu64 "\n", h ? h->data.offset : 0);
	printf("# data size      : %" PRIu64 "\n", h ? h->data.size : 0);
	printf("# feat offset    : %" PRIu64 "\n",
	       h ? h->data.offset + h->data.size : 0);
	if (qpt_reader_is_swapped(r))
		printf("# byte order     : swapped (foreign endian)\n");
	if (qpt_reader_is_pipe(r))
		printf("# pipe mode\n");
	print_features(r);
	printf("# missing features: ");
	for (i = QPT_FEAT_TRACING_DATA; i < QPT_FEAT_LAST; i++)
		if (!qpt_reader_has_feature(r, (enum qpt_feature)i)) {
			printf("%s%s", sep, qpt_feature_name((enum qpt_feature)i));
			sep = " ";
			nfeat++;
		}
	printf(" \n# ========\n#\n");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: qpt info [-i FILE]\n\n"
		   "Print the header and features of a perf.data file.\n\n"
		   "  -i, --input FILE  input (default perf.data; - is stdin)\n"
		   "  -f, --force       read a file not owned by you or root\n"
		   "  -h, --help        this help\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *input = "perf.data";
	struct qpt_reader *r = NULL;
	struct qpt_record rec;
	bool force = false;
	int c, err = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return QPT_EXIT_OK;
		default:
			return cli_bad_option("info");
		}
	}
	if (optind < argc)
		return cli_usage_error("info", "unexpected argument '%s'",
				       argv[optind]);
	if (cli_open_input(input, force, &r))
		return QPT_EXIT_ERROR;
	/* pipe mode: the features are records */
	while (!err && qpt_reader_is_pipe(r) &&
	       (err = qpt_reader_next(r, &rec)) > 0)
		err = 0;
	if (err < 0) {
		cli_reader_error(input, r, err);
		qpt_reader_free(r);
		return QPT_EXIT_ERROR;
	}
	print_header(r, input);
	qpt_reader_free(r);
	return QPT_EXIT_OK;
}
