// SPDX-License-Identifier: MIT
/*
 * The PMU source's --snapshot-on=SYMBOL[+OFF]: a uprobe (the kernel's
 * uprobe PMU: the ELF file's path and the probed instruction's file
 * offset, so no load address is needed and it holds through fork and
 * exec) in the command's executable (or -p's), opened beside the other
 * events on every target and writing into the ring the recorder drains.
 * Each of its samples the drain sees is a hit: after the drain, a trigger
 * in the crash facts (qpt/crash.h, the emulated source's collector) and a
 * snapshot of every AUX area through the source's snapshot.  The snapshot
 * comes shortly after the hit (as magic-trace's trigger does): the
 * hardware traced on meanwhile, so the newest bytes run a little past
 * the hit.  Only the executable is probed, not the shared libraries.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/crash.h"
#include "capture/elfsym.h"
#include "capture/emulate/trigger.h"
#include "capture/pmu.h"
#include "capture/recorder.h"

struct rec_hit {
	uint32_t pid, tid;
	uint64_t ip, time;
};

struct rec_uprobe {
	char path[PATH_MAX];
	uint64_t offset;
	uint32_t type;
	const struct rec_event *ev;
	struct rec_hit *hits;
	size_t nr_hits, cap_hits;
	struct crash_list facts; /* without a crash watch */
};

/* The executable @file runs as, execvp's way: a name without a slash
 * along $PATH.  0 or -ENOENT. */
static int exec_path(const char *file, char *out)
{
	const char *p = getenv("PATH"), *colon;
	char buf[PATH_MAX];
	int n;

	if (strchr(file, '/'))
		return realpath(file, out) ? 0 : -ENOENT;
	for (p = p ? p : "/bin:/usr/bin"; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		n = snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - p),
			     colon == p ? "." : p, file);
		if (n > 0 && (size_t)n < sizeof(buf) && !access(buf, X_OK) &&
		    realpath(buf, out))
			return 0;
	}
	return -ENOENT;
}

/* The probed file (@out: PATH_MAX bytes): the command's executable, or
 * -p's. */
static int probed_file(struct qpt_recorder *rec, char *out)
{
	char link[64];
	ssize_t n;

	if (rec->o.argv && rec->o.argv[0])
		return exec_path(rec->o.argv[0], out);
	if (rec->o.pid <= 0)
		return rec_fail(rec, -QPT_E_INVAL,
				"--snapshot-on needs a command or -p PID");
	snprintf(link, sizeof(link), "/proc/%d/exe", rec->o.pid);
	n = readlink(link, out, PATH_MAX - 1);
	if (n < 0)
		return rec_fail(rec, -errno, "%s: %s", link, strerror(errno));
	out[n] = '\0';
	return 0;
}

static int uprobe_type(struct qpt_recorder *rec, uint32_t *type)
{
	const char *root =
	    rec->o.sysfs_root ? rec->o.sysfs_root : QPT_SYSFS_PMU_ROOT;
	struct qpt_pmu *pmu;

	if (qpt_pmu_open(root, "uprobe", &pmu) < 0)
		return rec_fail(rec, -QPT_E_NOPMU,
				"--snapshot-on: no uprobe PMU in %s", root);
	*type = pmu->type;
	qpt_pmu_free(pmu);
	return 0;
}

int rec_uprobe_resolve(struct qpt_recorder *rec)
{
	struct emu_trigger spec;
	struct qpt_elf_sym s;
	struct rec_uprobe *up;
	int err;

	if (!rec->o.snapshot_on)
		return 0;
	if (!rec->o.snapshot ||
	    emu_trigger_parse(&spec, rec->o.snapshot_on) < 0)
		return rec_fail(rec, -QPT_E_INVAL,
				"--snapshot-on needs snapshot mode and "
				"SYMBOL[+OFF]");
	up = calloc(1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	rec->uprobe = up;
	err = probed_file(rec, up->path);
	if (err == -ENOENT)
		return rec_fail(rec, err, "%s: not found", rec->o.argv[0]);
	if (err < 0)
		return err;
	err = qpt_elf_sym_find(up->path, spec.name, spec.off, &s);
	if (err == -ENOENT)
		return rec_fail(rec, -QPT_E_INVAL,
				"--snapshot-on: no symbol %s%s in %s",
				rec->o.snapshot_on,
				s.value ? " (past its segment)" : "", up->path);
	if (err < 0)
		return rec_fail(rec, err, "--snapshot-on: %s: %s", up->path,
				qpt_strerror(err));
	up->offset = s.offset;
	return uprobe_type(rec, &up->type);
}

void rec_uprobe_fill(struct qpt_recorder *rec, struct rec_event *e,
		     uint64_t sample_type)
{
	struct rec_uprobe *up = rec->uprobe;

	e->name = "uprobe";
	e->uprobe = true;
	e->attr.size = sizeof(e->attr);
	e->attr.type = up->type;
	/* config1 (uprobe_path) is the path's address, set at the open */
	e->attr.config2 = up->offset; /* probe_offset */
	e->attr.sample_period = 1;
	e->attr.sample_type = sample_type;
	e->attr.sample_id_all = 1;
	e->attr.disabled = 1;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	up->ev = e;
}

const char *rec_uprobe_path(const struct qpt_recorder *rec)
{
	return rec->uprobe->path;
}

static bool is_uprobe_id(const struct rec_uprobe *up, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < up->ev->nr_ids; i++)
		if (up->ev->ids[i] == id)
			return true;
	return false;
}

int rec_uprobe_sample(struct qpt_recorder *rec,
		      const struct perf_event_header *h)
{
	struct rec_uprobe *up = rec->uprobe;
	const uint64_t *b = (const uint64_t *)(h + 1);
	struct rec_hit *n;

	/* IDENTIFIER, IP, TID (pid, tid), TIME: the uprobe's sample_type */
	if (!up || h->type != PERF_RECORD_SAMPLE ||
	    h->size < sizeof(*h) + 4 * 8 || !is_uprobe_id(up, b[0]))
		return 0;
	if (up->nr_hits == up->cap_hits) {
		size_t cap = up->cap_hits ? 2 * up->cap_hits : 8;

		n = realloc(up->hits, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		up->hits = n;
		up->cap_hits = cap;
	}
	n = &up->hits[up->nr_hits++];
	n->ip = b[1];
	n->pid = (uint32_t)b[2];
	n->tid = (uint32_t)(b[2] >> 32);
	n->time = b[3];
	return 0;
}

int rec_uprobe_fire(struct qpt_recorder *rec)
{
	struct rec_uprobe *up = rec->uprobe;
	struct crash_list *facts;
	struct user_regs_struct regs;
	struct rec_hit h;
	size_t i;
	int64_t n;
	int err;

	if (!up)
		return 0;
	facts = rec_crash_facts(rec);
	if (!facts)
		facts = &up->facts;
	/* a snapshot drains the rings: its hits join the list */
	for (i = 0; i < up->nr_hits; i++) {
		h = up->hits[i];
		memset(&regs, 0, sizeof(regs));
		regs.rip = h.ip;
		err = crash_add(facts, QPT_CRASH_TRIGGER, (pid_t)h.pid,
				(pid_t)h.tid, NULL, &regs, NULL, 0, h.time,
				NULL, 0);
		if (err < 0)
			return err;
		n = rec->src->snapshot(rec);
		if (n < 0)
			return (int)n;
	}
	up->nr_hits = 0;
	return 0;
}

int rec_uprobe_stop(struct qpt_recorder *rec)
{
	if (!rec->uprobe || rec_crash_facts(rec))
		return 0;
	return crash_write(&rec->uprobe->facts, rec->writer);
}

void rec_uprobe_free(struct qpt_recorder *rec)
{
	if (!rec->uprobe)
		return;
	crash_release(&rec->uprobe->facts);
	free(rec->uprobe->hits);
	free(rec->uprobe);
	rec->uprobe = NULL;
}
