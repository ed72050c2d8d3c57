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
# the injected file as perf sees it: qpt dump's sample lines and qpt
# info's event line are perf report -D's and perf's header's
"$QPT" record -q --emulate -e intel_pt/tsc/u -o "$tmp/pt.data" -- "$B/$1" \
	>/dev/null 2>&1
"$QPT" inject --lbr-callstack=500 -i "$tmp/pt.data" -o "$tmp/lbr.data" ||
	bad "qpt inject"
diff <(perf report -D -i "$tmp/lbr.data" 2>/dev/null | grep '^\.\.\.') \
	<("$QPT" dump -i "$tmp/lbr.data" | grep '^\.\.\.') >/dev/null ||
	bad "qpt dump's sample lines differ from perf -D"
diff <(perf report --header-only -i "$tmp/lbr.data" 2>/dev/null |
	grep '^# event :') <("$QPT" info -i "$tmp/lbr.data" |
	grep '^# event :') || bad "qpt info's event line differs from perf's"
for p in "$@"; do
	bash "$QPT_SRC/bench/lbr_stitch.sh" --check "$QPT_BUILD" \
		"$B/$p" 97 32 || bad "$p"
done
exit $fail
