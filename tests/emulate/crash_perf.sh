#!/bin/bash
# perf's own tools on qpt's crash recordings: the crash facts are samples
# of qpt's crash event (qpt/crash.h), which every perf tool reads and
# passes on.  For a crash recorded by the emulated source (whole trace
# and --snapshot), written to a pipe (-o -) and converted compressed
# (-z): perf report, perf script, perf report --header-only and perf
# inject, to a file and to a pipe (read back through a real pipe, as perf
# 6.1 needs: tests/shell/perf_in.sh), each exit 0 and keep the facts:
# crash_feature.py (perf's dump of the sample, parsed without qpt) gives
# the recording's facts, perf script shows the sample at the faulting
# instruction, --header-only names the event, and qpt crash reports the
# same crash from what perf inject wrote.
# Args: GT_STEP PROG_DIR
set -u
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
here=$(dirname "$0")
P=$DIR/emu_crashy

# facts FILE: the crash facts of FILE (a pipe-mode one through a pipe)
facts() {
	if is_pipe "$1"; then
		# shellcheck disable=SC2002 # perf needs a real pipe
		cat "$1" | python3 "$here/crash_feature.py" -
	else
		python3 "$here/crash_feature.py" "$1"
	fi
}

# check NAME FILE: perf's tools on FILE keep the facts of $tmp/want.txt
check() {
	local name=$1 f=$2 ip ev
	facts "$f" >"$tmp/got.txt"
	cmp -s "$tmp/want.txt" "$tmp/got.txt" ||
		bad "$name: facts $(head -1 "$tmp/got.txt"), want $(head -1 "$tmp/want.txt")"
	ip=$(awk '{ print $7; exit }' "$tmp/want.txt")
	perf_in "$f" script >"$tmp/script.txt" 2>"$tmp/perf.err" ||
		bad "$name: perf script: $(head -1 "$tmp/perf.err")"
	# in a pipe perf names the event by its type (perf record sends
	# names there in EVENT_UPDATE records, qpt's writer does not yet)
	ev=qpt:crash
	is_pipe "$f" && ev=
	grep -q "$ev:.* $ip lookup+" "$tmp/script.txt" &&
		grep -q "BPF output: 0000: 01 00 00 00" "$tmp/script.txt" ||
		bad "$name: perf script does not show the crash at $ip"
	perf_in "$f" report --stdio >"$tmp/report.txt" 2>"$tmp/perf.err" ||
		bad "$name: perf report: $(head -1 "$tmp/perf.err")"
	grep -q "lookup" "$tmp/report.txt" ||
		bad "$name: perf report has no sample in lookup"
	if ! is_pipe "$f"; then
		perf report --header-only -i "$f" >"$tmp/hdr.txt" 2>&1 ||
			bad "$name: perf report --header-only fails"
		grep -q "^# event : name = qpt:crash" "$tmp/hdr.txt" ||
			bad "$name: --header-only names no qpt:crash event"
	fi
	perf_in "$f" inject -o "$tmp/inj.data" 2>"$tmp/perf.err" ||
		bad "$name: perf inject: $(head -1 "$tmp/perf.err")"
	facts "$tmp/inj.data" | cmp -s "$tmp/want.txt" - ||
		bad "$name: perf inject to a file lost the facts"
	perf_in "$f" inject -o - >"$tmp/injp.data" 2>"$tmp/perf.err" ||
		bad "$name: perf inject -o -: $(head -1 "$tmp/perf.err")"
	facts "$tmp/injp.data" | cmp -s "$tmp/want.txt" - ||
		bad "$name: perf inject to a pipe lost the facts"
	"$QPT" crash -i "$tmp/inj.data" >"$tmp/inj.txt" 2>"$tmp/crash.err" ||
		bad "$name: qpt crash on perf inject's file: $(cat "$tmp/crash.err")"
	grep -q "^faulting instruction: 0x$ip lookup+" "$tmp/inj.txt" ||
		bad "$name: qpt crash on perf inject's file: not the crash"
}

for how in whole snapshot pipe compressed; do
	opts=(-o "$tmp/c.data")
	[ $how = snapshot ] && opts+=(--snapshot)
	[ $how = compressed ] && opts+=(-z)
	if [ $how = pipe ]; then
		env -i "$QPT" record -q --emulate -o - -- "$P" >"$tmp/c.data" \
			2>/dev/null
	else
		env -i "$QPT" record -q --emulate "${opts[@]}" -- "$P" \
			>/dev/null 2>&1
	fi
	rc=$?
	[ $rc = 139 ] || bad "$how: qpt record exits $rc"
	(env -i "$P" >/dev/null 2>&1)
	want=$?
	[ "$rc" = "$want" ] || bad "$how: exit $rc, the program alone $want"
	facts "$tmp/c.data" >"$tmp/want.txt"
	[ "$(wc -l <"$tmp/want.txt")" = 1 ] &&
		grep -q "^1 11 1 " "$tmp/want.txt" ||
		bad "$how: the facts: $(cat "$tmp/want.txt")"
	check "$how" "$tmp/c.data"
	echo "$how: $(cat "$tmp/want.txt")"
done
exit $fail
