#!/bin/bash
# qpt record --emulate against the single-step ground truth, decoded by perf
# (and by qpt decode, libipt-based, where this build has it):
# for each test program (dynamic and static), `perf script --itrace=i0ns`
# on the recording must list, per thread, exactly the instruction addresses
# gt_step sees, and perf must report no decode error.  Both runs get the
# same environment (env -i), arguments and ASLR off.
# Args: [--inherit] GT_STEP PROG_DIR PROG...  (--inherit: children too)
set -u
gtf="" qf=""
if [ "$1" = --inherit ]; then
	gtf=-f qf=--inherit
	shift
fi
GT=$1 DIR=$2
shift 2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"

# per thread (ordered by tid), one address per line, threads separated
by_thread() {
	awk '{ print $1, NR, $2 }' | sort -k1,1n -k2,2n |
		awk '$1 != t { if (NR > 1) print "--"; t = $1 } { print $3 }'
}

for p in "$@"; do
	prog=$DIR/$p
	env -i QPT_TEST=1 "$GT" $gtf "$tmp/gt.txt" -- "$prog" >/dev/null 2>&1
	env -i QPT_TEST=1 "$QPT" record -q --emulate $qf -o "$tmp/$p.data" \
		-- "$prog" >/dev/null 2>"$tmp/rec.err"
	rc=$?
	if [ $rc -ne 0 ] && [ -s "$tmp/rec.err" ]; then
		echo "FAIL $p: qpt record exit $rc: $(cat "$tmp/rec.err")"
		fail=1
		continue
	fi
	perf script -i "$tmp/$p.data" --itrace=i0ns -F tid,ip \
		>"$tmp/perf.txt" 2>"$tmp/perf.err"
	perf script -i "$tmp/$p.data" --itrace=e -F tid,ip \
		>"$tmp/errs.txt" 2>&1
	by_thread <"$tmp/gt.txt" >"$tmp/want"
	awk '{ printf "%s %s\n", $1, $2 }' "$tmp/perf.txt" | by_thread \
		>"$tmp/got"
	n=$(grep -vc -- -- "$tmp/want")
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL $p: perf decode differs from ground truth ($n insns)"
		diff "$tmp/want" "$tmp/got" | head -10
		fail=1
	elif grep -qi "error" "$tmp/errs.txt" "$tmp/perf.err"; then
		echo "FAIL $p: perf reports decode errors"
		grep -i error "$tmp/errs.txt" "$tmp/perf.err" | head -5
		fail=1
	elif [ "$n" -lt 1000 ]; then
		echo "FAIL $p: only $n instructions"
		fail=1
	elif "$QPT" decode --help >/dev/null 2>&1 &&
		! "$QPT" decode -i "$tmp/$p.data" --no-sym 2>&1 |
			awk '$3 == "insn:" { print $1, $2 }' | by_thread |
			cmp -s "$tmp/want" -; then
		echo "FAIL $p: qpt decode (libipt) differs from ground truth"
		fail=1
	else
		echo "ok $p: $n instructions, $(($(grep -c -- -- "$tmp/want") + 1)) threads"
	fi
done
exit $fail
