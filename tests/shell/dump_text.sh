#!/usr/bin/env bash
# qpt dump's text summaries against perf report -D's lines for the records
# both print the same way (MMAP, MMAP2, COMM, FORK, EXIT, SAMPLE, AUX,
# ITRACE_START, SWITCH*, AUXTRACE): offset, size, type and decoded fields,
# compared as sorted sets (perf prints in time order) without the cpu/time
# prefix.  File-mode inputs (perf numbers pipe-mode offsets from after the
# pipe header).
set -u
command -v perf >/dev/null || { echo "perf missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
checked=0
pat='PERF_RECORD_(MMAP|MMAP2|COMM|EXIT|FORK|AUX|ITRACE_START|SWITCH_CPU_WIDE|SWITCH|AUXTRACE|SAMPLE)[ :(]'

norm() {
	grep -E "$pat" | sed -E 's/^[0-9 ]*0x/0x/; s/ +$//; s/  +/ /g' | sort
}

check() {
	local f=$1 want got
	want=$(perf report -D -i "$f" 2>/dev/null | grep -E '^[0-9]+ ' | norm)
	got=$("$QPT" dump -i "$f" | norm)
	if [ -z "$want" ]; then
		echo "FAIL: perf printed nothing for $f"; fail=1; return
	fi
	if [ "$want" != "$got" ]; then
		echo "FAIL: $f"
		diff <(echo "$want") <(echo "$got") | head -10
		fail=1
	else
		echo "ok: $f ($(echo "$want" | wc -l) lines)"
	fi
	checked=$((checked + 1))
}

if perf record -q -e task-clock -c 100000 -o "$tmp/sw.data" -- \
	sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' 2>/dev/null; then
	check "$tmp/sw.data"
	perf record -q -z -e task-clock -o "$tmp/z.data" -- true 2>/dev/null &&
		check "$tmp/z.data"
fi
T=${QPT_SHARED:-/nonexistent}/traces
if [ -d "$T" ]; then
	check "$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14"
	check "$T/lbr-callstack-perfparser/perf.lbr.data"
	check "$T/arcus-hello/perf-split3.data"
fi
[ "$checked" -gt 0 ] || exit 77
exit $fail
