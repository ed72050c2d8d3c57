#!/bin/bash
# Hosts that swallow single-step traps (the stop after CPUID comes one
# instruction late under some hypervisors), simulated here on any host
# (inject_record): qpt record --emulate's file must still decode, in perf
# and in qpt decode, to exactly the instructions of the ground truth
# (gt_step on this host) after whichever kind the lost trap followed: a Jcc
# (taken and not), an indirect jump (jump tables), a direct and an indirect
# call, a return, a plain instruction, CPUID.  Where two traps in a row are
# lost and the second followed a Jcc, what ran cannot be told: the trace
# has an overflow there, perf reports one "Overflow packet" error per gap,
# and the decode is the ground truth less those two instructions.  On a
# host that swallows traps itself (gt_step says how many it recovered),
# the cases that add a swallow after CPUID are left out: the host's and
# the simulated one fall on the same trap, two lost in a row where one
# was planned (there test_emu_decode's test_cpuid is the real thing).
# Args: GT_STEP PROG_DIR INJECT_RECORD
GT=$1 DIR=$2 INJ=$3
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1

# the decoded lines (GAP where an overflow was) against the ground truth:
# equal, but each GAP stands for two instructions; prints the gaps
match() {
	awk 'NR == FNR { w[++n] = $0; next }
	     $0 == "GAP" { i += 2; g++; next }
	     { if (w[++i] != $0) { print "at " i ": " $0 ", want " w[i]
				   bad = 1; exit 1 } }
	     END { if (bad) exit 1
		   if (i != n) { print i " of " n; exit 1 }
		   print g + 0 }' "$1" "$2"
}

perf_lines() {
	perf script -i "$1" --itrace=i0nse -F tid,ip 2>/dev/null |
		awk '/Overflow packet/ { for (i = 1; i < NF; i++)
					   if ($i == "tid") print $(i + 1), "GAP"
					 next }
		     /error/ { print "ERROR", $0; next }
		     { print $1, $2 }'
}

qpt_lines() {
	"$QPT" decode -i "$1" --no-sym 2>&1 |
		awk '{ for (i = 2; i <= NF; i++) {
			if ($i == "insn:") { print $1, $(i - 1); next }
			if ($i == "[overflow") { print $1, "GAP"; next } } }'
}

check() { # NAME PROG KINDS [-2]
	local name=$1 prog=$DIR/$2 kinds=$3 twice=${4:-} out n gaps got host
	env -i QPT_TEST=1 "$GT" gt.txt -- "$prog" >/dev/null 2>gt.err
	host=$(awk '/lost single-step traps/ { print $2 }' gt.err)
	if [ -n "$host" ] && [ "$kinds" = cpuid ]; then
		echo "$name: skipped: this host swallows $host traps itself"
		return
	fi
	by_thread <gt.txt >want
	n=$(grep -vc -- -- want)
	# shellcheck disable=SC2086
	if ! env -i QPT_TEST=1 "$INJ" "$kinds" $twice "$name.data" -- \
		"$prog" >/dev/null 2>rec.err; then
		bad "$name: inject_record: $(cat rec.err)"
		return
	fi
	out=$(grep '^swallowed' rec.err)
	gaps=$(echo "$out" | awk '{ print $4 }')
	[ "$(echo "$out" | awk '{ print $2 }')" -gt 0 ] ||
		bad "$name: no trap swallowed"
	[ -z "$twice" ] || [ "$gaps" -gt 0 ] || bad "$name: no gap made"
	perf_lines "$name.data" >perf.txt
	if grep -q ERROR perf.txt; then
		bad "$name: perf: $(grep -m1 ERROR perf.txt)"
	elif ! got=$(by_thread <perf.txt | match want -); then
		bad "$name: perf decode != ground truth: $got"
	elif [ "$got" != "$gaps" ]; then
		bad "$name: perf shows $got overflows, want $gaps"
	fi
	qpt_lines "$name.data" | by_thread >qpt.txt
	if ! got=$(match want qpt.txt); then
		bad "$name: qpt decode != ground truth: $got"
	elif [ "$got" != "$gaps" ]; then
		bad "$name: qpt decode shows $got overflows, want $gaps"
	fi
	echo "$name: $n instructions, $out"
}

# static programs (short start-up); the dynamic one for PLT jumps, the vDSO
check jcc emu_flow_static jcc
check jmp-ind emu_flow_static jmp-ind
check call emu_flow_static call
check call-ind emu_flow_static call-ind
check ret emu_flow_static ret
check other emu_flow_static other
check all emu_flow all
check cpuid emu_cpuid_static cpuid
check threads emu_threads_static all
check gaps emu_flow_static other -2
check chain emu_cpuid_static cpuid -2
exit $fail
