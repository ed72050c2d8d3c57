#!/usr/bin/env bash
# qpt record -p PID (per-CPU and per-thread), stopped with SIGINT: the file perf reads carries the
# synthesized COMM and MMAP2 of the running process ([vdso] included), as
# its /proc/PID/maps lists them, and samples of it.
set -euo pipefail
spin=$1
command -v perf >/dev/null || exit 77
perf stat -e task-clock:u true >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
# shellcheck source=tests/capture/wait_for.sh
. "$(dirname "$0")/wait_for.sh"
"$spin" 20000 "$tmp/ready" &
target=$!
trap 'kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
# main() runs: every mapping of the process is in place
wait_for '[ -s ready ]'
awk '$2 ~ /^..x/' /proc/$target/maps | awk '{ split($1, a, "-"); print a[1] }' |
	sort >maps-proc.txt
# Per-CPU rings (perf's default) and one ring per thread.
for mode in "" --per-thread; do
	rm -f pid.data # the wait below must see this run's file
	"$QPT" record $mode -e task-clock:u -c 100000 -o pid.data -p $target \
		2>err.txt &
	rec=$!
	# samples are coming in: the file grows past its synthesized start
	wait_for '[ "$(stat -c %s pid.data 2>/dev/null || echo 0)" -gt 65536 ]'
	kill -INT $rec
	wait $rec
	grep -q '^\[ qpt record: ' err.txt
	perf report -D -i pid.data >dump.txt 2>perr.txt
	if grep -i -E 'warn|error|fail|invalid' perr.txt; then exit 1; fi
	grep -q "PERF_RECORD_COMM: qpt_spin:$target/$target" dump.txt
	grep 'PERF_RECORD_MMAP2' dump.txt | grep " $target/$target:" |
		sed -E 's/.*\[0x([0-9a-f]+)\(.*/\1/' | sort >maps-rec.txt
	diff maps-proc.txt maps-rec.txt
	grep -q 'r-xp \[vdso\]' dump.txt
	n=$(perf script -i pid.data -F pid 2>/dev/null | grep -c -w "$target")
	echo "${mode:-per-cpu}: $n samples of $target"
	test "$n" -ge 5
	# qpt reads it too.
	"$QPT" dump -i pid.data >/dev/null
done
