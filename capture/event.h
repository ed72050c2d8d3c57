/* SPDX-License-Identifier: MIT */
/* A parsed event (qpt_event_parse in qpt/capture.h). */
#ifndef QPT_CAPTURE_EVENT_H
#define QPT_CAPTURE_EVENT_H

#include <linux/perf_event.h>

#include "capture/auxtrace.h"
#include "capture/pmu.h"
#include "qpt/capture.h"

struct qpt_event {
	char *str; /* as given */
	char *pmu_name;
	struct qpt_pmu *pmu; /* NULL for hardware/software names */
	const struct qpt_auxtrace_ops *aux; /* NULL: no AUX area */
	bool period_set;		    /* the string set period or freq */
	struct perf_event_attr attr;
};

#endif /* QPT_CAPTURE_EVENT_H */
