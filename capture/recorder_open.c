// SPDX-License-Identifier: MIT
/*
 * Opening a recording's events and mapping their rings: per CPU (with the
 * command or process threads as targets, inherited) or per thread; in
 * each ring the AUX event (if any) owns the buffer, the other events and
 * the sideband dummy write into it through PERF_EVENT_IOC_SET_OUTPUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "capture/recorder.h"

#define SAMPLE_ID_TYPE                                                         \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* sample_id: TID, TIME, CPU, IDENTIFIER. */
#define ID_HDR_SIZE 32

/*
 * The integer in /proc/sys/kernel/@name into *@value.  Returns 0, -errno,
 * or -QPT_E_FORMAT when the file holds no integer.  (-1 is a legal value
 * of perf_event_paranoid, so failure cannot be a value.)
 */
static int read_sysctl(const char *name, long *value)
{
	char path[128], buf[32], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	errno = 0;
	*value = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -QPT_E_FORMAT;
	return 0;
}

/* "kernel.NAME is VALUE" or "kernel.NAME is unreadable" into @buf. */
static const char *sysctl_says(const char *name, char *buf, size_t size)
{
	long v;

	if (read_sysctl(name, &v))
		snprintf(buf, size, "kernel.%s cannot be read", name);
	else
		snprintf(buf, size, "kernel.%s is %ld", name, v);
	return buf;
}

static int open_error(struct qpt_recorder *rec, int err,
		      const struct rec_event *ev, int pid, int cpu)
{
	long paranoid = 3;
	char says[64];

	switch (-err) {
	case EACCES:
	case EPERM:
		read_sysctl("perf_event_paranoid", &paranoid);
		return rec_fail(rec, err,
				"%s: no permission to open the event "
				"(%s%s): run as "
				"root, or lower it: sysctl -w "
				"kernel.perf_event_paranoid=%d",
				ev->name,
				sysctl_says("perf_event_paranoid", says,
					    sizeof(says)),
				paranoid > 2
				    ? ", which forbids unprivileged use"
				: paranoid == 2 && !ev->attr.exclude_kernel
				    ? ", which allows user-space events "
				      "only: add :u or /u"
				    : "",
				paranoid >= 2 ? 1 : -1);
	case EBUSY:
		return rec_fail(rec, err,
				"%s: the PMU is busy (EBUSY): another tool "
				"(perf, a debugger) is using it; stop it and "
				"retry",
				ev->name);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return rec_fail(rec, err,
				"%s: the event is not supported on this "
				"machine (%s)",
				ev->name, strerror(-err));
	case ESRCH:
		return rec_fail(rec, err, "no such process %d", pid);
	case EMFILE:
		return rec_fail(rec, err,
				"%s: too many open files: raise ulimit -n",
				ev->name);
	case E2BIG:
		return rec_fail(rec, err,
				"%s: this kernel does not know some of the "
				"event's attributes (E2BIG: its "
				"perf_event_attr is older than qpt's)",
				ev->name);
	default:
		return rec_fail(rec, err,
				"%s: perf_event_open (pid %d, cpu %d): %s",
				ev->name, pid, cpu, strerror(-err));
	}
}

static int map_error(struct qpt_recorder *rec, int err)
{
	uint64_t kb =
	    ((1 + rec->data_pages + (rec->aux_ev ? rec->aux_pages : 0)) *
	     (uint64_t)sysconf(_SC_PAGESIZE)) >>
	    10;
	char says[64];

	if (err == -EPERM || err == -ENOMEM)
		return rec_fail(rec, err,
				"cannot map %llu KiB of perf buffers per ring "
				"(%s): over the locked-memory limits "
				"(%s KiB) and ulimit -l; use -m with fewer "
				"pages or raise them",
				(unsigned long long)kb, strerror(-err),
				sysctl_says("perf_event_mlock_kb", says,
					    sizeof(says)));
	return rec_fail(rec, err, "cannot map the perf buffers: %s",
			strerror(-err));
}

static void fill_user_event(struct qpt_recorder *rec, struct rec_event *e,
			    const struct qpt_event *pe)
{
	e->attr = pe->attr;
	e->name = pe->str;
	e->aux = pe == rec->aux_ev;
	e->attr.sample_type = SAMPLE_ID_TYPE;
	e->attr.sample_id_all = 1;
	e->attr.disabled = 1;
	if (e->aux) {
		e->attr.freq = 0;
		e->attr.sample_period = 1;
		return;
	}
	e->attr.sample_type |= PERF_SAMPLE_PERIOD;
	if (pe->period_set)
		return;
	if (rec->o.sample_period) {
		e->attr.freq = 0;
		e->attr.sample_period = rec->o.sample_period;
	} else {
		e->attr.freq = 1;
		e->attr.sample_freq =
		    rec->o.sample_freq ? rec->o.sample_freq : 4000;
	}
}

/* The dummy that carries the sideband, user-only when the first event is. */
static void fill_dummy(struct rec_event *e, const struct perf_event_attr *first)
{
	e->name = first->exclude_kernel ? "dummy:u" : "dummy";
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_DUMMY;
	e->attr.sample_period = 1;
	e->attr.sample_type = SAMPLE_ID_TYPE;
	e->attr.sample_id_all = 1;
	e->attr.disabled = 1;
	e->attr.mmap = 1;
	e->attr.mmap2 = 1;
	e->attr.comm = 1;
	e->attr.comm_exec = 1;
	e->attr.task = 1;
	e->attr.context_switch = 1;
	e->attr.exclude_kernel = first->exclude_kernel;
	e->attr.exclude_hv = first->exclude_hv;
}

/* The attrs: the AUX event first (it owns each ring's buffer), the other
 * user events with perf's sampling defaults, --snapshot-on's uprobe, then
 * the dummy. */
static int build_events(struct qpt_recorder *rec)
{
	struct rec_event *e;
	size_t i;

	rec->evs = calloc(rec->nr_parsed + 2, sizeof(*rec->evs));
	if (!rec->evs)
		return -ENOMEM;
	if (rec->aux_ev)
		fill_user_event(rec, &rec->evs[rec->nr_evs++], rec->aux_ev);
	for (i = 0; i < rec->nr_parsed; i++)
		if (rec->parsed[i] != rec->aux_ev)
			fill_user_event(rec, &rec->evs[rec->nr_evs++],
					rec->parsed[i]);
	if (rec->uprobe)
		rec_uprobe_fill(rec, &rec->evs[rec->nr_evs++], SAMPLE_ID_TYPE);
	fill_dummy(&rec->evs[rec->nr_evs], &rec->evs[0].attr);
	rec->nr_evs++;
	rec->id_hdr_size = ID_HDR_SIZE;
	for (i = 0; i < rec->nr_evs; i++) {
		e = &rec->evs[i];
		e->attr.inherit =
		    (rec->child || rec->o.pid) && !rec->o.per_thread;
		e->attr.enable_on_exec = rec->child ? 1 : 0;
		e->ids = calloc(rec->nr_cpus * rec->nr_tids, sizeof(*e->ids));
		if (!e->ids)
			return -ENOMEM;
	}
	return 0;
}

static int push_fd(struct qpt_recorder *rec, int fd)
{
	int *n = realloc(rec->fds, (rec->nr_fds + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	rec->fds = n;
	rec->fds[rec->nr_fds++] = fd;
	return 0;
}

/* Map ring @slot's buffers on its first event @fd. */
static int map_ring(struct qpt_recorder *rec, size_t slot, int fd)
{
	struct qpt_sysring *sr = &rec->rings[slot];
	int err;

	err = rec_sys_map(rec, sr, fd);
	if (err < 0)
		return map_error(rec, err);
	sr->ring.idx = (uint32_t)slot;
	sr->ring.cpu = (uint32_t)(rec->o.per_thread ? -1 : rec->cpus[slot]);
	sr->ring.tid = (uint32_t)(rec->o.per_thread ? rec->tids[slot] : -1);
	rec->pfds[slot].fd = fd;
	rec->pfds[slot].events = POLLIN;
	return 0;
}

/* Event @e's @fd into ring @slot: the first (@leader < 0) owns and maps
 * the buffer, the others write into it (SET_OUTPUT needs the mapping
 * first); its id noted. */
static int join_ring(struct qpt_recorder *rec, struct rec_event *e,
		     size_t slot, int fd, int leader)
{
	uint64_t id;
	int err;

	if (leader < 0) {
		err = map_ring(rec, slot, fd);
		if (err < 0)
			return err;
	} else {
		err = rec_sys_ioctl(rec, fd, PERF_EVENT_IOC_SET_OUTPUT,
				    (void *)(long)leader);
		if (err < 0)
			return rec_fail(rec, err,
					"%s: cannot share the ring buffer: %s",
					e->name, strerror(-err));
	}
	if (e->aux)
		rec->ctl_fds[rec->nr_ctl++] = fd;
	err = rec_sys_ioctl(rec, fd, PERF_EVENT_IOC_ID, &id);
	if (err < 0)
		return rec_fail(rec, err, "PERF_EVENT_IOC_ID: %s",
				strerror(-err));
	e->ids[e->nr_ids++] = id;
	return 0;
}

/* Open every event of ring @slot. */
static int open_ring_events(struct qpt_recorder *rec, size_t slot)
{
	size_t t, i, t0 = 0, t1 = rec->nr_tids;
	int cpu = rec->cpus[slot], pid, fd, err, leader = -1;

	if (rec->o.per_thread) { /* one ring per thread */
		t0 = slot;
		t1 = slot + 1;
		cpu = -1;
	}
	for (t = t0; t < t1; t++) {
		pid = rec->tids[t];
		for (i = 0; i < rec->nr_evs; i++) {
			struct rec_event *e = &rec->evs[i];
			struct perf_event_attr attr = e->attr;

			if (e->uprobe) /* uprobe_path, for the call only */
				attr.config1 =
				    (uint64_t)(uintptr_t)rec_uprobe_path(rec);
			fd = rec_sys_open(rec, &attr, pid, cpu);
			if (fd < 0)
				return open_error(rec, fd, e, pid, cpu);
			err = push_fd(rec, fd);
			if (err < 0) {
				close(fd);
				return err;
			}
			err = join_ring(rec, e, slot, fd, leader);
			if (err < 0)
				return err;
			if (leader < 0)
				leader = fd;
		}
	}
	return 0;
}

static int sys_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static void sys_unmap(void *ctx, struct qpt_sysring *sr)
{
	qpt_sysring_unmap(sr);
}

static int sys_map(void *ctx, struct qpt_sysring *sr, int fd,
		   uint64_t data_pages, uint64_t aux_pages, bool aux_overwrite,
		   uint64_t (*reference)(void *ctx))
{
	return qpt_sysring_map(sr, fd, data_pages, aux_pages, aux_overwrite,
			       reference);
}

/* Tries of a call that fails with EINTR or EAGAIN. */
#define SYS_TRIES 8

static bool transient(int err)
{
	return err == -EINTR || err == -EAGAIN;
}

int rec_sys_open(struct qpt_recorder *rec, struct perf_event_attr *attr,
		 int pid, int cpu)
{
	const struct rec_pmu_sys *sys = rec->sys;
	int fd, i = 0;

	do
		fd = sys->open(sys->ctx, attr, pid, cpu);
	while (transient(fd) && ++i < SYS_TRIES);
	return fd;
}

int rec_sys_ioctl(struct qpt_recorder *rec, int fd, unsigned long req,
		  void *arg)
{
	const struct rec_pmu_sys *sys = rec->sys;
	int err, i = 0;

	do
		err = sys->ioctl(sys->ctx, fd, req, arg);
	while (transient(err) && ++i < SYS_TRIES);
	return err;
}

int rec_sys_map(struct qpt_recorder *rec, struct qpt_sysring *sr, int fd)
{
	const struct rec_pmu_sys *sys = rec->sys;
	int err, i = 0;

	do
		err = sys->map(sys->ctx, sr, fd, rec->data_pages,
			       rec->aux_ev ? rec->aux_pages : 0,
			       rec->o.snapshot,
			       rec->aux_ev ? rec->aux_ev->aux->reference
					   : NULL);
	while (transient(err) && ++i < SYS_TRIES);
	return err;
}

const struct rec_pmu_sys rec_pmu_sys_real = {
    .open = sys_open,
    .ioctl = sys_ioctl,
    .map = sys_map,
    .unmap = sys_unmap,
};

int rec_open_events(struct qpt_recorder *rec)
{
	size_t slot, ctl0;
	int err;

	err = build_events(rec);
	if (err < 0)
		return err;
	rec->nr_rings = rec->o.per_thread ? rec->nr_tids : rec->nr_cpus;
	rec->rings = calloc(rec->nr_rings, sizeof(*rec->rings));
	rec->consumers = calloc(rec->nr_rings, sizeof(*rec->consumers));
	rec->pfds = calloc(rec->nr_rings, sizeof(*rec->pfds));
	rec->ctl_fds =
	    calloc(rec->nr_cpus * rec->nr_tids, sizeof(*rec->ctl_fds));
	if (!rec->rings || !rec->consumers || !rec->pfds || !rec->ctl_fds)
		return -ENOMEM;
	for (slot = 0; slot < rec->nr_rings; slot++) {
		struct qpt_sysring *sr = &rec->rings[slot];

		ctl0 = rec->nr_ctl;
		err = open_ring_events(rec, slot);
		if (err < 0)
			return err;
		if (rec->aux_ev) {
			sr->ctl_fds = rec->ctl_fds + ctl0;
			sr->nr_ctl = rec->nr_ctl - ctl0;
		}
	}
	return 0;
}
