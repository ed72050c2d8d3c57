// SPDX-License-Identifier: MIT
/*
 * qpt record --emulate=step (the recorder with the emulated source, the
 * engine that steps every instruction) on a simulated host that swallows
 * single-step traps
 * (inject.h), for the shell tests that decode the file with perf:
 *
 *   inject_record KINDS [-2] OUT -- CMD ARGS
 *
 * KINDS as gt_step -s; -2 also swallows the trap after a Jcc that follows
 * (gaps).  Prints "swallowed N gaps M lost L" on stderr (the traps
 * swallowed, the gaps the trace must show, the lost traps qpt saw).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/emulate/record.h"
#include "gt_x86.h"
#include "inject.h"

int main(int argc, char **argv)
{
	struct qpt_recorder_opts o;
	struct qpt_capture_stats st;
	struct qpt_recorder *rec = NULL;
	struct inject *inj = calloc(1, sizeof(*inj));
	char msg[512] = "";
	int a = 2, err, ok;

	if (!inj || argc < 5)
		return 2;
	inj->kinds = gt_kinds(argv[1]);
	if (!strcmp(argv[a], "-2")) {
		inj->twice = true;
		a++;
	}
	if (inj->kinds <= 0 || argc < a + 3 || strcmp(argv[a + 1], "--")) {
		fprintf(stderr, "usage: inject_record KINDS [-2] OUT -- CMD\n");
		return 2;
	}
	qpt_recorder_opts_init(&o);
	o.emulate_step = true; /* the engine that steps every instruction */
	o.output = argv[a];
	o.argv = argv + a + 2;
	o.errbuf = msg;
	o.errlen = sizeof(msg);
	err = emu_recorder_new(&o, &inject_ops, inj, &rec);
	if (!err)
		err = qpt_recorder_start(rec);
	while (!err)
		err = qpt_recorder_poll(rec, 1000);
	if (rec) {
		if (qpt_recorder_stop(rec) < 0 && err >= 0)
			err = -1;
		qpt_recorder_stats(rec, &st);
		qpt_recorder_free(rec);
	}
	if (err < 0) {
		fprintf(stderr, "inject_record: %s\n", msg);
		return 1;
	}
	fprintf(stderr, "swallowed %lu gaps %lu lost %llu\n", inj->swallowed,
		inj->twice_n, (unsigned long long)st.lost_traps);
	ok = st.trace_gaps == inj->twice_n;
	free(inj);
	return ok ? 0 : 1;
}
