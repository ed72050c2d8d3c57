// SPDX-License-Identifier: MIT
/*
 * qpt info's text: the header and every feature of a perf.data in the
 * layout of `perf report --header-only -I` (one "# name : value" line per
 * item; tests/shell/info_header.sh holds the key lines to perf's).
 */
#include <string.h>

#include "cli/info.h"

/* "# LABEL : " */
static void label(struct out *w, const char *name)
{
	out_lit(w, "# ");
	out_cstr(w, name);
	out_lit(w, " : ");
}

static void line_str(struct out *w, const char *name, const char *s)
{
	label(w, name);
	out_esc(w, s, strlen(s));
	out_char(w, '\n');
}

static void line_u64(struct out *w, const char *name, uint64_t v)
{
	label(w, name);
	out_dec(w, v);
	out_char(w, '\n');
}

/* ", NAME = V" and ", NAME = 0xV" of an attr */
static void attr_u64(struct out *w, const char *name, uint64_t v)
{
	out_lit(w, ", ");
	out_cstr(w, name);
	out_lit(w, " = ");
	out_dec(w, v);
}

static void attr_x64(struct out *w, const char *name, uint64_t v)
{
	out_lit(w, ", ");
	out_cstr(w, name);
	out_lit(w, " = 0x");
	out_hex(w, v);
}

/* NAME|NAME|0xREST */
void info_bits(struct out *w, const char *const *names, size_t n, uint64_t v)
{
	bool sep = false;
	size_t i;

	for (i = 0; i < n; i++)
		if (v & (1ull << i)) {
			if (sep)
				out_char(w, '|');
			out_cstr(w, names[i]);
			sep = true;
		}
	if (v >> n) {
		if (sep)
			out_char(w, '|');
		out_lit(w, "0x");
		out_hex(w, v >> n << n);
	}
}

/* ", id = { 1, 2 }, type = ..., size = ..., sample_type = ..." */
static void attr_head(struct out *w, const struct perf_event_attr *a,
		      const uint64_t *ids, uint32_t nr_ids)
{
	uint32_t i;

	if (nr_ids) {
		out_lit(w, ", id = {");
		for (i = 0; i < nr_ids; i++) {
			if (i)
				out_char(w, ',');
			out_char(w, ' ');
			out_dec(w, ids[i]);
		}
		out_lit(w, " }");
	}
	if (a->type)
		attr_u64(w, "type", a->type);
	attr_u64(w, "size", a->size);
	if (a->config)
		attr_x64(w, "config", a->config);
	if (a->sample_period)
		attr_u64(w, "{ sample_period, sample_freq }", a->sample_period);
	if (a->sample_type) {
		out_lit(w, ", sample_type = ");
		info_bits(w, info_sample_bits, info_nr_sample_bits, a->sample_type);
	}
	if (a->read_format) {
		out_lit(w, ", read_format = ");
		info_bits(w, info_read_bits, info_nr_read_bits, a->read_format);
	}
}

/* The flags that are set, ", NAME = 1" (precise_ip its value). */
static void attr_flags(struct out *w, const struct perf_event_attr *a)
{
	uint64_t flags = info_attr_flag_word(a);
	size_t i;

	for (i = 0; i < info_nr_attr_flags; i++) {
		if (!info_attr_flags[i])
			continue;
		if (i == INFO_PRECISE_IP_BIT && a->precise_ip)
			attr_u64(w, "precise_ip", a->precise_ip);
		else if (i != INFO_PRECISE_IP_BIT && (flags >> i & 1))
			attr_u64(w, info_attr_flags[i], 1);
	}
}

static void attr_tail(struct out *w, const struct perf_event_attr *a)
{
	if (a->wakeup_events)
		attr_u64(w, "{ wakeup_events, wakeup_watermark }",
			 a->wakeup_events);
	if (a->bp_type)
		attr_u64(w, "bp_type", a->bp_type);
	if (a->config1)
		attr_x64(w, "{ bp_addr, config1 }", a->config1);
	if (a->config2)
		attr_x64(w, "{ bp_len, config2 }", a->config2);
	if (a->branch_sample_type) {
		out_lit(w, ", branch_sample_type = ");
		info_bits(w, info_branch_bits, info_nr_branch_bits,
			  a->branch_sample_type);
	}
	if (a->sample_regs_user)
		attr_x64(w, "sample_regs_user", a->sample_regs_user);
	if (a->sample_stack_user)
		attr_u64(w, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		out_lit(w, ", clockid = ");
		out_i64(w, a->clockid);
	}
	if (a->sample_regs_intr)
		attr_x64(w, "sample_regs_intr", a->sample_regs_intr);
	if (a->aux_watermark)
		attr_u64(w, "aux_watermark", a->aux_watermark);
	if (a->sample_max_stack)
		attr_u64(w, "sample_max_stack", a->sample_max_stack);
	if (a->aux_sample_size)
		attr_u64(w, "aux_sample_size", a->aux_sample_size);
	if (a->sig_data)
		attr_u64(w, "sig_data", a->sig_data);
}

static void attr(struct out *w, const char *name,
		 const struct perf_event_attr *a, const uint64_t *ids,
		 uint32_t nr_ids)
{
	out_lit(w, "# event : name = ");
	if (name)
		out_esc(w, name, strlen(name));
	out_lit(w, ", ");
	attr_head(w, a, ids, nr_ids);
	attr_flags(w, a);
	attr_tail(w, a);
	out_char(w, '\n');
}

static void events(struct out *w, const struct qpt_reader *r,
		   const struct qpt_features *f)
{
	size_t i;

	if (f->nr_event_desc) {
		for (i = 0; i < f->nr_event_desc; i++)
			attr(w, f->event_desc[i].name, &f->event_desc[i].attr,
			     f->event_desc[i].ids, f->event_desc[i].nr_ids);
		return;
	}
	for (i = 0; i < qpt_reader_nr_attrs(r); i++) {
		const struct qpt_attr *a = qpt_reader_attr(r, i);

		attr(w, a->name, &a->attr, a->ids, a->nr_ids);
	}
}

static void topology(struct out *w, const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_sibling_cores; i++)
		line_str(w, "sibling sockets", f->sibling_cores[i]);
	for (i = 0; i < f->nr_sibling_dies; i++)
		line_str(w, "sibling dies   ", f->sibling_dies[i]);
	for (i = 0; i < f->nr_sibling_threads; i++)
		line_str(w, "sibling threads", f->sibling_threads[i]);
	for (i = 0; i < f->nr_topology_cpus; i++) {
		const struct qpt_cpu_topology_cpu *c = &f->topology_cpus[i];

		out_lit(w, "# CPU ");
		out_dec(w, i);
		out_lit(w, ": Core ID ");
		out_dec(w, c->core_id);
		if (f->has_die_id) {
			out_lit(w, ", Die ID ");
			out_dec(w, c->die_id);
		}
		out_lit(w, ", Socket ID ");
		out_dec(w, c->socket_id);
		out_char(w, '\n');
	}
}

static void numa(struct out *w, const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_numa_nodes; i++) {
		const struct qpt_numa_node *n = &f->numa_nodes[i];

		out_lit(w, "# node");
		out_dec(w, n->node);
		out_lit(w, " meminfo  : total = ");
		out_dec(w, n->mem_total);
		out_lit(w, " kB, free = ");
		out_dec(w, n->mem_free);
		out_lit(w, " kB\n# node");
		out_dec(w, n->node);
		out_lit(w, " cpu list : ");
		out_esc(w, n->cpus, strlen(n->cpus));
		out_char(w, '\n');
	}
}

static void pmu_mappings(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_lit(w, "# pmu mappings: ");
	for (i = 0; i < f->nr_pmu_mappings; i++) {
		if (i)
			out_lit(w, ", ");
		out_esc(w, f->pmu_mappings[i].name,
			strlen(f->pmu_mappings[i].name));
		out_lit(w, " = ");
		out_dec(w, f->pmu_mappings[i].type);
	}
	out_char(w, '\n');
}

static void time_line(struct out *w, const char *what, uint64_t ns)
{
	label(w, what);
	out_dec(w, ns / 1000000000);
	out_char(w, '.');
	out_dec_pad(w, ns % 1000000000 / 1000, 6, '0');
	out_char(w, '\n');
}

/* Present features qpt keeps only as raw bytes. */
static void other_features(struct out *w, const struct qpt_reader *r)
{
	static const enum qpt_feature raw[] = {
	    QPT_FEAT_TRACING_DATA,  QPT_FEAT_MEM_TOPOLOGY, QPT_FEAT_DIR_FORMAT,
	    QPT_FEAT_BPF_PROG_INFO, QPT_FEAT_BPF_BTF,	   QPT_FEAT_PMU_CAPS,
	};
	const void *data;
	size_t i, size;

	if (qpt_reader_has_feature(r, QPT_FEAT_BRANCH_STACK))
		out_lit(w, "# contains samples with branch stack\n");
	if (qpt_reader_has_feature(r, QPT_FEAT_STAT))
		out_lit(w, "# contains stat data\n");
	for (i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		if (qpt_reader_feature_raw(r, raw[i], &data, &size))
			continue;
		out_lit(w, "# ");
		out_cstr(w, qpt_feature_name(raw[i]));
		out_lit(w, ": ");
		out_dec(w, size);
		out_lit(w, " bytes (not decoded)\n");
	}
}

/* The host: perf's header lines from hostname to cmdline, in its order. */
static void host(struct out *w, const struct qpt_reader *r,
		 const struct qpt_features *f)
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
			line_str(w, strs[i].label,
				 info_feature_string(r, strs[i].feat));
	if (qpt_reader_has_feature(r, QPT_FEAT_NRCPUS)) {
		line_u64(w, "nrcpus online", f->nr_cpus_online);
		line_u64(w, "nrcpus avail", f->nr_cpus_avail);
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_CPUDESC))
		line_str(w, "cpudesc",
			 info_feature_string(r, QPT_FEAT_CPUDESC));
	if (qpt_reader_has_feature(r, QPT_FEAT_CPUID))
		line_str(w, "cpuid", info_feature_string(r, QPT_FEAT_CPUID));
	if (qpt_reader_has_feature(r, QPT_FEAT_TOTAL_MEM)) {
		label(w, "total memory");
		out_dec(w, f->total_mem);
		out_lit(w, " kB\n");
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_CMDLINE)) {
		label(w, "cmdline");
		for (i = 0; i < f->nr_cmdline; i++) {
			out_esc(w, f->cmdline[i], strlen(f->cmdline[i]));
			out_char(w, ' ');
		}
		out_char(w, '\n');
	}
}

static void auxtrace_index(struct out *w, const struct qpt_reader *r)
{
	const struct qpt_auxtrace_index_entry *e;
	size_t i, n = qpt_reader_auxtrace_index(r, &e);

	out_lit(w, "# contains AUX area data (e.g. instruction trace)\n");
	for (i = 0; i < n; i++) {
		out_lit(w, "# auxtrace index ");
		out_dec(w, i);
		out_lit(w, ": offset 0x");
		out_hex(w, e[i].file_offset);
		out_lit(w, ", size 0x");
		out_hex(w, e[i].sz);
		out_char(w, '\n');
	}
}

/* Sample times, clocks and compression. */
static void clocks(struct out *w, const struct qpt_reader *r,
		   const struct qpt_features *f)
{
	if (qpt_reader_has_feature(r, QPT_FEAT_SAMPLE_TIME)) {
		time_line(w, "time of first sample", f->sample_time_first);
		time_line(w, "time of last sample", f->sample_time_last);
		label(w, "sample duration");
		out_fixed(w,
			  (double)(f->sample_time_last - f->sample_time_first) /
			      1e6,
			  10, 3);
		out_lit(w, " ms\n");
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_CLOCKID)) {
		out_lit(w, "# clockid frequency: ");
		out_dec(w, f->clockid ? 1000 / f->clockid : 0);
		out_lit(w, " MHz\n");
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_CLOCK_DATA)) {
		out_lit(w, "# clockid: ");
		out_dec(w, f->clock_data.clockid);
		out_lit(w, "\n# reference time: ");
		out_dec(w, f->clock_data.wall_clock_ns);
		out_lit(w, " ns\n# clockid time: ");
		out_dec(w, f->clock_data.clk_id_ns);
		out_lit(w, " ns\n");
	}
	if (qpt_reader_has_feature(r, QPT_FEAT_COMPRESSED)) {
		label(w, "compressed");
		if (f->compressed.type == 1)
			out_lit(w, "Zstd");
		else
			out_lit(w, "Unknown");
		out_lit(w, ", level = ");
		out_dec(w, f->compressed.level);
		out_lit(w, ", ratio = ");
		out_dec(w, f->compressed.ratio);
		out_char(w, '\n');
	}
}

static void build_ids(struct out *w, const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_build_ids; i++) {
		out_lit(w, "# build id: ");
		out_hexbytes(w, f->build_ids[i].id, f->build_ids[i].size);
		out_char(w, ' ');
		out_esc(w, f->build_ids[i].filename,
			strlen(f->build_ids[i].filename));
		out_char(w, '\n');
	}
}

static void groups(struct out *w, const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_groups; i++) {
		out_lit(w, "# group: ");
		out_esc(w, f->groups[i].name, strlen(f->groups[i].name));
		out_lit(w, "{leader ");
		out_dec(w, f->groups[i].leader_idx);
		out_lit(w, ", ");
		out_dec(w, f->groups[i].nr_members);
		out_lit(w, " members}\n");
	}
}

static void caches(struct out *w, const struct qpt_features *f)
{
	size_t i;

	if (f->nr_caches)
		out_lit(w, "# CPU cache info:\n");
	for (i = 0; i < f->nr_caches; i++) {
		const struct qpt_cache_level *c = &f->caches[i];

		out_lit(w, "#  L");
		out_dec(w, c->level);
		out_char(w, ' ');
		out_pad(w, c->type, strlen(c->type), -15);
		out_char(w, ' ');
		out_pad(w, c->size, strlen(c->size), 8);
		out_lit(w, " [");
		out_esc(w, c->map, strlen(c->map));
		out_lit(w, "]\n");
	}
}

/* CPU_PMU_CAPS and HYBRID_TOPOLOGY */
static void pmus(struct out *w, const struct qpt_features *f)
{
	size_t i;

	for (i = 0; i < f->nr_cpu_pmu_caps; i++) {
		out_lit(w, "# cpu pmu capabilities: ");
		out_esc(w, f->cpu_pmu_caps[i].name,
			strlen(f->cpu_pmu_caps[i].name));
		out_char(w, '=');
		out_esc(w, f->cpu_pmu_caps[i].value,
			strlen(f->cpu_pmu_caps[i].value));
		out_char(w, '\n');
	}
	for (i = 0; i < f->nr_hybrid_nodes; i++) {
		out_lit(w, "# ");
		out_esc(w, f->hybrid_nodes[i].pmu_name,
			strlen(f->hybrid_nodes[i].pmu_name));
		out_lit(w, " cpu list : ");
		out_esc(w, f->hybrid_nodes[i].cpus,
			strlen(f->hybrid_nodes[i].cpus));
		out_char(w, '\n');
	}
}

static void features(struct out *w, const struct qpt_reader *r)
{
	const struct qpt_features *f = qpt_reader_features(r);

	host(w, r, f);
	events(w, r, f);
	if (qpt_reader_has_feature(r, QPT_FEAT_CPU_TOPOLOGY))
		topology(w, f);
	if (qpt_reader_has_feature(r, QPT_FEAT_NUMA_TOPOLOGY))
		numa(w, f);
	if (qpt_reader_has_feature(r, QPT_FEAT_PMU_MAPPINGS))
		pmu_mappings(w, f);
	groups(w, f);
	if (qpt_reader_has_feature(r, QPT_FEAT_AUXTRACE))
		auxtrace_index(w, r);
	caches(w, f);
	clocks(w, r, f);
	pmus(w, f);
	other_features(w, r);
	build_ids(w, f);
}

void info_text(struct out *w, const struct qpt_reader *r, const char *mtime)
{
	const struct qpt_file_header *h = qpt_reader_file_header(r);
	bool sep = false;
	unsigned i;

	out_lit(w, "# ========\n");
	if (mtime)
		line_str(w, "captured on   ", mtime);
	out_lit(w, "# header version : 1\n");
	line_u64(w, "data offset   ", h ? h->data.offset : 0);
	line_u64(w, "data size     ", h ? h->data.size : 0);
	line_u64(w, "feat offset   ", h ? h->data.offset + h->data.size : 0);
	if (qpt_reader_is_swapped(r))
		out_lit(w, "# byte order     : swapped (foreign endian)\n");
	if (qpt_reader_is_pipe(r))
		out_lit(w, "# pipe mode\n");
	features(w, r);
	out_lit(w, "# missing features: ");
	for (i = QPT_FEAT_TRACING_DATA; i < QPT_FEAT_LAST; i++)
		if (!qpt_reader_has_feature(r, (enum qpt_feature)i)) {
			if (sep)
				out_char(w, ' ');
			out_cstr(w, qpt_feature_name((enum qpt_feature)i));
			sep = true;
		}
	out_lit(w, " \n# ========\n#\n");
}
