#!/bin/bash
# Source lines against two oracles, on an emulated recording of a small
# program built with -g (its argument; not PIE, so its addresses are its
# link-time addresses):
#  - perf script --itrace=i0ns -F ip,srcline: the line of every
#    instruction of the run, the program's and ld.so's and libc's (their
#    lines from the debug files by build-id where libc6-dbg is installed,
#    for perf and qpt alike), as base name:line (perf's form);
#  - addr2line -e PROG ADDR (binutils, without -i: the innermost line, the
#    one the line table has; perf's srcline is also the innermost) for each
#    address of the program that ran, as the full path:line.
# qpt decode --insn --srcline --json gives "srcline" for each instruction.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
PROG="$1"
[ -x "$PROG" ] || { echo "skip: no test program"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
command -v addr2line >/dev/null 2>&1 || { echo "skip: no addr2line"; exit 77; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
	-- "$PROG" >/dev/null 2>&1 || fail "qpt record --emulate"
"$QPT" decode --insn --srcline --json -i "$tmp/rec.data" >"$tmp/json" ||
	fail "qpt decode --srcline"
# ip and srcline ("-" where there is none) of each instruction
grep '^{"ip"' "$tmp/json" | sed -e 's/^{"ip":"0x\([0-9a-f]*\)".*/\1 &/' \
	-e 's/ {.*"srcline":"\([^"]*\)".*/ \1/' -e 's/ {.*/ -/' >"$tmp/qpt"
[ -s "$tmp/qpt" ] || fail "qpt printed no instructions"
# perf: an ip line, then the srcline line when it has one ("FILE:0",
# "??:0" and "DSO[OFF]" when addr2line knew no line)
perf script -i "$tmp/rec.data" --itrace=i0ns -F ip,srcline 2>/dev/null |
	awk '/^ *[0-9a-f]+$/ { if (ip != "") print ip, "-"; ip = $1; next }
	     { s = $1; if (s ~ /:0$/ || s ~ /\[[0-9a-f]+\]$/) s = "-"
	       print ip, s; ip = "" }
	     END { if (ip != "") print ip, "-" }' >"$tmp/perf"
n=$(wc -l <"$tmp/perf")
[ "$n" -eq "$(wc -l <"$tmp/qpt")" ] ||
	fail "instruction counts: perf $n, qpt $(wc -l <"$tmp/qpt")"
awk '{ s = $2; if (s != "-") sub(".*/", "", s); print $1, s }' "$tmp/qpt" |
	paste -d' ' "$tmp/perf" - >"$tmp/both"
# The line numbers agree everywhere.  binutils' addr2line (perf's)
# names the compile unit's file for the lines of a file it includes
# (dl-find_object.h's inline functions, misc/sbrk.c in dl-sbrk.c), where
# libdw, llvm-symbolizer and objdump --dwarf=decodedline name the
# included file: there llvm-symbolizer is the referee.
awk '$2 != $4 { split($2, p, ":"); split($4, q, ":")
		if (p[2] != q[2]) print }' "$tmp/both" >"$tmp/bad"
[ ! -s "$tmp/bad" ] || { head "$tmp/bad"; fail "line numbers differ from perf's"; }
awk '$2 != $4' "$tmp/both" >"$tmp/names"
if [ -s "$tmp/names" ]; then
	command -v llvm-symbolizer-14 >/dev/null 2>&1 ||
		fail "file names differ from perf's, no llvm-symbolizer-14 to judge"
	# executable mappings: start, end, file offset, file
	perf script -i "$tmp/rec.data" --show-mmap-events 2>/dev/null |
		sed -n 's/.*MMAP2 [0-9/]*: \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) @ \(0x[0-9a-f]*\|0\) .*\]: r-xp \(\/.*\)/\1 \2 \3 \4/p' \
		>"$tmp/maps"
	while read -r ip _; do
		a=$((16#$ip)) obj="none 0x0"
		while read -r lo len off f; do
			lo=$((16#$lo)) len=$((16#$len))
			[ "$a" -ge "$lo" ] && [ "$a" -lt $((lo + len)) ] &&
				obj=$(printf '%s 0x%x' "$f" $((a - lo + off)))
		done <"$tmp/maps"
		echo "$obj"
	done <"$tmp/names" |
		llvm-symbolizer-14 --functions=none --no-inlines |
		awk 'NF { sub(":[0-9]+$", ""); sub(".*/", ""); print }' |
		paste -d' ' "$tmp/names" - |
		awk '$4 != $5 { print; bad++ } END { exit bad > 0 }' ||
		fail "file names differ from perf's and from llvm-symbolizer's"
fi
awk '$4 != "-" { known++ }
     END { printf "%d instructions compared with perf, %d with a line\n", NR, known }' "$tmp/both"
echo "$(wc -l <"$tmp/names") file names judged by llvm-symbolizer"
# the text form: perf's "  FILE:LINE" line after the instruction's
"$QPT" decode --insn --srcline --no-asm -i "$tmp/rec.data" |
	awk '/ insn: / { if (ip != "") print ip, "-"; ip = $3; next }
	     /^  [^ ]+:[0-9]+$/ { print ip, $1; ip = "" }
	     END { if (ip != "") print ip, "-" }' | cmp -s - "$tmp/qpt" ||
	fail "the text form's lines differ from the JSON's"
# addr2line: each address of the program that ran
# (linked at 0x400000, its code in the next pages)
grep '^40[0-9a-f]\{4\} ' "$tmp/qpt" | sort -u >"$tmp/prog"
[ -s "$tmp/prog" ] || fail "no instruction of the program"
grep -q 'srcprog\.c:' "$tmp/prog" || fail "no source line in the program"
cut -d' ' -f1 "$tmp/prog" | sed 's/^/0x/' | addr2line -e "$PROG" |
	sed -e 's/ (discriminator [0-9]*)$//' -e 's/^.*:[0?]$/-/' |
	paste -d' ' <(cut -d' ' -f1 "$tmp/prog") - >"$tmp/a2l"
cmp -s "$tmp/prog" "$tmp/a2l" || {
	diff "$tmp/a2l" "$tmp/prog" | head -20
	fail "source lines differ from addr2line's"
}
echo "$(wc -l <"$tmp/prog") addresses of the program compared with addr2line"
echo "ok"
