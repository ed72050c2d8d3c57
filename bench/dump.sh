#!/bin/bash
# Reading perf.data: qpt dump (text and --json) against perf report -D on
# the same files, in one run; prints wall times and the ratio.  Inputs: a
# software-event recording made here with many samples (file mode, -z and
# pipe mode) and, when present, the quipper Intel PT recording.
#
#   bench/dump.sh [PERIOD]   task-clock period in ns (default 2000)
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing, without sanitizers).  Not a ctest.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2016
work='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
p=${1:-2000}
perf record -q -c "$p" -e task-clock -o "$tmp/file.data" -- sh -c "$work" 2>/dev/null
perf record -q -z -c "$p" -e task-clock -o "$tmp/z.data" -- sh -c "$work" 2>/dev/null
perf record -q -c "$p" -e task-clock -o - -- sh -c "$work" >"$tmp/pipe.data" 2>/dev/null

files="$tmp/file.data $tmp/z.data $tmp/pipe.data"
q=${QPT_SHARED:-$src/../shared}/traces/quipper-intel-pt-4.14/perf.data.intel_pt-4.14
[ -f "$q" ] && files="$files $q"
printf '%-28s %9s %8s %8s %8s %7s %7s\n' input bytes records perf-D qpt qpt-json ratio
for f in $files; do
	n=$("$QPT" dump --json -i "$f" | wc -l)
	tp=$(best_secs perf report -D -i "$f")
	tq=$(best_secs "$QPT" dump -i "$f")
	tj=$(best_secs "$QPT" dump --json -i "$f")
	printf '%-28s %9d %8d %8.3f %8.3f %7.3f %6.1fx\n' "$(basename "$f")" \
		"$(stat -c %s "$f")" "$n" "$tp" "$tq" "$tj" \
		"$(echo "$tp $tj" | awk '{ print $1 / ($2 > 0 ? $2 : 1e-6) }')"
done
echo "ratio: perf report -D time / qpt dump --json time"
