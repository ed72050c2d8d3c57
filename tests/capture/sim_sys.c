// SPDX-License-Identifier: MIT
/* A simulated kernel for the PMU source, with faults (see sim_sys.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auxfmt/writer_io.h"
#include "sim_sys.h"

struct sim sim = {.next_id = 100};

static const char *const call_names[SIM_NR_CALLS] = {
    "open", "ioctl", "map", "poll", "write", "enable", "disable"};

static const struct {
	const char *name;
	int err;
} errnos[] = {
    {"EINTR", EINTR},	{"EAGAIN", EAGAIN}, {"ENOSPC", ENOSPC},
    {"EIO", EIO},	{"EACCES", EACCES}, {"EBUSY", EBUSY},
    {"EMFILE", EMFILE}, {"ENODEV", ENODEV}, {"E2BIG", E2BIG},
    {"ENOMEM", ENOMEM}, {"EPERM", EPERM},   {"short", SIM_SHORT_WRITE},
};

/* The fault for this call of @c (counted here), or 0. */
static int fault(enum sim_call c)
{
	unsigned long n = ++sim.calls[c];
	size_t i;

	for (i = 0; i < sim.nr_faults; i++) {
		const struct sim_fault *f = &sim.faults[i];

		if (f->call != c || n < f->n)
			continue;
		if (f->count == SIM_ALT ? (n - f->n) % 2 == 0
					: !f->count || n < f->n + f->count)
			return f->what;
	}
	return 0;
}

static struct sim_fd *find_fd(int fd)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.fds[i].fd == fd)
			return &sim.fds[i];
	return NULL;
}

/* The PMU goes away: every event hangs up. */
void sim_gone(void)
{
	size_t i;

	sim.gone = true;
	for (i = 0; i < sim.nr; i++) {
		close(sim.fds[i].kernel_fd);
		sim.fds[i].kernel_fd = -1;
	}
}

static int ring_toggle(struct sim_fd *s, enum sim_call c)
{
	int err = fault(c);

	if (err)
		return -err;
	if (sim.gone)
		return -ENODEV;
	return c == SIM_ENABLE ? s->sk_ops.enable(s->sk_ctx)
			       : s->sk_ops.disable(s->sk_ctx);
}

static int ring_enable(void *ctx)
{
	return ring_toggle(ctx, SIM_ENABLE);
}

static int ring_disable(void *ctx)
{
	return ring_toggle(ctx, SIM_DISABLE);
}

static int sim_open(void *ctx, struct perf_event_attr *attr, int pid, int cpu)
{
	struct sim_fd *s = &sim.fds[sim.nr];
	int err = fault(SIM_OPEN), p[2];

	if (err)
		return -err;
	if (sim.nr == SIM_MAX_FDS)
		return -EMFILE;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	if (sim.always_ready && write(p[1], "", 1) != 1) {
		close(p[0]);
		close(p[1]);
		return -EIO;
	}
	memset(s, 0, sizeof(*s));
	s->fd = p[0];
	s->kernel_fd = p[1];
	s->id = sim.next_id++;
	s->sample_type = attr->sample_type;
	sim.nr++;
	return s->fd;
}

static int sim_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct sim_fd *s = find_fd(fd);
	int err = fault(SIM_IOCTL);

	if (err)
		return -err;
	if (!s)
		return -EBADF;
	if (sim.gone)
		return -ENODEV;
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)arg = s->id;
	else if (s->sk && (req == PERF_EVENT_IOC_ENABLE ||
			   req == PERF_EVENT_IOC_DISABLE))
		qpt_simkern_enable(s->sk, req == PERF_EVENT_IOC_ENABLE);
	return 0;
}

static int sim_map(void *ctx, struct qpt_sysring *sr, int fd,
		   uint64_t data_pages, uint64_t aux_pages, bool aux_overwrite,
		   uint64_t (*reference)(void *ctx))
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct sim_fd *s = find_fd(fd);
	struct qpt_simkern_opts so;
	int err = fault(SIM_MAP);

	if (err)
		return -err;
	if (!s)
		return -EBADF;
	qpt_simkern_opts_init(&so);
	so.data_size = data_pages * page;
	so.aux_size = aux_pages * page;
	so.aux_overwrite = aux_overwrite;
	so.sample_id_all = true;
	so.sample_type = s->sample_type;
	so.id = s->id;
	so.pid = so.tid = (uint32_t)sim.pid;
	err = qpt_simkern_new(&so, &s->sk);
	if (err < 0)
		return err;
	memset(sr, 0, sizeof(*sr));
	sr->fd = fd;
	s->sr = sr;
	qpt_simkern_ring(s->sk, &sr->ring);
	s->sk_ops = *sr->ring.ops;
	s->sk_ctx = sr->ring.ops_ctx;
	s->ops = s->sk_ops;
	s->ops.enable = ring_enable;
	s->ops.disable = ring_disable;
	s->ops.reference = NULL;
	sr->ring.ops = &s->ops;
	sr->ring.ops_ctx = s;
	return 0;
}

static void sim_unmap(void *ctx, struct qpt_sysring *sr)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.fds[i].sr == sr) {
			qpt_simkern_free(sim.fds[i].sk);
			sim.fds[i].sk = NULL;
			sim.fds[i].sr = NULL;
		}
}

static int sim_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout)
{
	int err = fault(SIM_POLL), n;
	char buf[64];
	nfds_t i;

	if (err)
		return -err;
	n = poll(fds, nfds, timeout);
	if (n < 0)
		return -errno;
	for (i = 0; i < nfds && !sim.always_ready; i++)
		if (fds[i].revents & POLLIN) /* the wakeups taken */
			while (read(fds[i].fd, buf, sizeof(buf)) > 0)
				;
	return n;
}

void sim_wakeup(void)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.fds[i].kernel_fd >= 0 &&
		    write(sim.fds[i].kernel_fd, "", 1) < 0)
			continue; /* full: readable anyway */
}

static ssize_t sim_write(void *ctx, int fd, const struct iovec *iov, int cnt,
			 int64_t off)
{
	int err = fault(SIM_WRITE);
	ssize_t n;

	if (err == SIM_SHORT_WRITE) {
		size_t len = iov[0].iov_len / 3 ? iov[0].iov_len / 3 : 1;

		n = off < 0 ? write(fd, iov[0].iov_base, len)
			    : pwrite(fd, iov[0].iov_base, len, (off_t)off);
	} else if (err) {
		return -err;
	} else {
		n = off < 0 ? writev(fd, iov, cnt)
			    : pwritev(fd, iov, cnt, (off_t)off);
	}
	return n < 0 ? -errno : n;
}

static const struct qpt_writer_io sim_out = {.write = sim_write};

const struct rec_pmu_sys sim_sys = {
    .open = sim_open,
    .ioctl = sim_ioctl,
    .map = sim_map,
    .unmap = sim_unmap,
    .poll = sim_poll,
    .out = &sim_out,
};

int sim_add_fault(char *spec)
{
	struct sim_fault *f = &sim.faults[sim.nr_faults];
	char *call = strtok(spec, ":"), *n = strtok(NULL, ":");
	char *what = strtok(NULL, ":"), *count = strtok(NULL, ":");
	size_t i;

	if (sim.nr_faults == SIM_MAX_FAULTS || !call || !n || !what)
		return -1;
	for (i = 0; i < SIM_NR_CALLS && strcmp(call, call_names[i]); i++)
		;
	f->call = (enum sim_call)i;
	f->n = strtoul(n, NULL, 0);
	f->count = !count		   ? 1
		   : !strcmp(count, "alt") ? SIM_ALT
					   : strtoul(count, NULL, 0);
	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(what, errnos[i].name))
			break;
	if (f->call == SIM_NR_CALLS || !f->n ||
	    i == sizeof(errnos) / sizeof(errnos[0]))
		return -1;
	f->what = errnos[i].err;
	sim.nr_faults++;
	return 0;
}

/* The open fds of this process as a bit set. */
void sim_open_fds(uint8_t set[1024 / 8])
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int fd;

	memset(set, 0, 1024 / 8);
	while (d && (de = readdir(d))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d) && fd < 1024)
			set[fd / 8] |= (uint8_t)(1 << fd % 8);
	}
	if (d)
		closedir(d);
}

/* The children of this process's threads that were not reaped. */
int sim_children(void)
{
	char path[320], buf[256];
	struct dirent *de;
	int n = 0;
	FILE *f;
	DIR *d = opendir("/proc/self/task");

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
			 de->d_name);
		f = fopen(path, "re");
		while (f && fscanf(f, "%255s", buf) == 1)
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

void sim_close(void)
{
	size_t i;

	for (i = 0; i < sim.nr; i++)
		if (sim.fds[i].kernel_fd >= 0)
			close(sim.fds[i].kernel_fd);
	sim.nr = 0;
}

void sim_print_calls(FILE *f)
{
	int i;

	fprintf(f, "calls");
	for (i = 0; i < SIM_NR_CALLS; i++)
		fprintf(f, " %s %lu", call_names[i], sim.calls[i]);
	fprintf(f, "\n");
}
