// SPDX-License-Identifier: MIT
/*
 * Feature sections: a bounded cursor over their bytes, and parsing of each
 * known feature into struct qpt_features.  Every count is checked against
 * the bytes that remain before anything is allocated.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/reader_internal.h"

struct features_impl {
	struct qpt_features pub; /* first: r->features points here */
	void **allocs;
	size_t nr_allocs, cap_allocs;
};

struct qpt_features *qpt_features_new(void)
{
	struct features_impl *f = calloc(1, sizeof(*f));
	struct qpt_features *p;

	if (!f)
		return NULL;
	p = &f->pub;
	p->struct_size = sizeof(*p);
	p->build_ids_size = sizeof(*p->build_ids);
	p->event_desc_size = sizeof(*p->event_desc);
	p->topology_cpus_size = sizeof(*p->topology_cpus);
	p->numa_nodes_size = sizeof(*p->numa_nodes);
	p->pmu_mappings_size = sizeof(*p->pmu_mappings);
	p->groups_size = sizeof(*p->groups);
	p->cpu_pmu_caps_size = sizeof(*p->cpu_pmu_caps);
	p->hybrid_nodes_size = sizeof(*p->hybrid_nodes);
	p->caches_size = sizeof(*p->caches);
	return p;
}

void qpt_features_free(struct qpt_features *pub)
{
	struct features_impl *f = (struct features_impl *)pub;
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_allocs; i++)
		free(f->allocs[i]);
	free(f->allocs);
	free(f);
}

/* An array of @n elements of @size owned by the features. */
void *qpt_reader_alloc(struct qpt_reader *r, size_t n, size_t size)
{
	struct features_impl *f = (struct features_impl *)r->features;
	void *p;

	if (f->nr_allocs == f->cap_allocs) {
		size_t cap = f->cap_allocs ? 2 * f->cap_allocs : 16;
		void **na = realloc(f->allocs, cap * sizeof(*na));

		if (!na)
			return NULL;
		f->allocs = na;
		f->cap_allocs = cap;
	}
	p = calloc(n ? n : 1, size);
	if (p)
		f->allocs[f->nr_allocs++] = p;
	return p;
}

void qpt_cursor_init(struct qpt_cursor *c, const void *p, size_t len,
		     bool swap, uint64_t base)
{
	c->begin = c->p = p;
	c->end = c->p + len;
	c->swap = swap;
	c->base = base;
}

int qpt_cursor_bytes(struct qpt_cursor *c, size_t n, const uint8_t **p)
{
	if (n > qpt_cursor_left(c))
		return -QPT_E_TRUNCATED;
	if (p)
		*p = c->p;
	c->p += n;
	return 0;
}

int qpt_cursor_u32(struct qpt_cursor *c, uint32_t *v)
{
	const uint8_t *p;
	int err = qpt_cursor_bytes(c, 4, &p);

	if (err)
		return err;
	memcpy(v, p, 4);
	if (c->swap)
		*v = qpt_bswap32(*v);
	return 0;
}

int qpt_cursor_u64(struct qpt_cursor *c, uint64_t *v)
{
	const uint8_t *p;
	int err = qpt_cursor_bytes(c, 8, &p);

	if (err)
		return err;
	memcpy(v, p, 8);
	if (c->swap)
		*v = qpt_bswap64(*v);
	return 0;
}

int qpt_cursor_string(struct qpt_cursor *c, const char **s)
{
	const uint8_t *p;
	uint32_t len;
	int err = qpt_cursor_u32(c, &len);

	if (err)
		return err;
	err = qpt_cursor_bytes(c, len, &p);
	if (err)
		return err;
	if (!len || !memchr(p, 0, len))
		return -QPT_E_FORMAT;
	*s = (const char *)p;
	return 0;
}

/* A u32 count of elements of at least @min bytes each, within the cursor. */
static int count32(struct qpt_cursor *c, size_t min, uint32_t *n)
{
	int err = qpt_cursor_u32(c, n);

	if (err)
		return err;
	if (*n > qpt_cursor_left(c) / min)
		return -QPT_E_FORMAT;
	return 0;
}

/* Reads one element of a counted array into @elem. */
typedef int (*read_elem_fn)(struct qpt_cursor *c, void *elem);

/*
 * A u32 count, then that many elements of at least @min bytes each in the
 * section, each read by @read into an array of @size-byte elements that
 * the features own.  Returns the array and sets *@nr, or NULL, *@nr 0 and
 * *@err.
 */
static void *read_array(struct qpt_reader *r, struct qpt_cursor *c, size_t min,
			size_t size, read_elem_fn read, size_t *nr, int *err)
{
	uint8_t *v;
	uint32_t n, i;

	*nr = 0; /* an earlier record's count goes with the array */
	if ((*err = count32(c, min, &n)))
		return NULL;
	v = qpt_reader_alloc(r, n, size);
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if ((*err = read(c, v + (size_t)i * size)))
			return NULL;
	*nr = n;
	return v;
}

static int read_string(struct qpt_cursor *c, void *elem)
{
	return qpt_cursor_string(c, elem);
}

static int string_list(struct qpt_reader *r, struct qpt_cursor *c, size_t *nr,
		       const char ***out)
{
	int err;

	*out = read_array(r, c, 5, sizeof(**out), read_string, nr, &err);
	return err;
}

static int parse_build_id(struct qpt_reader *r, struct qpt_cursor *c)
{
	struct qpt_features *f = r->features;
	struct qpt_build_id *v;
	size_t n = 0, cap = qpt_cursor_left(c) / 36;
	const uint8_t *p, *fn;
	uint16_t misc, size;
	int32_t pid;

	v = qpt_reader_alloc(r, cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (qpt_cursor_left(c) > 0) {
		/* struct perf_record_header_build_id */
		if (qpt_cursor_left(c) < 8 + 4 + 24 || n == cap)
			return -QPT_E_TRUNCATED;
		p = c->p;
		memcpy(&misc, p + 4, 2);
		memcpy(&size, p + 6, 2);
		memcpy(&pid, p + 8, 4);
		if (c->swap) {
			misc = qpt_bswap16(misc);
			size = qpt_bswap16(size);
			pid = (int32_t)qpt_bswap32((uint32_t)pid);
		}
		if (size < 8 + 4 + 24 || size > qpt_cursor_left(c))
			return -QPT_E_FORMAT;
		fn = p + 36;
		if (!memchr(fn, 0, size - 36u))
			return -QPT_E_FORMAT;
		v[n].pid = pid;
		v[n].misc = misc;
		memcpy(v[n].id, p + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid */
		v[n].size = (misc & (1 << 15)) && p[32] <= 20 ? p[32] : 20;
		v[n].filename = (const char *)fn;
		n++;
		c->p += size;
	}
	f->nr_build_ids = n;
	f->build_ids = v;
	return 0;
}

static int parse_event_desc(struct qpt_reader *r, struct qpt_cursor *c)
{
	struct qpt_features *f = r->features;
	struct qpt_event_desc *v;
	uint32_t n, asz, i, j;
	const uint8_t *p;
	uint8_t tmp[QPT_ATTR_BYTES];
	int err;

	if ((err = count32(c, 8, &n)) || (err = qpt_cursor_u32(c, &asz)))
		return err;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > qpt_cursor_left(c) ||
	    n > qpt_cursor_left(c) / asz)
		return -QPT_E_FORMAT;
	v = qpt_reader_alloc(r, n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t *ids;

		if ((err = qpt_cursor_bytes(c, asz, &p)))
			return err;
		memset(tmp, 0, sizeof(tmp));
		memcpy(tmp, p, asz < sizeof(tmp) ? asz : sizeof(tmp));
		if (c->swap)
			qpt_attr_swap(tmp, asz < sizeof(tmp) ? asz
							     : sizeof(tmp));
		memcpy(v[i].attr_bytes, tmp, sizeof(v[i].attr_bytes));
		if ((err = count32(c, 8, &v[i].nr_ids)) ||
		    (err = qpt_cursor_string(c, &v[i].name)))
			return err;
		if (v[i].nr_ids > qpt_cursor_left(c) / 8)
			return -QPT_E_FORMAT;
		ids = qpt_reader_alloc(r, v[i].nr_ids, sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		for (j = 0; j < v[i].nr_ids; j++)
			qpt_cursor_u64(c, &ids[j]);
		v[i].ids = ids;
	}
	f->nr_event_desc = n;
	f->event_desc = v;
	return 0;
}

static int parse_cpu_topology(struct qpt_reader *r, struct qpt_cursor *c)
{
	struct qpt_features *f = r->features;
	struct qpt_cpu_topology_cpu *v;
	size_t i, n;
	int err;

	if ((err = string_list(r, c, &f->nr_sibling_cores,
			       &f->sibling_cores)) ||
	    (err = string_list(r, c, &f->nr_sibling_threads,
			       &f->sibling_threads)))
		return err;
	/* Optional: core and socket ids per available cpu, then dies. */
	n = f->nr_cpus_avail;
	if (!n || qpt_cursor_left(c) < 8 * n)
		return 0;
	v = qpt_reader_alloc(r, n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		qpt_cursor_u32(c, &v[i].core_id);
		qpt_cursor_u32(c, &v[i].socket_id);
	}
	f->nr_topology_cpus = n;
	f->topology_cpus = v;
	if (!qpt_cursor_left(c))
		return 0;
	if ((err = string_list(r, c, &f->nr_sibling_dies, &f->sibling_dies)))
		return err;
	if (qpt_cursor_left(c) < 4 * n)
		return -QPT_E_TRUNCATED;
	for (i = 0; i < n; i++)
		qpt_cursor_u32(c, &v[i].die_id);
	f->has_die_id = true;
	return 0;
}

static int read_numa_node(struct qpt_cursor *c, void *elem)
{
	struct qpt_numa_node *v = elem;
	int err;

	if ((err = qpt_cursor_u32(c, &v->node)) ||
	    (err = qpt_cursor_u64(c, &v->mem_total)) ||
	    (err = qpt_cursor_u64(c, &v->mem_free)))
		return err;
	return qpt_cursor_string(c, &v->cpus);
}

static int read_pmu_mapping(struct qpt_cursor *c, void *elem)
{
	struct qpt_pmu_mapping *v = elem;
	int err = qpt_cursor_u32(c, &v->type);

	return err ? err : qpt_cursor_string(c, &v->name);
}

static int read_group(struct qpt_cursor *c, void *elem)
{
	struct qpt_group_desc *v = elem;
	int err;

	if ((err = qpt_cursor_string(c, &v->name)) ||
	    (err = qpt_cursor_u32(c, &v->leader_idx)))
		return err;
	return qpt_cursor_u32(c, &v->nr_members);
}

static int read_pmu_cap(struct qpt_cursor *c, void *elem)
{
	struct qpt_pmu_cap *v = elem;
	int err = qpt_cursor_string(c, &v->name);

	return err ? err : qpt_cursor_string(c, &v->value);
}

static int read_hybrid_node(struct qpt_cursor *c, void *elem)
{
	struct qpt_hybrid_node *v = elem;
	int err = qpt_cursor_string(c, &v->pmu_name);

	return err ? err : qpt_cursor_string(c, &v->cpus);
}

static int read_cache_level(struct qpt_cursor *c, void *elem)
{
	struct qpt_cache_level *v = elem;
	int err;

	if ((err = qpt_cursor_u32(c, &v->level)) ||
	    (err = qpt_cursor_u32(c, &v->line_size)) ||
	    (err = qpt_cursor_u32(c, &v->sets)) ||
	    (err = qpt_cursor_u32(c, &v->ways)) ||
	    (err = qpt_cursor_string(c, &v->type)) ||
	    (err = qpt_cursor_string(c, &v->size)))
		return err;
	return qpt_cursor_string(c, &v->map);
}

/* One or more chunks of {u64 nr; entries[nr]}. */
static int parse_auxtrace(struct qpt_reader *r, struct qpt_cursor *c)
{
	size_t total = qpt_cursor_left(c) / 16, n = 0;
	struct qpt_auxtrace_index_entry *v;
	uint64_t nr, i;
	int err;

	v = calloc(total ? total : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (qpt_cursor_left(c) >= 8) {
		qpt_cursor_u64(c, &nr);
		if (nr > qpt_cursor_left(c) / 16) {
			free(v);
			return -QPT_E_FORMAT;
		}
		for (i = 0; i < nr; i++, n++) {
			qpt_cursor_u64(c, &v[n].file_offset);
			qpt_cursor_u64(c, &v[n].sz);
		}
	}
	err = qpt_cursor_left(c) ? -QPT_E_TRUNCATED : 0;
	free(r->auxidx);
	r->auxidx = v;
	r->nr_auxidx = n;
	return err;
}

static int parse_cache(struct qpt_reader *r, struct qpt_cursor *c)
{
	struct qpt_features *f = r->features;
	uint32_t ver, n;
	int err;

	if ((err = qpt_cursor_u32(c, &ver)))
		return err;
	if (ver != 1) /* a layout we do not know: keep it raw */
		return count32(c, 31, &n);
	f->caches = read_array(r, c, 31, sizeof(*f->caches), read_cache_level,
			       &f->nr_caches, &err);
	return err;
}

static int parse_fixed(struct qpt_reader *r, struct qpt_cursor *c,
		       unsigned feat)
{
	struct qpt_features *f = r->features;
	int err = 0;

	switch (feat) {
	case QPT_FEAT_NRCPUS:
		if (!(err = qpt_cursor_u32(c, &f->nr_cpus_avail)))
			err = qpt_cursor_u32(c, &f->nr_cpus_online);
		break;
	case QPT_FEAT_TOTAL_MEM:
		err = qpt_cursor_u64(c, &f->total_mem);
		break;
	case QPT_FEAT_SAMPLE_TIME:
		if (!(err = qpt_cursor_u64(c, &f->sample_time_first)))
			err = qpt_cursor_u64(c, &f->sample_time_last);
		break;
	case QPT_FEAT_CLOCKID:
		err = qpt_cursor_u64(c, &f->clockid);
		break;
	case QPT_FEAT_CLOCK_DATA:
		if ((err = qpt_cursor_u32(c, &f->clock_data.version)) ||
		    (err = qpt_cursor_u32(c, &f->clock_data.clockid)) ||
		    (err = qpt_cursor_u64(c, &f->clock_data.wall_clock_ns)))
			break;
		err = qpt_cursor_u64(c, &f->clock_data.clk_id_ns);
		break;
	case QPT_FEAT_COMPRESSED:
		if ((err = qpt_cursor_u32(c, &f->compressed.version)) ||
		    (err = qpt_cursor_u32(c, &f->compressed.type)) ||
		    (err = qpt_cursor_u32(c, &f->compressed.level)) ||
		    (err = qpt_cursor_u32(c, &f->compressed.ratio)))
			break;
		err = qpt_cursor_u32(c, &f->compressed.mmap_len);
		break;
	}
	return err;
}

/* The features that are one counted array. */
static int parse_counted(struct qpt_reader *r, struct qpt_cursor *c,
			 unsigned feat)
{
	struct qpt_features *f = r->features;
	int err = 0;

	switch (feat) {
	case QPT_FEAT_CMDLINE:
		err = string_list(r, c, &f->nr_cmdline, &f->cmdline);
		break;
	case QPT_FEAT_NUMA_TOPOLOGY:
		f->numa_nodes =
		    read_array(r, c, 25, sizeof(*f->numa_nodes), read_numa_node,
			       &f->nr_numa_nodes, &err);
		break;
	case QPT_FEAT_PMU_MAPPINGS:
		f->pmu_mappings =
		    read_array(r, c, 9, sizeof(*f->pmu_mappings),
			       read_pmu_mapping, &f->nr_pmu_mappings, &err);
		break;
	case QPT_FEAT_GROUP_DESC:
		f->groups = read_array(r, c, 13, sizeof(*f->groups), read_group,
				       &f->nr_groups, &err);
		break;
	case QPT_FEAT_CPU_PMU_CAPS:
		f->cpu_pmu_caps =
		    read_array(r, c, 10, sizeof(*f->cpu_pmu_caps), read_pmu_cap,
			       &f->nr_cpu_pmu_caps, &err);
		break;
	case QPT_FEAT_HYBRID_TOPOLOGY:
		f->hybrid_nodes =
		    read_array(r, c, 10, sizeof(*f->hybrid_nodes),
			       read_hybrid_node, &f->nr_hybrid_nodes, &err);
		break;
	}
	return err;
}

int qpt_feature_parse_one(struct qpt_reader *r, unsigned feat)
{
	struct qpt_feat_sect *s = &r->feat[feat];
	struct qpt_cursor c;
	const char *str;
	int err = 0;

	if (!s->data)
		return 0;
	qpt_cursor_init(&c, s->data, s->size, r->swap, s->offset);
	switch (feat) {
	case QPT_FEAT_BUILD_ID:
		err = parse_build_id(r, &c);
		break;
	case QPT_FEAT_EVENT_DESC:
		err = parse_event_desc(r, &c);
		break;
	case QPT_FEAT_CPU_TOPOLOGY:
		err = parse_cpu_topology(r, &c);
		break;
	case QPT_FEAT_AUXTRACE:
		err = parse_auxtrace(r, &c);
		break;
	case QPT_FEAT_CMDLINE:
	case QPT_FEAT_NUMA_TOPOLOGY:
	case QPT_FEAT_PMU_MAPPINGS:
	case QPT_FEAT_GROUP_DESC:
	case QPT_FEAT_CPU_PMU_CAPS:
	case QPT_FEAT_HYBRID_TOPOLOGY:
		err = parse_counted(r, &c, feat);
		break;
	case QPT_FEAT_CACHE:
		err = parse_cache(r, &c);
		break;
	default:
		if (qpt_feature_is_string(feat))
			err = qpt_cursor_string(&c, &str);
		else
			err = parse_fixed(r, &c, feat);
		break;
	}
	if (err == -ENOMEM)
		return err;
	if (err)
		return qpt_reader_fail(r, qpt_cursor_pos(&c), err,
				       "feature %s: %s", qpt_feature_name(feat),
				       err == -QPT_E_TRUNCATED
					       ? "section too short"
					       : "malformed section");
	return 0;
}

int qpt_features_parse(struct qpt_reader *r)
{
	unsigned order[] = {QPT_FEAT_NRCPUS}; /* CPU_TOPOLOGY needs it */
	unsigned i;
	int err;

	if ((err = qpt_feature_parse_one(r, order[0])))
		return err;
	for (i = 1; i < QPT_FEAT_LAST; i++)
		if (i != order[0] && (err = qpt_feature_parse_one(r, i)))
			return err;
	return 0;
}

bool qpt_reader_has_feature(const struct qpt_reader *r, enum qpt_feature feat)
{
	return (unsigned)feat < QPT_HEADER_FEAT_BITS && r->feat[feat].data;
}

int qpt_reader_feature_raw(const struct qpt_reader *r, enum qpt_feature feat,
			   const void **data, size_t *size)
{
	if (!qpt_reader_has_feature(r, feat))
		return -ENOENT;
	*data = r->feat[feat].data;
	*size = (size_t)r->feat[feat].size;
	return 0;
}

const char *qpt_reader_feature_string(const struct qpt_reader *r,
				      enum qpt_feature feat)
{
	const struct qpt_feat_sect *s;
	uint32_t len;

	if (!qpt_feature_is_string(feat))
		return NULL;
	s = &r->feat[feat];
	/* validated by qpt_feature_parse_one() */
	if (!s->data || s->size < 5)
		return NULL;
	memcpy(&len, s->data, 4);
	if (r->swap)
		len = qpt_bswap32(len);
	if (len > s->size - 4 || !memchr(s->data + 4, 0, len))
		return NULL;
	return (const char *)s->data + 4;
}

size_t qpt_reader_auxtrace_index(const struct qpt_reader *r,
				 const struct qpt_auxtrace_index_entry **entries)
{
	*entries = r->auxidx;
	return r->nr_auxidx;
}
