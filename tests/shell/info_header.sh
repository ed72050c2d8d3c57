#!/usr/bin/env bash
# qpt info against perf report --header-only: the key lines (hostname, os
# release, perf version, arch, nrcpus, cpudesc, cpuid, total memory,
# cmdline, compression) must be identical, for a file perf records here
# (file mode, -z, pipe mode) and for the real recordings.  Both outputs
# are printed side by side.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf
keys='^# (hostname|os release|perf version|arch|nrcpus online|nrcpus avail|cpudesc|cpuid|total memory|cmdline|compressed|sibling threads|node0 cpu list) *:'

check() {
	local f=$1 want got
	want=$(perf report --header-only -I -i "$f" 2>/dev/null |
		grep -E "$keys")
	got=$("$QPT" info -i "$f" | grep -E "$keys")
	[ -n "$want" ] || { bad "perf printed nothing for $f"; return; }
	if [ "$want" != "$got" ]; then
		bad "$f"
	else
		echo "ok: $f"
	fi
	paste -d'|' <(echo "$want") <(echo "$got") | column -t -s'|' | sed 's/^/    /'
	checked=$((checked + 1))
}

if perf record -q -e task-clock -o "$tmp/sw.data" -- true 2>/dev/null; then
	check "$tmp/sw.data"
	perf record -q -z -e task-clock -o "$tmp/z.data" -- true 2>/dev/null &&
		check "$tmp/z.data"
	perf record -q -e task-clock -o - -- true >"$tmp/pipe.data" \
		2>/dev/null && check "$tmp/pipe.data"
fi
if [ -d "$T" ]; then
	check "$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14"
	check "$T/lbr-callstack-perfparser/perf.lbr.data"
fi
finish
