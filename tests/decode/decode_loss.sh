#!/bin/bash
# Decoding past lost trace as perf does.  An emulated recording of
# emu_burst (branchy code: a qsort callback, recursion, a binary search)
# gets losses made on purpose (mkloss.py: the kernel's TRUNCATED AUX
# records, the bytes after each cut resuming at a PSB as hardware does, or
# in the middle of a packet), at random places from fixed seeds.  qpt must
# report each loss perf reports and no error that perf does not also see;
# between two losses its decode must be a run of perf's decode of the same
# recording without losses, the runs in order; -j2 decodes to -j1's lines.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
E="${QPT_BUILD:-}/tests/emulate"
[ -x "$E/emu_burst" ] || { echo "skip: no emulate test programs"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")

env -i "$QPT" record -q --emulate -o "$tmp/rec.data" -- "$E/emu_burst" \
	1000 3 >/dev/null 2>"$tmp/err" ||
	{
		grep -q "cannot trace" "$tmp/err" && exit 77
		fail "record: $(cat "$tmp/err")"
	}
perf script -i "$tmp/rec.data" --itrace=i0ns -F ip 2>/dev/null |
	awk '{ print $1 }' >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -gt 100000 ] || fail "perf decodes too little"

n=0
for seed in 1 2 3 4; do
	for mode in psb any; do
		python3 "$here/mkloss.py" "$tmp/rec.data" "$tmp/cut.data" \
			"$seed" 5 "$mode" >"$tmp/cuts" ||
			fail "mkloss $seed $mode"
		perf script -i "$tmp/cut.data" --itrace=e 2>/dev/null |
			grep 'instruction trace error' >"$tmp/perf.err"
		plost=$(grep -c 'Lost trace data' "$tmp/perf.err")
		pother=$(grep -vc 'Lost trace data' "$tmp/perf.err")
		"$QPT" decode -i "$tmp/cut.data" --no-sym --no-asm \
			>"$tmp/qpt.out" 2>"$tmp/qpt.err" ||
			fail "$seed $mode: qpt decode: $(head -1 "$tmp/qpt.err")"
		# -j2 cuts the stretches between losses into parts on two
		# threads: -j1's lines, times and all
		"$QPT" decode -j2 -i "$tmp/cut.data" --no-sym --no-asm \
			2>/dev/null >"$tmp/j2.out"
		cmp -s "$tmp/qpt.out" "$tmp/j2.out" ||
			fail "$seed $mode: -j2 differs from -j1"
		qlost=$(grep -c '\[lost at' "$tmp/qpt.out")
		qother=$(grep -c '\[error' "$tmp/qpt.out")
		[ "$plost" -gt 0 ] || fail "$seed $mode: perf sees no loss"
		[ "$qlost" -eq "$plost" ] ||
			fail "$seed $mode: qpt tells $qlost losses, perf $plost"
		# perf decodes on where the bytes after a cut do not continue
		# the flow, and errs; qpt starts again at the next PSB
		[ "$qother" -eq 0 ] ||
			fail "$seed $mode: qpt errors ($pother from perf):" \
				"$(grep '\[error' "$tmp/qpt.out" | head -3)"
		awk '/\[lost at/ { print "--"; next }
		     { for (i = 2; i <= NF; i++) if ($i == "insn:") {
			print $(i - 1); next } }' "$tmp/qpt.out" >"$tmp/got"
		python3 "$here/runs_of.py" "$tmp/want" "$tmp/got" 0.3 \
			>"$tmp/runs" || fail "$seed $mode: $(tail -1 "$tmp/runs")"
		echo "ok: seed $seed $mode: $qlost losses, perf's other errors" \
			"$pother, qpt's 0; $(grep -c piece "$tmp/runs") pieces"
		n=$((n + 1))
	done
done
echo "ok: $n files"
