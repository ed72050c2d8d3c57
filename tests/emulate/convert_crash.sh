#!/bin/bash
# qpt convert carries the crash facts: a crash recording (the emulated
# source; a thread's NULL dereference, so other threads are listed too)
# converted to a file, plain and compressed, gives the same facts read
# without qpt (crash_feature.py) and the same qpt crash report as the
# original; converted to a pipe it cannot carry them (qpt says so; the
# pipe has no crash, perf reads it).
# Args: GT_STEP PROG_DIR
set -u
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
here=$(dirname "$0")
in=$tmp/crash.data
env -i "$QPT" record -q --emulate --snapshot -o "$in" -- "$DIR/emu_crashy" \
	thread >/dev/null 2>&1
[ $? = 139 ] || bad "the recording did not end in SIGSEGV"
python3 "$here/crash_feature.py" "$in" >"$tmp/facts.txt"
[ -s "$tmp/facts.txt" ] || bad "no crash facts in the recording"
"$QPT" crash -i "$in" --json --all-threads >"$tmp/crash.json" ||
	bad "qpt crash on the recording"
for z in "" -z; do
	out=$tmp/conv$z.data
	"$QPT" convert $z -i "$in" -o "$out" 2>"$tmp/err.txt" ||
		bad "convert $z: $(cat "$tmp/err.txt")"
	python3 "$here/crash_feature.py" "$out" | diff "$tmp/facts.txt" - ||
		bad "convert $z: the facts differ"
	"$QPT" crash -i "$out" --json --all-threads | diff "$tmp/crash.json" - ||
		bad "convert $z: qpt crash differs"
	perf report --header-only -i "$out" >/dev/null 2>&1 ||
		bad "convert $z: perf cannot read it"
done
"$QPT" convert -i "$in" -o - >"$tmp/pipe.data" 2>"$tmp/err.txt" ||
	bad "convert to a pipe: $(cat "$tmp/err.txt")"
grep -q "cannot travel in a pipe" "$tmp/err.txt" ||
	bad "convert to a pipe: no word of the crash facts"
! "$QPT" crash -i "$tmp/pipe.data" >/dev/null 2>&1 ||
	bad "convert to a pipe: a crash in the pipe"
perf_in "$tmp/pipe.data" script >/dev/null 2>&1 || bad "perf reads no pipe"
[ $fail = 0 ] && echo "ok: $(wc -l <"$tmp/facts.txt") crash entries" \
	"carried, the same report"
exit $fail
