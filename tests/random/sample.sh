#!/bin/bash
# The CI-sized sample of the random-program campaign (campaign.sh): random
# assembly programs of fixed seeds (four of them with an interval timer)
# and two csmith programs (one build each, csmith where installed), each
# checked by check.sh against the single-step ground truth: output as
# without qpt, the fast and step engines' flows alike by perf and by qpt
# decode, and both as gt_step's.  Every program must be compared (none
# skipped) and the fast engine must have run loops natively.
# Args: GT_STEP
GT=$1
here=$(dirname "$0")
# shellcheck source=tests/emulate/common.sh
. "$here/../emulate/common.sh"
command -v gcc >/dev/null || { echo "no gcc: skip"; exit 77; }
bash "$here/asm.sh" "$GT" "$tmp/work" $(seq 1 18) >"$tmp/log"
want=18
if command -v csmith >/dev/null; then
	RANDOM_GT=all RANDOM_BUILDS=O1s bash "$here/csmith.sh" "$GT" \
		"$tmp/work" 5 >>"$tmp/log"
	RANDOM_GT=all RANDOM_BUILDS=O2d bash "$here/csmith.sh" "$GT" \
		"$tmp/work" 11 >>"$tmp/log"
	want=20
else
	echo "no csmith: the assembly programs only"
fi
cat "$tmp/log"
ok=$(grep -c '^ok .*ground truth' "$tmp/log")
trips=$(sed -n 's/.* (\([0-9]*\) trips).*/\1/p' "$tmp/log" |
	awk '{ t += $1 } END { print t + 0 }')
[ "$ok" -eq "$want" ] || bad "$ok of $want programs compared to the ground truth"
[ "$trips" -gt 1000 ] || bad "the fast engine ran only $trips loop trips natively"
[ "$fail" = 0 ] && echo "ok: $ok programs, $trips loop trips run natively"
exit "$fail"
