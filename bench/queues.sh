#!/bin/bash
# Many AUXTRACE queues: qpt decode of files with N queues of distinct idx
# (tests/decode/mkqueues.py: one short stream each, 3 instructions), N
# doubling; prints wall time, time per queue, peak memory (RSS) and the
# growth of the time at each doubling (2.0 = linear), with perf script on
# the same files up to PERF_MAX queues (default 50000) for comparison.
#
#   bench/queues.sh [MAX]    largest N (default 400000)
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing, without sanitizers).  Not a ctest.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
max=${1:-400000}
pmax=${PERF_MAX:-50000}

# peak RSS in KiB of CMD (its output dropped)
rss_kib() {
	/usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1
	cat "$tmp/rss"
}

printf '%9s %9s %10s %8s %7s %9s %7s\n' queues qpt-s us/queue RSS-MB growth \
	perf-s ratio
prev=''
n=12500
while [ "$n" -le "$max" ]; do
	f=$tmp/q.data
	python3 "$src/tests/decode/mkqueues.py" "$f" "$tmp/code" "$n"
	lines=$("$QPT" decode --no-sym -i "$f" | grep -c 'insn:')
	[ "$lines" -eq $((3 * n)) ] ||
		{ echo "qpt decoded $lines instructions, not $((3 * n))" >&2; exit 1; }
	t=$(best_secs "$QPT" decode --no-sym -i "$f")
	m=$(rss_kib "$QPT" decode --no-sym -i "$f")
	g=$(echo "$t ${prev:-0}" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "-" }')
	tp=- r=-
	if [ "$n" -le "$pmax" ]; then
		tp=$(best_secs perf script --itrace=i0ns -F tid,ip -i "$f")
		tp=$(printf '%.3f' "$tp")
		r=$(echo "$tp $t" | awk '{ printf "%.1fx", $1 / ($2 > 0 ? $2 : 1e-6) }')
	fi
	printf '%9d %9.3f %10.2f %8.1f %7s %9s %7s\n' "$n" "$t" \
		"$(echo "$t $n" | awk '{ print 1e6 * $1 / $2 }')" \
		"$(echo "$m" | awk '{ print $1 / 1024 }')" "$g" "$tp" "$r"
	prev=$t
	n=$((n * 2))
done
echo "growth: time / time at half the queues (2.0: linear); ratio: perf / qpt"
