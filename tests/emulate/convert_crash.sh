#!/bin/bash
# qpt convert carries the crash facts (samples of qpt's crash event): a
# crash recording (the emulated source; a thread's NULL dereference, so
# other threads are listed too) converted to a file, plain and
# compressed, and to a pipe, gives the same facts read without qpt
# (crash_feature.py, through perf's dump) and the same qpt crash report
# as the original.  A file in the form qpt 0.1 wrote (the facts in a
# header feature, made by crash_oldform) reads the same (but for the
# unwind of the stack, which it does not keep), and converted (to a file
# or a pipe) its facts become samples.
# Args: GT_STEP PROG_DIR CRASH_OLDFORM
set -u
GT=$1 DIR=$2 OLDFORM=$3
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

# same NAME FILE: its facts (by perf's dump, through a pipe for a pipe-mode
# file) and qpt crash's report are the recording's
same() {
	local name=$1 f=$2
	if is_pipe "$f"; then
		# shellcheck disable=SC2002 # perf needs a real pipe
		cat "$f" | python3 "$here/crash_feature.py" -
	else
		python3 "$here/crash_feature.py" "$f"
	fi | diff "$tmp/facts.txt" - >/dev/null || bad "$name: the facts differ"
	"$QPT" crash -i "$f" --json --all-threads >"$tmp/c.json"
	if [ "${3:-}" = old ]; then # no stack kept: no unwind of it
		nounwind "$tmp/crash.json" >"$tmp/want.json"
		nounwind "$tmp/c.json" | diff "$tmp/want.json" - ||
			bad "$name: qpt crash differs"
	else
		diff "$tmp/crash.json" "$tmp/c.json" ||
			bad "$name: qpt crash differs"
	fi
}
nounwind() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(json.dumps({k: v for k, v in j.items() if not k.startswith("unwound")}))' "$1"
}
for z in "" -z; do
	out=$tmp/conv$z.data
	"$QPT" convert $z -i "$in" -o "$out" 2>"$tmp/err.txt" ||
		bad "convert $z: $(cat "$tmp/err.txt")"
	same "convert $z" "$out"
	perf report --header-only -i "$out" >/dev/null 2>&1 ||
		bad "convert $z: perf cannot read it"
done
"$QPT" convert -i "$in" -o - >"$tmp/pipe.data" 2>"$tmp/err.txt" ||
	bad "convert to a pipe: $(cat "$tmp/err.txt")"
same "convert to a pipe" "$tmp/pipe.data"

# the form of qpt 0.1: the same facts and report; converted, samples
"$OLDFORM" "$in" "$tmp/old.data" || bad "crash_oldform failed"
python3 "$here/crash_feature.py" "$tmp/old.data" >"$tmp/old.txt"
grep -q . "$tmp/old.txt" && ! perf report -D -i "$tmp/old.data" 2>/dev/null |
	grep -q "qpt:crash" || bad "old form: not the feature alone"
same "old form" "$tmp/old.data" old
"$QPT" convert -i "$tmp/old.data" -o - >"$tmp/oldpipe.data" 2>"$tmp/err.txt" ||
	bad "old form to a pipe: $(cat "$tmp/err.txt")"
same "old form to a pipe" "$tmp/oldpipe.data" old
"$QPT" convert -i "$tmp/old.data" -o "$tmp/oldconv.data" ||
	bad "old form converted"
same "old form converted" "$tmp/oldconv.data" old
[ $fail = 0 ] && echo "ok: $(wc -l <"$tmp/facts.txt") crash entries" \
	"carried, the same report"
exit $fail
