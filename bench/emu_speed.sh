#!/bin/bash
# Speed of the emulated Intel PT source, against its peers measured in the
# same run on the same programs (a branchy one: qsort with a callback,
# recursion, binary search; a loop-heavy one: a byte checksum loop, memcpy,
# a run-length compression loop):
#   - qpt record --emulate (the breakpoint engine), instructions/s;
#   - qpt record --emulate=step (every instruction single-stepped);
#   - gt_step -c, a bare PTRACE_SINGLESTEP loop (step, wait, read RIP);
#   - bp_loop, a bare breakpoint loop (int3, wait, read the registers,
#     continue): its stops/s times the program's instructions per branch
#     (from the decode of the recording) is the floor of a design that
#     stops once per branch (the engine stops less often: jumps whose
#     ways run to different stops, and counted loops, run natively; it
#     prints its instructions per stop);
#   - the breakpoint engine unbound (--cpu-unbound): every other peer runs
#     on one CPU, as qpt record --emulate binds itself and the command by
#     default (a ptrace stop between two CPUs costs several times more).
# It also probes PTRACE_SINGLEBLOCK (bp_loop --block), which the engine
# would use where the CPU honours the branch trap flag.
# Goals: the breakpoint engine >= 10x the single-step mode and >= 300,000
# instructions/s on both programs, within 1.5x of the floor.
#   bench/emu_speed.sh [BUILD_DIR [ROUNDS]]
# BUILD_DIR holds the tests and bench programs (default: build).  Each
# round runs every peer once, in an order that rotates (the machine may be
# shared: a slow phase falls on each in turn); the medians are reported.
set -eu
B=${1:-build}
R=${2:-3}
QPT=$B/cli/qpt GT=$B/tests/emulate/emu_gt_step BP=$B/bench/bp_loop
for f in "$QPT" "$GT" "$BP" "$B/bench/bench_branchy" "$B/bench/bench_loopy"; do
	[ -x "$f" ] || { echo "missing $f (build the tests and bench)" >&2
			 exit 1; }
done
# every peer on one CPU (the last this shell may use), as qpt record
# --emulate binds itself and the command by default; and the breakpoint
# engine once unbound (--cpu-unbound), to show what binding is worth
CPU=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')
PIN="taskset -c $CPU"
echo "bound to CPU $CPU"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END {
	print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# insn/s of one peer on "PROG ARG": prints the rate
peer() { # NAME PROG ARG
	local t0 t1 n
	case $1 in
	fast | step | unbound)
		t0=$(now)
		if [ "$1" = unbound ]; then
			env -i "$QPT" record --emulate --cpu-unbound \
				-o "$tmp/$1.data" -- "$2" "$3" >/dev/null \
				2>"$tmp/sum"
		else
			$PIN env -i "$QPT" record --emulate="$1" \
				-o "$tmp/$1.data" -- "$2" "$3" >/dev/null \
				2>"$tmp/sum"
		fi
		t1=$(now)
		n=$(sed -n 's/.*--emulate: \([0-9]*\) instructions.*/\1/p' \
			"$tmp/sum")
		[ -n "$n" ] || { cat "$tmp/sum" >&2; exit 1; }
		cp "$tmp/sum" "$tmp/$1.sum" ;;
	bare)
		t0=$(now)
		$PIN env -i "$GT" -c "$tmp/count" -- "$2" "$3" >/dev/null
		t1=$(now)
		n=$(awk '{ print $2 }' "$tmp/count") ;;
	esac
	rate "$n" "$t0" "$t1"
}

# instructions per branch (jumps, calls, returns, taken or not) of the
# breakpoint engine's recording, from qpt decode's disassembly
per_branch() {
	"$QPT" decode -i "$tmp/fast.data" --no-sym 2>/dev/null |
		awk '/ insn: / { n++; for (i = 1; i <= NF; i++) if ($i ~ /^(j[a-z]+|call|ret|loop[a-z]*)$/) { b++; break } }
		     END { printf "%.2f", b ? n / b : 0 }'
}

# instructions per ptrace stop of the breakpoint engine (its summary)
per_stop() {
	sed -n 's/.*--emulate: \([0-9]*\) instructions.*, \([0-9]*\) stops,.*/\1 \2/p' \
		"$tmp/fast.sum" | awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }'
}

bp_stops() {
	$PIN "$BP" 100000 | sed -n 's/.*: \([0-9]*\) stops\/s/\1/p'
}

# the branch trap flag would stop once per taken branch without
# breakpoints: where the CPU honours it
"$BP" --block
for w in "branchy 1" "loopy 2"; do
	set -- $w
	prog=$B/bench/bench_$1
	fast="" step="" bare="" stops="" unbound=""
	for r in $(seq "$R"); do
		for p in $(echo "fast step bare bp unbound" | awk -v r="$r" '{
			for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }'); do
			case $p in
			bp) stops="$stops $(bp_stops)" ;;
			*) eval "$p=\"\$$p \$(peer $p $prog $2)\"" ;;
			esac
		done
		echo "$1 round $r: fast$(echo "$fast" | awk '{ print " " $NF }') step$(echo "$step" | awk '{ print " " $NF }') bare-step$(echo "$bare" | awk '{ print " " $NF }') fast-unbound$(echo "$unbound" | awk '{ print " " $NF }') insn/s, bp-loop$(echo "$stops" | awk '{ print " " $NF }') stops/s"
	done
	ipb=$(per_branch) ips=$(per_stop)
	mf=$(echo "$fast" | median) ms=$(echo "$step" | median)
	mb=$(echo "$bare" | median) mstops=$(echo "$stops" | median)
	mu=$(echo "$unbound" | median)
	awk -v w="$1" -v f="$mf" -v s="$ms" -v b="$mb" -v st="$mstops" \
		-v ipb="$ipb" -v ips="$ips" -v u="$mu" 'BEGIN {
		floor = st * ipb
		printf "%s: fast %.0f insn/s; step %.0f; bare single-step %.0f; "\
		       "bare breakpoint %.0f stops/s x %.2f insns/branch = "\
		       "floor %.0f insn/s\n", w, f, s, b, st, ipb, floor
		printf "%s: fast/step %.1fx, fast/bare-step %.1fx (goal >= 10), "\
		       "fast %s 300,000 insn/s, floor/fast %.2f (goal <= 1.5)\n",
		       w, f / s, f / b, (f >= 300000 ? ">=" : "<"), floor / f
		printf "%s: the breakpoint engine stops once per %.2f "\
		       "instructions (once per branch: %.2f)\n", w, ips, ipb
		printf "%s: unbound (--cpu-unbound) fast %.0f insn/s: bound to "\
		       "one CPU %.1fx faster\n", w, u, f / u }'
done
