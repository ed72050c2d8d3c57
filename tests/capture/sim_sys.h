/* SPDX-License-Identifier: MIT */
/*
 * A simulated kernel for the PMU source (struct rec_pmu_sys) with faults
 * on demand, for the tests that drive qpt's recorder on it (sim_fault.c,
 * sim_load.c): each event's fd is the read end of a pipe whose write end
 * stands for the kernel's side (readable after sim_wakeup() until the
 * next poll, or always; closing the write end hangs the event up); each
 * ring mapped is a
 * simulated kernel (capture/simkern.c) whose AUX event's enable and
 * disable go through here; the output's writes (auxfmt/writer_io.h) too.
 */
#ifndef QPT_TESTS_CAPTURE_SIM_SYS_H
#define QPT_TESTS_CAPTURE_SIM_SYS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "capture/recorder.h"
#include "capture/simkern.h"

#define SIM_MAX_FDS 64
#define SIM_MAX_FAULTS 8

enum sim_call {
	SIM_OPEN,
	SIM_IOCTL,
	SIM_MAP,
	SIM_POLL,
	SIM_WRITE,
	SIM_ENABLE,
	SIM_DISABLE,
	SIM_NR_CALLS
};

struct sim_fault {
	enum sim_call call;
	unsigned long n, count; /* count SIM_ALT: every other call */
	int what;		/* an errno, or SIM_SHORT_WRITE */
};

#define SIM_ALT ((unsigned long)-1)
#define SIM_SHORT_WRITE (-1)

struct sim_fd {
	int fd, kernel_fd; /* the event's end and the kernel's end */
	uint64_t id, sample_type;
	struct qpt_simkern *sk;
	struct qpt_sysring *sr; /* where it is mapped */
	struct qpt_ring_ops ops, sk_ops;
	void *sk_ctx;
};

struct sim {
	struct sim_fd fds[SIM_MAX_FDS];
	size_t nr;
	uint64_t next_id;
	unsigned long calls[SIM_NR_CALLS];
	struct sim_fault faults[SIM_MAX_FAULTS];
	size_t nr_faults;
	bool gone;
	bool always_ready; /* every event's fd readable, from its open */
	pid_t pid;	   /* the sample pid/tid of the records made */
};

extern struct sim sim;
extern const struct rec_pmu_sys sim_sys;

/*
 * A fault, CALL:N:WHAT[:COUNT]: the N-th call (from 1) of CALL (open,
 * ioctl, map, poll, write, enable, disable) fails with WHAT, an errno
 * name (EINTR, EAGAIN, ENOSPC, EIO, EACCES, EBUSY, EMFILE, ENODEV, E2BIG,
 * ENOMEM, EPERM), or for write "short" (a third of what it is given, at
 * least a byte); COUNT calls in a row (default 1; 0: every call from the
 * N-th on; "alt": every other call from the N-th on, so that each call
 * tried again succeeds).  Returns 0 or -1 (a bad spec).
 */
int sim_add_fault(char *spec);
/* Every event's fd readable until the next poll (data came). */
void sim_wakeup(void);
/* The PMU goes away: every event hangs up, every ioctl, enable and
 * disable fails with ENODEV. */
void sim_gone(void);
/* The kernel's ends closed (after qpt_recorder_free). */
void sim_close(void);
/* "calls open A ioctl B ..." */
void sim_print_calls(FILE *f);
/* The open fds of this process as a bit set (fds < 1024). */
void sim_open_fds(uint8_t set[1024 / 8]);
/* How many children of this process's threads are not reaped. */
int sim_children(void);

#endif /* QPT_TESTS_CAPTURE_SIM_SYS_H */
