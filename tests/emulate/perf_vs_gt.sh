#!/bin/bash
# qpt record --emulate against the single-step ground truth, decoded by perf
# (and by qpt decode, libipt-based, where this build has it):
# for each test program (dynamic and static), `perf script --itrace=i0ns`
# on the recording must list, per thread, exactly the instruction addresses
# gt_step sees, and perf must report no decode error.  Both runs get the
# same environment (env -i), arguments and ASLR off, and the same pids (each
# run in a new pid namespace where the host allows it).
# Args: [--inherit] [--tsc|--timeless] [--no-perf] GT_STEP PROG_DIR CMD...
#   --inherit: children too; --tsc: TSC packets alone (-e intel_pt/tsc/u;
#   the default, as perf's, has MTC too); --timeless: no timing packets;
#   --no-perf: only qpt decode against the ground truth.
# A CMD is a program with its arguments in one word ("/bin/sh -c emu_flow");
# words naming a file in PROG_DIR stand for that file's path.
set -u
gtf="" qf="" ev="" perf=1
while [ $# -gt 0 ]; do
	case $1 in
	--inherit) gtf=-f qf=--inherit ;;
	--tsc) ev=intel_pt/mtc=0/u ;;
	--timeless) ev=intel_pt/tsc=0,mtc=0/u ;;
	--no-perf) perf="" ;;
	*) break ;;
	esac
	shift
done
GT=$1 DIR=$2
shift 2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/shell/pidns.sh
. "$(dirname "$0")/../shell/pidns.sh"

# perf's decode of recording $1 against $tmp/want, with no decode error
perf_agrees() {
	# -F sw: leaves out the crash facts' samples (qpt:crash)
	perf script -i "$1" --itrace=i0ns -F tid,ip -F sw: \
		>"$tmp/perf.txt" 2>"$tmp/perf.err"
	perf script -i "$1" --itrace=e -F tid,ip -F sw: 2>&1 |
		grep -v "^Overriding previous field" >"$tmp/errs.txt"
	awk '{ printf "%s %s\n", $1, $2 }' "$tmp/perf.txt" | by_thread \
		>"$tmp/got"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL $p: perf decode differs from ground truth ($n insns)"
		diff "$tmp/want" "$tmp/got" | head -10
		return 1
	elif grep -qi "error" "$tmp/errs.txt" "$tmp/perf.err"; then
		echo "FAIL $p: perf reports decode errors"
		grep -i error "$tmp/errs.txt" "$tmp/perf.err" | head -5
		return 1
	fi
}

for p in "$@"; do
	cmd=()
	for w in $p; do
		if [ -e "$DIR/$w" ]; then cmd+=("$DIR/$w"); else cmd+=("$w"); fi
	done
	data=$tmp/${p//[^a-z0-9_]/_}.data
	in_pidns env -i QPT_TEST=1 "$GT" $gtf "$tmp/gt.txt" -- "${cmd[@]}" \
		>/dev/null 2>&1
	in_pidns env -i QPT_TEST=1 "$QPT" record -q --emulate $qf ${ev:+-e "$ev"} \
		-o "$data" -- "${cmd[@]}" >/dev/null 2>"$tmp/rec.err"
	rc=$?
	if [ $rc -ne 0 ] && [ -s "$tmp/rec.err" ]; then
		echo "FAIL $p: qpt record exit $rc: $(cat "$tmp/rec.err")"
		fail=1
		continue
	fi
	by_thread <"$tmp/gt.txt" >"$tmp/want"
	n=$(grep -vc -- -- "$tmp/want")
	if [ -n "$perf" ] && ! perf_agrees "$data"; then
		fail=1
	elif [ "$n" -lt 1000 ]; then
		echo "FAIL $p: only $n instructions"
		fail=1
	elif "$QPT" decode --help >/dev/null 2>&1 &&
		! "$QPT" decode -i "$data" --no-sym 2>&1 | insn_ips |
			by_thread >"$tmp/qgot" ||
		! cmp -s "$tmp/want" "$tmp/qgot"; then
		echo "FAIL $p: qpt decode (libipt) differs from ground truth"
		diff "$tmp/want" "$tmp/qgot" | head -10
		fail=1
	else
		echo "ok $p: $n instructions, $(($(grep -c -- -- "$tmp/want") + 1)) threads"
	fi
done
exit $fail
