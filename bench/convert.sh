#!/bin/bash
# qpt convert against perf inject (perf's own perf.data rewriter) on the same
# inputs, in one run: a software-event recording perf makes here (many small
# records) and an Intel PT file with a large AUXTRACE payload (arcus-hello
# x N).  Prints the best wall time of three runs each, the ratio perf/qpt,
# and, for -z, the output size against the uncompressed one.  Files live in
# /dev/shm where there is one (the disk is not what is measured).
#
#   bench/convert.sh [N]     N = copies of the arcus-hello trace (default 10000)
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing, without sanitizers).  Not a ctest.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
n=${1:-10000}
shared=${QPT_SHARED:-$src/../shared}
shm=/dev/shm
[ -d $shm ] || shm=${TMPDIR:-/tmp}
tmp=$(mktemp -d -p "$shm")
trap 'rm -rf "$tmp"' EXIT

one() {
	local name=$1 in=$2 p q qz
	p=$(best_secs perf inject -i "$in" -o "$tmp/perf.out")
	q=$(best_secs "$QPT" convert -i "$in" -o "$tmp/qpt.out")
	qz=$(best_secs "$QPT" convert -z -i "$in" -o "$tmp/qptz.out")
	printf '%s: %s bytes\n' "$name" "$(stat -c %s "$in")"
	printf '  perf inject      %8.3f s\n' "$p"
	printf '  qpt convert      %8.3f s   ratio perf/qpt %.1fx\n' "$q" \
		"$(echo "$p / $q" | bc -l)"
	printf '  qpt convert -z   %8.3f s   ratio perf/qpt %.1fx, size %.3f of plain\n' \
		"$qz" "$(echo "$p / $qz" | bc -l)" \
		"$(echo "$(stat -c %s "$tmp/qptz.out") / $(stat -c %s "$tmp/qpt.out")" | bc -l)"
}

# shellcheck disable=SC2016
perf record -q -e task-clock -c 10000 -o "$tmp/sw.data" -- \
	sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done' \
	>/dev/null 2>&1
one "software samples" "$tmp/sw.data"
if [ -d "$shared/traces/arcus-hello" ]; then
	python3 "$src/bench/mkbig.py" "$shared/traces/arcus-hello/perf-noindex.data" \
		"$tmp/pt.data" "$n"
	one "Intel PT, arcus-hello x$n" "$tmp/pt.data"
fi
