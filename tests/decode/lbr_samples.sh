#!/bin/bash
# qpt lbr on a real --call-graph lbr recording (Coffee Lake, Linux 5.4):
# the call stacks of perf script (expected/perf-script.txt.gz, and perf
# itself where installed) sample for sample (lbr_samples.py), the same
# with --stitch (nothing to stitch: the stacks fit the LBR, and the file
# has no hw_idx); qpt dump's and qpt info's views of its samples and event
# are perf's; a file without branch stacks is refused in one line; with
# --srcline, each frame's source line is perf script -F +srcline's.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
D=$TRACES/lbr-callstack-perfparser
[ -d "$D" ] || { echo "skip: no $D"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the recorded path of the binary, under a sysroot (a copy: the sysroot
# resolves as if it were /, where a symlink to $D would lead nowhere)
p=home/dknysh/kdab-disasm-fraames/hotspot/3rdparty/perfparser/tests/auto/perfdata/vector_static_gcc
mkdir -p "$tmp/root/$p"
cp "$D/vector_static_gcc_v9.1.0" "$tmp/root/$p/"
here=$(dirname "$0")

zcat "$D/expected/perf-script.txt.gz" >"$tmp/perf.txt"
for mode in "" --stitch; do
	"$QPT" lbr -i "$D/perf.lbr.data" --sysroot "$tmp/root" $mode \
		>"$tmp/qpt.txt" || fail "qpt lbr $mode"
	"$QPT" lbr -i "$D/perf.lbr.data" --json $mode >"$tmp/qpt.json" ||
		fail "qpt lbr --json $mode"
	python3 "$here/lbr_samples.py" "$tmp/perf.txt" "$tmp/qpt.txt" \
		"$tmp/qpt.json" 0x400000 || fail "qpt lbr $mode != perf script"
	grep -q stitched "$tmp/qpt.txt" && fail "stitched frames in $mode"
done
if command -v perf >/dev/null; then
	perf script -i "$D/perf.lbr.data" --symfs="$tmp/root" \
		>"$tmp/perf-now.txt" 2>/dev/null
	python3 "$here/lbr_samples.py" "$tmp/perf-now.txt" "$tmp/qpt.txt" \
		"$tmp/qpt.json" 0x400000 || fail "qpt lbr != this perf"
	# --srcline: each frame's line as perf script -F +srcline prints it
	# after the frame (perf shows the file's base name; the binary's
	# DWARF), frame by frame; perf's "DSO[ADDR]" and "FILE:0" say it
	# knows no line
	srclines() { awk '/^  [^ ]+$/ && $1 !~ /(:0|\[[0-9a-f]+\])$/ {
				sub(".*/", "", $1); print prev, "=>", $1 }
			  { prev = $0 }'; }
	perf script -i "$D/perf.lbr.data" --symfs="$tmp/root" -F +srcline \
		2>/dev/null | srclines >"$tmp/perf.src"
	"$QPT" lbr -i "$D/perf.lbr.data" --sysroot "$tmp/root" --srcline |
		srclines >"$tmp/qpt.src"
	[ -s "$tmp/perf.src" ] || fail "perf printed no source lines"
	diff "$tmp/perf.src" "$tmp/qpt.src" ||
		fail "qpt lbr --srcline != perf script -F +srcline"
	"$QPT" lbr -i "$D/perf.lbr.data" --sysroot "$tmp/root" --srcline \
		--json | grep -q '"srclines":\[.*"/.*/stl_vector.h:1755"' ||
		fail "qpt lbr --srcline --json: no srclines"
fi

# qpt dump's callchain and branch stack lines (perf report -D's, but for
# TIME_CONV's, which qpt prints as fields), qpt info's event line
diff <(zcat "$D/expected/perf-report-D.txt.gz" | grep '^\.\.\.' |
	grep -v '^\.\.\. Time') <("$QPT" dump -i "$D/perf.lbr.data" |
	grep '^\.\.\.') || fail "qpt dump's sample lines differ from perf -D"
diff <(zcat "$D/expected/header.txt.gz" | grep '^# event :') \
	<("$QPT" info -i "$D/perf.lbr.data" | grep '^# event :') ||
	fail "qpt info's event line differs from perf's"

# no branch stack: one line naming the file, exit 1
q=$TRACES/quipper-intel-pt-4.14/perf.data.intel_pt-4.14
if [ -f "$q" ]; then
	"$QPT" lbr -i "$q" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "no branch stack: exit $rc"
	if [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
		! grep -q "^qpt: $q: no event" "$tmp/err"; then
		fail "no branch stack: $(cat "$tmp/err")"
	fi
	[ -s "$tmp/out" ] && fail "no branch stack: output"
fi
"$QPT" lbr -i "$tmp/none" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ] || ! grep -q "^qpt: $tmp/none: " "$tmp/err"; then
	fail "missing file: exit $rc"
fi

# qpt inject's failures: one line naming the file at fault, exit 1, no
# output left behind
one() { # FILE CMD...: exit 1, one line "qpt: FILE: ..."
	local f=$1
	shift
	"$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
		! grep -q "^qpt: $f: " "$tmp/err"; then
		fail "$*: exit $rc: $(cat "$tmp/err")"
	fi
}
one "$D/perf.lbr.data" "$QPT" inject --lbr-callstack -i "$D/perf.lbr.data" \
	-o "$tmp/o.data"
[ -e "$tmp/o.data" ] && fail "inject left its output"
one "$tmp/none" "$QPT" inject --lbr-callstack -i "$tmp/none" -o "$tmp/o.data"
one "$tmp/no/o.data" "$QPT" inject --lbr-callstack -i "$D/perf.lbr.data" \
	-o "$tmp/no/o.data"
"$QPT" inject -i "$D/perf.lbr.data" -o "$tmp/o.data" 2>/dev/null
[ $? -eq 2 ] || fail "inject without --lbr-callstack"
"$QPT" inject --lbr-callstack=0 -o "$tmp/o.data" 2>/dev/null
[ $? -eq 2 ] || fail "inject --lbr-callstack=0"
"$QPT" inject --lbr-callstack --lbr-depth 1025 -o "$tmp/o.data" 2>/dev/null
[ $? -eq 2 ] || fail "inject --lbr-depth 1025"
echo ok
