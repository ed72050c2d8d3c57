#!/usr/bin/env bash
# qpt dump --json per-type record counts against perf report -D's
# "Aggregated stats" (COMPRESSED aside; perf counts their inner records),
# for files perf records here (software event, -z, pipe mode) and for the
# real recordings in $QPT_SHARED/traces.  The piped Intel PT recording,
# which this perf stops reading halfway, is checked against quipper's
# parse of it (expected/*.pb_text).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf

# perf names the HEADER_* user records without HEADER_ in its stats.
perf_names() {
	sed -e 's/^HEADER_ATTR /ATTR /' -e 's/^HEADER_FEATURE /FEATURE /' \
	    -e 's/^HEADER_EVENT_TYPE /EVENT_TYPE /' \
	    -e 's/^HEADER_TRACING_DATA /TRACING_DATA /' \
	    -e 's/^HEADER_BUILD_ID /BUILD_ID /' | sort
}

check() {
	local f=$1 want got
	want=$(perf_counts "$f")
	got=$(qpt_counts "$f" | perf_names)
	if [ -z "$want" ]; then
		bad "perf gave no stats for $f"; return
	fi
	if [ "$want" != "$got" ]; then
		bad "$f"; diff <(echo "$want") <(echo "$got")
	else
		echo "ok: $f ($(echo "$want" | tr '\n' ' '))"
	fi
	checked=$((checked + 1))
}

# Files perf records here, with a software event.
if perf record -q -e task-clock -o "$tmp/sw.data" -- true 2>/dev/null; then
	check "$tmp/sw.data"
	perf record -q -z -e task-clock -o "$tmp/z.data" -- \
		sh -c 'for i in 1 2 3; do ls / >/dev/null; done' 2>/dev/null &&
		check "$tmp/z.data"
	perf record -q -e task-clock -o - -- true >"$tmp/pipe.data" \
		2>/dev/null && check "$tmp/pipe.data"
	# NAMESPACES, CGROUP, SWITCH and samples with many sample_type bits
	perf record -q -e task-clock -c 200000 --call-graph dwarf,1024 -d \
		--phys-data --data-page-size --code-page-size --sample-cpu \
		--all-cgroups --namespaces --switch-events -o "$tmp/rich.data" \
		-- sh -c "$busy" \
		2>/dev/null && check "$tmp/rich.data"
	perf record -q -z -e task-clock -o - -- true >"$tmp/pipez.data" \
		2>/dev/null && check "$tmp/pipez.data"
	# stdin as a pipe: read incrementally
	want=$(qpt_counts "$tmp/pipe.data")
	# shellcheck disable=SC2002 # a real pipe
	got=$(cat "$tmp/pipe.data" | qpt_counts -)
	[ "$want" = "$got" ] || bad "-i - differs"
	# a file-mode file through a pipe is read whole
	want=$(qpt_counts "$tmp/z.data")
	# shellcheck disable=SC2002 # a real pipe
	got=$(cat "$tmp/z.data" | qpt_counts -)
	[ "$want" = "$got" ] || bad "file mode on -i - differs"
fi

if [ -d "$T" ]; then
	check "$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14"
	check "$T/lbr-callstack-perfparser/perf.lbr.data"
	for f in "$T"/arcus-hello/perf*.data "$T"/arcus-ovf-01-poc/perf*.data; do
		check "$f"
	done
	# quipper's parse of the piped recording: events { header { type: N
	p=$T/quipper-intel-pt-4.14/perf.data.piped.intel_pt-4.14
	want=$(awk '/^events \{/{e=1} e && /^  header \{/{h=1}
		    h && /type:/{print $2; h=0; e=0}' \
		"$T/quipper-intel-pt-4.14/expected/quipper-perf.data.piped.intel_pt-4.14.pr.out.pb_text" |
		sort -n | uniq -c | awk '{print $2, $1}')
	got=$("$QPT" dump --json -i "$p" |
		sed -n 's/.*"type":"\([A-Z0-9_]*\)".*/\1/p' |
		grep -v -x -e HEADER_ATTR -e HEADER_FEATURE | sort | uniq -c |
		awk '{print $2, $1}')
	# map qpt's names to numbers through qpt's own table is circular:
	# use the fixed numbers of perf_event.h / perf's user types instead.
	got=$(echo "$got" | awk 'BEGIN { split("MMAP LOST COMM EXIT THROTTLE UNTHROTTLE FORK READ SAMPLE MMAP2 AUX ITRACE_START LOST_SAMPLES SWITCH SWITCH_CPU_WIDE", k, " "); for (i in k) n[k[i]] = i;
		n["FINISHED_ROUND"] = 68; n["AUXTRACE_INFO"] = 70; n["AUXTRACE"] = 71; n["TIME_CONV"] = 79 }
		{ print n[$1], $2 }' | sort -n)
	if [ "$want" != "$got" ]; then
		bad "$p vs quipper"; diff <(echo "$want") <(echo "$got")
	else
		echo "ok: $p (quipper)"
	fi
	checked=$((checked + 1))
fi
finish
