// SPDX-License-Identifier: MIT
/*
 * qpt record --emulate on a simulated host that swallows single-step traps
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
	struct qpt_emulate_opts o;
	struct qpt_emulate_result res;
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
	qpt_emulate_opts_init(&o);
	o.output = argv[a];
	o.argv = argv + a + 2;
	o.errbuf = msg;
	o.errlen = sizeof(msg);
	err = emu_record_run(&o, &res, &inject_ops, inj);
	if (err) {
		fprintf(stderr, "inject_record: %s\n", msg);
		return 1;
	}
	fprintf(stderr, "swallowed %lu gaps %lu lost %llu\n", inj->swallowed,
		inj->twice_n, (unsigned long long)res.lost_traps);
	ok = res.gaps == inj->twice_n;
	free(inj);
	return ok ? 0 : 1;
}
