// SPDX-License-Identifier: MIT
/* perf-style event strings (see qpt/capture.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auxfmt/sized.h"
#include "capture/event.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-instructions", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    {NULL, 0, 0},
};

void qpt_event_opts_init_sized(struct qpt_event_opts *out, size_t size)
{
	struct qpt_event_opts o;

	memset(&o, 0, sizeof(o));
	qpt_sized_opts_init(out, size, &o, sizeof(o));
}

static int fail(const struct qpt_event_opts *o, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const struct qpt_event_opts *o, int err, const char *fmt, ...)
{
	va_list ap;

	if (o && o->errbuf && o->errlen) {
		va_start(ap, fmt);
		vsnprintf(o->errbuf, o->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* u, k, h (perf: naming some excludes the rest); p (precise_ip). */
static int apply_mods(const char *mods, struct perf_event_attr *attr,
		      const struct qpt_event_opts *o)
{
	bool u = false, k = false, h = false, any = false;
	const char *m;

	for (m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = any = true;
			break;
		case 'k':
			k = any = true;
			break;
		case 'h':
			h = any = true;
			break;
		case 'p':
			if (attr->precise_ip < 3)
				attr->precise_ip++;
			break;
		default:
			return fail(o, -QPT_E_INVAL,
				    "unknown event modifier '%c' in '%s'", *m,
				    mods);
		}
	}
	if (any) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return 0;
}

static int parse_value(const char *text, uint64_t *value)
{
	char *end;

	if (!*text || *text == '-')
		return -QPT_E_INVAL;
	errno = 0;
	*value = strtoull(text, &end, 0);
	return errno || *end ? -QPT_E_INVAL : 0;
}

static int apply_term(struct qpt_event *ev, char *term,
		      const struct qpt_event_opts *o)
{
	const struct qpt_pmu_format *f;
	char *eq = strchr(term, '=');
	uint64_t value = 1;

	if (eq) {
		*eq = '\0';
		if (parse_value(eq + 1, &value) < 0)
			return fail(o, -QPT_E_INVAL,
				    "bad value '%s' for term '%s'", eq + 1,
				    term);
	}
	if (!strcmp(term, "config")) {
		ev->attr.config = value;
	} else if (!strcmp(term, "config1")) {
		ev->attr.config1 = value;
	} else if (!strcmp(term, "config2")) {
		ev->attr.config2 = value;
	} else if (!strcmp(term, "period")) {
		ev->attr.sample_period = value;
		ev->attr.freq = 0;
		ev->period_set = true;
	} else if (!strcmp(term, "freq")) {
		ev->attr.sample_freq = value;
		ev->attr.freq = 1;
		ev->period_set = true;
	} else {
		f = qpt_pmu_format(ev->pmu, term);
		if (!f)
			return fail(o, -QPT_E_INVAL,
				    "unknown term '%s' for PMU %s", term,
				    ev->pmu_name);
		if (qpt_pmu_format_set(f, value, &ev->attr) < 0)
			return fail(o, -QPT_E_INVAL,
				    "value %s too large for term '%s' of %s",
				    eq ? eq + 1 : "1", term, ev->pmu_name);
	}
	return 0;
}

static int parse_pmu_event(struct qpt_event *ev, char *s,
			   const struct qpt_event_opts *o)
{
	char *slash = strchr(s, '/'), *terms = NULL, *mods = "", *end, *t;
	char *save = NULL;
	int err;

	if (slash) {
		*slash = '\0';
		terms = slash + 1;
		end = strchr(terms, '/');
		if (!end)
			return fail(o, -QPT_E_INVAL,
				    "missing closing '/' in event '%s'",
				    ev->str);
		*end = '\0';
		mods = end + 1;
		if (*mods == ':')
			mods++;
	}
	ev->pmu_name = strdup(s);
	if (!ev->pmu_name)
		return -ENOMEM;
	err = qpt_pmu_open(o ? o->sysfs_root : NULL, s, &ev->pmu);
	if (err == -QPT_E_NOPMU && o && o->builtin_intel_pt &&
	    !strcmp(s, "intel_pt"))
		err = qpt_pmu_builtin_intel_pt(o->builtin_intel_pt_type,
					       &ev->pmu);
	/* A bare word that names neither an event nor a PMU here, and no
	 * AUX tracer we know of: an unknown event. */
	if (err == -QPT_E_NOPMU && !slash && !qpt_auxtrace_ops_find(s))
		return fail(o, -QPT_E_INVAL, "unknown event '%s'", s);
	if (err == -QPT_E_NOPMU || err == -QPT_E_INVAL)
		return fail(o, err == -QPT_E_INVAL ? err : -QPT_E_NOPMU,
			    "no PMU named '%s' on this machine", s);
	if (err < 0)
		return fail(o, err, "cannot read PMU '%s': %s", s,
			    qpt_strerror(err));
	ev->attr.type = ev->pmu->type;
	ev->aux = qpt_auxtrace_ops_find(s);
	if (!ev->pmu->dir)
		/* the built-in intel_pt (no sysfs directory): the emulated
		 * source's defaults are perf's on hardware, pt, branch, tsc,
		 * mtc with mtc_period 3 and psb_period 3 (config:0, 13, 10, 9,
		 * 14-17, 24-27): with timestamps, perf places the sideband
		 * (an exec, an mmap) against the trace */
		ev->attr.config = 1ULL | 1ULL << 13 | 1ULL << 10 | 1ULL << 9 |
				  3ULL << 14 | 3ULL << 24;
	else if (ev->aux && ev->aux->default_config)
		ev->aux->default_config(ev->pmu, &ev->attr);
	for (t = terms ? strtok_r(terms, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		err = apply_term(ev, t, o);
		if (err < 0)
			return err;
	}
	return apply_mods(mods, &ev->attr, o);
}

static int parse_named_event(struct qpt_event *ev, char *s,
			     const struct qpt_event_opts *o)
{
	const struct named_event *n;
	char *colon = strchr(s, ':');

	if (colon)
		*colon = '\0';
	for (n = named_events; n->name; n++)
		if (!strcmp(n->name, s))
			break;
	if (!n->name) {
		if (!colon)
			return 1; /* maybe a PMU name alone */
		return fail(o, -QPT_E_INVAL, "unknown event '%s'", s);
	}
	ev->attr.type = n->type;
	ev->attr.config = n->config;
	ev->pmu_name =
	    strdup(n->type == PERF_TYPE_HARDWARE ? "hardware" : "software");
	if (!ev->pmu_name)
		return -ENOMEM;
	return apply_mods(colon ? colon + 1 : "", &ev->attr, o);
}

/* The first version's options end with errlen. */
#define EVENT_OPTS_SIZE_V1 (offsetof(struct qpt_event_opts, errlen) + 8)

int qpt_event_parse(const char *str, const struct qpt_event_opts *opts,
		    struct qpt_event **event)
{
	struct qpt_event_opts copy, *o = &copy;
	struct qpt_event *ev;
	char *s;
	int err;

	if (!event)
		return -QPT_E_INVAL;
	*event = NULL;
	qpt_event_opts_init(o);
	if (opts && qpt_sized_opts_read(o, sizeof(*o), opts,
					EVENT_OPTS_SIZE_V1))
		return -QPT_E_INVAL;
	if (!str || !*str)
		return fail(o, -QPT_E_INVAL, "empty event");
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->attr.size = sizeof(ev->attr);
	ev->str = strdup(str);
	s = strdup(str);
	if (!ev->str || !s) {
		err = -ENOMEM;
		goto out;
	}
	err = 1;
	if (!strchr(s, '/'))
		err = parse_named_event(ev, s, o);
	if (err == 1) {
		strcpy(s, str);
		err = parse_pmu_event(ev, s, o);
	}
out:
	free(s);
	if (err < 0) {
		qpt_event_free(ev);
		return err;
	}
	*event = ev;
	return 0;
}

void qpt_event_free(struct qpt_event *ev)
{
	if (!ev)
		return;
	qpt_pmu_free(ev->pmu);
	free(ev->pmu_name);
	free(ev->str);
	free(ev);
}

const struct perf_event_attr *qpt_event_attr(const struct qpt_event *ev)
{
	return &ev->attr;
}

const char *qpt_event_pmu(const struct qpt_event *ev)
{
	return ev->pmu_name;
}

const char *qpt_event_string(const struct qpt_event *ev)
{
	return ev->str;
}

bool qpt_event_is_aux(const struct qpt_event *ev)
{
	return ev->aux != NULL;
}
