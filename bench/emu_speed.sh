#!/bin/bash
# Speed of the emulated Intel PT source against a bare single-step loop on
# the same program in the same run: instructions per second of
# `qpt record --emulate` (stepping, classifying, encoding, the simulated
# AUX ring, the writer) over those of gt_step -c (PTRACE_SINGLESTEP, wait,
# read RIP, nothing else).  Goal: ratio >= 0.9.
#   bench/emu_speed.sh [BUILD_DIR [PROGRAM [ROUNDS]]]
# Each round runs both back to back; the median of the rounds' ratios is
# reported (the machine may be shared: pairs cancel slow phases).
set -eu
B=${1:-build}
P=${2:-$B/tests/emulate/emu_flow}
R=${3:-3}
QPT=$B/cli/qpt GT=$B/tests/emulate/emu_gt_step
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
bare_run() { env -i "$GT" -c "$tmp/count" -- "$P" >/dev/null; }
emu_run() {
	env -i "$QPT" record --emulate -o "$tmp/p.data" -- "$P" >/dev/null \
		2>"$tmp/sum"
}
ratios=""
for r in $(seq "$R"); do
	# alternate which goes first, so a load change favours neither
	if [ $((r % 2)) -eq 1 ]; then
		t0=$(now); bare_run; t1=$(now); emu_run; t2=$(now)
		db=$(echo "$t0 $t1" | awk '{ print $2 - $1 }')
		de=$(echo "$t1 $t2" | awk '{ print $2 - $1 }')
	else
		t0=$(now); emu_run; t1=$(now); bare_run; t2=$(now)
		de=$(echo "$t0 $t1" | awk '{ print $2 - $1 }')
		db=$(echo "$t1 $t2" | awk '{ print $2 - $1 }')
	fi
	bare=$(awk '{ print $2 }' "$tmp/count") # completed steps
	emu=$(sed -n 's/.*--emulate: \([0-9]*\) instructions.*/\1/p' "$tmp/sum")
	[ -n "$emu" ] || { cat "$tmp/sum"; exit 1; }
	read -r rb re ra <<<"$(echo "$bare $db $emu $de" | awk '{
		b = $1 / $2; e = $3 / $4
		printf "%.0f %.0f %.3f", b, e, e / b }')"
	echo "round $r: bare single-step $rb insn/s, qpt record --emulate $re insn/s, ratio $ra"
	ratios="$ratios $ra"
done
echo "$ratios" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END {
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "median ratio of %d paired rounds: %.3f (goal >= 0.9)\n", NR, m }'
