#!/usr/bin/env bash
# qpt dump's text summaries against perf report -D's lines for the records
# both print the same way (MMAP, MMAP2, COMM, FORK, EXIT, SAMPLE, AUX,
# ITRACE_START, SWITCH*, AUXTRACE): offset, size, type and decoded fields,
# compared as sorted sets (perf prints in time order) without the cpu/time
# prefix.  File-mode inputs (perf numbers pipe-mode offsets from after the
# pipe header).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf
pat='PERF_RECORD_(MMAP|MMAP2|COMM|EXIT|FORK|AUX|ITRACE_START|SWITCH_CPU_WIDE|SWITCH|AUXTRACE|SAMPLE)[ :(]'

norm() {
	grep -E "$pat" | sed -E 's/^[0-9 ]*0x/0x/; s/ +$//; s/  +/ /g' | sort
}

check() {
	check_view "$1" \
		"$(perf report -D -i "$1" 2>/dev/null | grep -E '^[0-9]+ ' | norm)" \
		"$("$QPT" dump -i "$1" | norm)" lines
}

if perf record -q -e task-clock -c 100000 -o "$tmp/sw.data" -- \
	sh -c "$busy" 2>/dev/null; then
	check "$tmp/sw.data"
	perf record -q -z -e task-clock -o "$tmp/z.data" -- true 2>/dev/null &&
		check "$tmp/z.data"
fi
if [ -d "$T" ]; then
	check "$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14"
	check "$T/lbr-callstack-perfparser/perf.lbr.data"
	check "$T/arcus-hello/perf-split3.data"
fi
finish
