// SPDX-License-Identifier: MIT
/*
 * qpt info --json: the header and the features of a perf.data as one JSON
 * object on one line.  A feature's members are there when the file has
 * the feature; "features" lists the present ones, "missing_features" the
 * others (perf's names).  Addresses, masks and configs are "0x..."
 * strings, other integers numbers.
 */
#include <string.h>

#include "cli/info.h"

/* A string member; an absent string is "". */
static void kv_str(struct out *w, const char *key, const char *s)
{
	out_kv_cstr(w, key, s ? s : "");
}

/* "key":["s",...] */
static void str_array(struct out *w, const char *key, const char **s, size_t n)
{
	size_t i;

	out_array(w, key);
	for (i = 0; i < n; i++) {
		out_elem(w);
		out_val_str(w, s[i], strlen(s[i]));
	}
	out_array_end(w);
}

static bool has(const struct qpt_reader *r, enum qpt_feature feat)
{
	return qpt_reader_has_feature(r, feat);
}

static void file_header(struct out *w, const struct qpt_reader *r)
{
	const struct qpt_file_header *h = qpt_reader_file_header(r);

	out_kv_u64(w, "data_offset", h ? h->data.offset : 0);
	out_kv_u64(w, "data_size", h ? h->data.size : 0);
	out_kv_bool(w, "pipe", qpt_reader_is_pipe(r));
	out_kv_bool(w, "swapped", qpt_reader_is_swapped(r));
}

static void host(struct out *w, const struct qpt_reader *r,
		 const struct qpt_features *f)
{
	static const struct {
		enum qpt_feature feat;
		const char *key;
	} strs[] = {
	    {QPT_FEAT_HOSTNAME, "hostname"},
	    {QPT_FEAT_OSRELEASE, "os_release"},
	    {QPT_FEAT_VERSION, "perf_version"},
	    {QPT_FEAT_ARCH, "arch"},
	    {QPT_FEAT_CPUDESC, "cpudesc"},
	    {QPT_FEAT_CPUID, "cpuid"},
	};
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (has(r, strs[i].feat))
			kv_str(w, strs[i].key,
			       info_feature_string(r, strs[i].feat));
	if (has(r, QPT_FEAT_NRCPUS)) {
		out_kv_u64(w, "nrcpus_online", f->nr_cpus_online);
		out_kv_u64(w, "nrcpus_avail", f->nr_cpus_avail);
	}
	if (has(r, QPT_FEAT_TOTAL_MEM))
		out_kv_u64(w, "total_memory_kb", f->total_mem);
	if (has(r, QPT_FEAT_CMDLINE))
		str_array(w, "cmdline", f->cmdline, f->nr_cmdline);
}

/* The names of the flags that are set. */
static void attr_flags(struct out *w, const struct perf_event_attr *a)
{
	uint64_t flags = info_attr_flag_word(a);
	size_t i;

	out_array(w, "flags");
	for (i = 0; i < info_nr_attr_flags; i++) {
		if (!info_attr_flags[i] || i == INFO_PRECISE_IP_BIT ||
		    !(flags >> i & 1))
			continue;
		out_elem(w);
		out_val_str(w, info_attr_flags[i], strlen(info_attr_flags[i]));
	}
	out_array_end(w);
	out_kv_u64(w, "precise_ip", a->precise_ip);
}

static void attr_fields(struct out *w, const struct perf_event_attr *a)
{
	out_kv_u64(w, "type", a->type);
	out_kv_u64(w, "size", a->size);
	out_kv_hex(w, "config", a->config);
	out_kv_u64(w, "sample_period", a->sample_period);
	out_kv_hex(w, "sample_type", a->sample_type);
	out_kv_hex(w, "read_format", a->read_format);
	attr_flags(w, a);
	out_kv_u64(w, "wakeup_events", a->wakeup_events);
	out_kv_u64(w, "bp_type", a->bp_type);
	out_kv_hex(w, "config1", a->config1);
	out_kv_hex(w, "config2", a->config2);
	/* by name, as perf's header prints it ("" for none) */
	out_key(w, "branch_sample_type");
	out_char(w, '"');
	if (a->branch_sample_type)
		info_bits(w, info_branch_bits, info_nr_branch_bits,
			  a->branch_sample_type);
	out_char(w, '"');
	out_kv_hex(w, "sample_regs_user", a->sample_regs_user);
	out_kv_u64(w, "sample_stack_user", a->sample_stack_user);
	out_kv_i64(w, "clockid", a->clockid);
	out_kv_hex(w, "sample_regs_intr", a->sample_regs_intr);
	out_kv_u64(w, "aux_watermark", a->aux_watermark);
	out_kv_u64(w, "sample_max_stack", a->sample_max_stack);
	out_kv_u64(w, "aux_sample_size", a->aux_sample_size);
	out_kv_u64(w, "sig_data", a->sig_data);
}

static void event(struct out *w, const char *name,
		  const struct perf_event_attr *a, const uint64_t *ids,
		  uint32_t nr_ids)
{
	uint32_t i;

	out_elem(w);
	out_begin(w);
	kv_str(w, "name", name);
	out_array(w, "ids");
	for (i = 0; i < nr_ids; i++) {
		out_elem(w);
		out_val_u64(w, ids[i]);
	}
	out_array_end(w);
	attr_fields(w, a);
	out_end(w);
}

static void events(struct out *w, const struct qpt_reader *r,
		   const struct qpt_features *f)
{
	size_t i;

	out_array(w, "events");
	for (i = 0; i < f->nr_event_desc; i++)
		event(w, f->event_desc[i].name, &f->event_desc[i].attr,
		      f->event_desc[i].ids, f->event_desc[i].nr_ids);
	for (i = 0; !f->nr_event_desc && i < qpt_reader_nr_attrs(r); i++) {
		const struct qpt_attr *a = qpt_reader_attr(r, i);

		event(w, a->name, &a->attr, a->ids, a->nr_ids);
	}
	out_array_end(w);
}

static void topology(struct out *w, const struct qpt_features *f)
{
	size_t i;

	str_array(w, "sibling_sockets", f->sibling_cores, f->nr_sibling_cores);
	str_array(w, "sibling_dies", f->sibling_dies, f->nr_sibling_dies);
	str_array(w, "sibling_threads", f->sibling_threads,
		  f->nr_sibling_threads);
	out_array(w, "cpus");
	for (i = 0; i < f->nr_topology_cpus; i++) {
		out_elem(w);
		out_begin(w);
		out_kv_u64(w, "core_id", f->topology_cpus[i].core_id);
		if (f->has_die_id)
			out_kv_u64(w, "die_id", f->topology_cpus[i].die_id);
		out_kv_u64(w, "socket_id", f->topology_cpus[i].socket_id);
		out_end(w);
	}
	out_array_end(w);
}

static void numa(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "numa_nodes");
	for (i = 0; i < f->nr_numa_nodes; i++) {
		out_elem(w);
		out_begin(w);
		out_kv_u64(w, "node", f->numa_nodes[i].node);
		out_kv_u64(w, "mem_total_kb", f->numa_nodes[i].mem_total);
		out_kv_u64(w, "mem_free_kb", f->numa_nodes[i].mem_free);
		kv_str(w, "cpus", f->numa_nodes[i].cpus);
		out_end(w);
	}
	out_array_end(w);
}

static void pmu_mappings(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "pmu_mappings");
	for (i = 0; i < f->nr_pmu_mappings; i++) {
		out_elem(w);
		out_begin(w);
		kv_str(w, "name", f->pmu_mappings[i].name);
		out_kv_u64(w, "type", f->pmu_mappings[i].type);
		out_end(w);
	}
	out_array_end(w);
}

static void groups(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "groups");
	for (i = 0; i < f->nr_groups; i++) {
		out_elem(w);
		out_begin(w);
		kv_str(w, "name", f->groups[i].name);
		out_kv_u64(w, "leader_idx", f->groups[i].leader_idx);
		out_kv_u64(w, "nr_members", f->groups[i].nr_members);
		out_end(w);
	}
	out_array_end(w);
}

/* CPU_PMU_CAPS and HYBRID_TOPOLOGY */
static void pmu_caps(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "cpu_pmu_caps");
	for (i = 0; i < f->nr_cpu_pmu_caps; i++) {
		out_elem(w);
		out_begin(w);
		kv_str(w, "name", f->cpu_pmu_caps[i].name);
		kv_str(w, "value", f->cpu_pmu_caps[i].value);
		out_end(w);
	}
	out_array_end(w);
	out_array(w, "hybrid_nodes");
	for (i = 0; i < f->nr_hybrid_nodes; i++) {
		out_elem(w);
		out_begin(w);
		kv_str(w, "pmu_name", f->hybrid_nodes[i].pmu_name);
		kv_str(w, "cpus", f->hybrid_nodes[i].cpus);
		out_end(w);
	}
	out_array_end(w);
}

static void caches(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "caches");
	for (i = 0; i < f->nr_caches; i++) {
		const struct qpt_cache_level *c = &f->caches[i];

		out_elem(w);
		out_begin(w);
		out_kv_u64(w, "level", c->level);
		kv_str(w, "type", c->type);
		kv_str(w, "size", c->size);
		kv_str(w, "map", c->map);
		out_kv_u64(w, "line_size", c->line_size);
		out_kv_u64(w, "sets", c->sets);
		out_kv_u64(w, "ways", c->ways);
		out_end(w);
	}
	out_array_end(w);
}

static void auxtrace_index(struct out *w, const struct qpt_reader *r)
{
	const struct qpt_auxtrace_index_entry *e;
	size_t i, n = qpt_reader_auxtrace_index(r, &e);

	out_array(w, "auxtrace_index");
	for (i = 0; i < n; i++) {
		out_elem(w);
		out_begin(w);
		out_kv_hex(w, "offset", e[i].file_offset);
		out_kv_hex(w, "size", e[i].sz);
		out_end(w);
	}
	out_array_end(w);
}

/* Sample times, clocks and compression. */
static void clocks(struct out *w, const struct qpt_reader *r,
		   const struct qpt_features *f)
{
	if (has(r, QPT_FEAT_SAMPLE_TIME)) {
		out_kv_u64(w, "sample_time_first", f->sample_time_first);
		out_kv_u64(w, "sample_time_last", f->sample_time_last);
	}
	if (has(r, QPT_FEAT_CLOCKID))
		out_kv_u64(w, "clockid_res_ns", f->clockid);
	if (has(r, QPT_FEAT_CLOCK_DATA)) {
		out_kv_u64(w, "clock_data_clockid", f->clock_data.clockid);
		out_kv_u64(w, "clock_data_wall_clock_ns",
			   f->clock_data.wall_clock_ns);
		out_kv_u64(w, "clock_data_clk_id_ns", f->clock_data.clk_id_ns);
	}
	if (has(r, QPT_FEAT_COMPRESSED)) {
		out_kv_u64(w, "compressed_type", f->compressed.type);
		out_kv_u64(w, "compressed_level", f->compressed.level);
		out_kv_u64(w, "compressed_ratio", f->compressed.ratio);
	}
}

static void build_ids(struct out *w, const struct qpt_features *f)
{
	size_t i;

	out_array(w, "build_ids");
	for (i = 0; i < f->nr_build_ids; i++) {
		const struct qpt_build_id *b = &f->build_ids[i];

		out_elem(w);
		out_begin(w);
		out_kv_hexbytes(w, "build_id", b->id, b->size);
		kv_str(w, "filename", b->filename);
		out_kv_i64(w, "pid", b->pid);
		out_kv_u64(w, "misc", b->misc);
		out_end(w);
	}
	out_array_end(w);
}

/* "features" (present, with their sizes) and "missing_features". */
static void feature_lists(struct out *w, const struct qpt_reader *r)
{
	const char *name;
	const void *data;
	size_t size;
	unsigned i;

	out_array(w, "features");
	for (i = QPT_FEAT_TRACING_DATA; i < QPT_FEAT_LAST; i++) {
		if (qpt_reader_feature_raw(r, (enum qpt_feature)i, &data,
					   &size))
			continue;
		out_elem(w);
		out_begin(w);
		kv_str(w, "name", qpt_feature_name((enum qpt_feature)i));
		out_kv_u64(w, "size", size);
		out_end(w);
	}
	out_array_end(w);
	out_array(w, "missing_features");
	for (i = QPT_FEAT_TRACING_DATA; i < QPT_FEAT_LAST; i++) {
		if (has(r, (enum qpt_feature)i))
			continue;
		out_elem(w);
		name = qpt_feature_name((enum qpt_feature)i);
		out_val_str(w, name ? name : "", name ? strlen(name) : 0);
	}
	out_array_end(w);
}

void info_json(struct out *w, const struct qpt_reader *r)
{
	const struct qpt_features *f = qpt_reader_features(r);

	out_begin(w);
	file_header(w, r);
	host(w, r, f);
	events(w, r, f);
	if (has(r, QPT_FEAT_CPU_TOPOLOGY))
		topology(w, f);
	if (has(r, QPT_FEAT_NUMA_TOPOLOGY))
		numa(w, f);
	if (has(r, QPT_FEAT_PMU_MAPPINGS))
		pmu_mappings(w, f);
	if (has(r, QPT_FEAT_GROUP_DESC))
		groups(w, f);
	if (has(r, QPT_FEAT_AUXTRACE))
		auxtrace_index(w, r);
	if (has(r, QPT_FEAT_CACHE))
		caches(w, f);
	clocks(w, r, f);
	if (has(r, QPT_FEAT_CPU_PMU_CAPS) || has(r, QPT_FEAT_HYBRID_TOPOLOGY))
		pmu_caps(w, f);
	if (has(r, QPT_FEAT_BUILD_ID))
		build_ids(w, f);
	feature_lists(w, r);
	out_end(w);
}
