#!/bin/bash
# Call-stack LBR stitching on recursions deeper than the LBR: for each
# program, bench/lbr_stitch.sh --check records it, injects the samples of
# a 32-entry call-stack LBR with qpt inject, and holds qpt lbr --stitch
# and perf script --stitch-lbr (which must read every injected sample) to
# the truth of the PT flow: qpt must give back more whole stacks than perf
# and stitch none wrong.
# Args: GT_STEP BUILD_DIR PROG...
set -u
GT=$1 B=$2
shift 2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
for p in "$@"; do
	bash "$QPT_SRC/bench/lbr_stitch.sh" --check "$QPT_BUILD" \
		"$B/$p" 97 32 || bad "$p"
done
exit $fail
