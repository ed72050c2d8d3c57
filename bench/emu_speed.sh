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
# The QEMU column (where qemu-x86_64 is; QEMU=0 leaves it out): qpt
# record --emulate=qemu against qemu-x86_64 alone (no plugin) on the same
# programs, each run long enough that QEMU's start does not count
# (branchy 200, loopy 400), and on `xz -1` of 4 MB of text; its rate
# against the breakpoint engine's; its bytes of trace per instruction
# against the breakpoint engine's on the same run (branchy 1, loopy 2);
# qpt decode's instructions/s on both recordings; `xz -T2 -1` of the text
# recorded (wall time).  Goals: >= 100M instructions/s recorded (moonshot
# 300M: within 4x of QEMU alone), >= 50x the breakpoint engine, xz -T2 in
# under a minute, bytes per instruction within 1.2x.
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
now() { echo "$EPOCHREALTIME"; } # bash's clock: no exec of its own timed
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
# breakpoints: where the CPU honours it (ONLY=qemu: the QEMU column only)
[ "${ONLY:-}" = qemu ] || "$BP" --block
for w in "branchy 1" "loopy 2"; do
	[ "${ONLY:-}" = qemu ] && break
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

# ---- QEMU user mode (--emulate=qemu) ----
QEMU_BIN=$(command -v qemu-x86_64) || QEMU=0
[ "${QEMU:-1}" = 0 ] && exit 0
XZ=$(command -v xz) || { echo "no xz: the QEMU column needs it" >&2; exit 1; }
"$QPT" record --help | grep -q "=qemu" || exit 0
text=$tmp/text
awk 'BEGIN { srand(1); for (i = 0; i < 2000; i++) { w = ""
	n = 2 + int(rand() * 8); for (j = 0; j < n; j++)
	w = w sprintf("%c", 97 + int(rand() * 10)); word[i] = w }
	while (len < 4194304) { s = word[int(rand() * 2000)] " "
	printf "%s", s; len += length(s) } }' >"$text"

# insn/s of "qemu" (recorded) or "plain" (QEMU alone: the recording's
# count over its own time) on a command; unbound: qpt drains on the
# other CPU while QEMU runs
qpeer() { # NAME CMD...
	local t0 t1 n who=$1
	shift
	t0=$(now)
	if [ "$who" = qemu ]; then
		env -i "$QPT" record --emulate=qemu -o "$tmp/q.data" -- \
			"$@" >/dev/null 2>"$tmp/q.sum"
	else
		env -i "$QEMU_BIN" "$@" >/dev/null
	fi
	t1=$(now)
	if [ "$who" = qemu ]; then
		sed -n 's/.*--emulate: \([0-9]*\) instructions.*/\1/p' \
			"$tmp/q.sum" >"$tmp/q.n"
		[ -s "$tmp/q.n" ] || { cat "$tmp/q.sum" >&2; exit 1; }
	fi
	rate "$(cat "$tmp/q.n")" "$t0" "$t1"
}

# bytes of trace per instruction of a recording's summary
per_insn() {
	awk '/--emulate: / { for (i = 1; i <= NF; i++) if ($i ~ /^instr/) n = $(i - 1) }
	     /captured/ { for (i = 1; i <= NF; i++) if ($i == "captured") b = $(i + 1) }
	     END { printf "%.4f", n ? b / n : 0 }' "$1"
}

# qpt decode's instructions/s on a recording
decode_rate() {
	local t0 t1 n
	t0=$(now)
	n=$("$QPT" decode -i "$1" --no-sym 2>/dev/null | grep -c ' insn: ')
	t1=$(now)
	rate "$n" "$t0" "$t1"
}

for w in "branchy 1 200" "loopy 2 400" "xz"; do
	set -- $w
	if [ "$1" = xz ]; then
		cmd=("$XZ" -1 -c "$text")
	else
		cmd=("$B/bench/bench_$1" "$3")
	fi
	q="" plain=""
	for r in $(seq "$R"); do
		# qemu first: plain's count is the recording's
		q="$q $(qpeer qemu "${cmd[@]}")"
		plain="$plain $(qpeer plain "${cmd[@]}")"
		echo "$1 round $r: qemu$(echo "$q" | awk '{ print " " $NF }') qemu-alone$(echo "$plain" | awk '{ print " " $NF }') insn/s"
	done
	mq=$(echo "$q" | median) mp=$(echo "$plain" | median)
	if [ "$1" = xz ]; then
		awk -v q="$mq" -v p="$mp" 'BEGIN {
		printf "xz -1: qemu %.0f insn/s (goal >= 100M, moonshot 300M); "\
		       "QEMU alone %.0f: %.1fx slower with the trace (moonshot "\
		       "<= 4)\n", q, p, p / q }'
		continue
	fi
	# the same flow as the breakpoint engine's: the small run
	$PIN env -i "$QPT" record --emulate -o "$tmp/fast.data" -- \
		"$B/bench/bench_$1" "$2" >/dev/null 2>"$tmp/fast.sum"
	env -i "$QPT" record --emulate=qemu -o "$tmp/qs.data" -- \
		"$B/bench/bench_$1" "$2" >/dev/null 2>"$tmp/qs.sum"
	mf=$(peer fast "$B/bench/bench_$1" "$2")
	bf=$(per_insn "$tmp/fast.sum") bq=$(per_insn "$tmp/qs.sum")
	df=$(decode_rate "$tmp/fast.data") dq=$(decode_rate "$tmp/qs.data")
	awk -v w="$1" -v q="$mq" -v p="$mp" -v f="$mf" -v bf="$bf" \
		-v bq="$bq" -v df="$df" -v dq="$dq" 'BEGIN {
		printf "%s: qemu %.0f insn/s (goal >= 100M, moonshot 300M); "\
		       "QEMU alone %.0f: %.1fx slower with the trace (moonshot "\
		       "<= 4); fast %.0f: qemu/fast %.0fx (goal >= 50)\n",
		       w, q, p, p / q, f, q / f
		printf "%s: trace bytes per instruction qemu %.4f, fast %.4f: "\
		       "%.2fx (goal <= 1.2); qpt decode %.0f insn/s of the qemu "\
		       "recording, %.0f of the fast one\n",
		       w, bq, bf, bq / bf, dq, df }'
done
t0=$(now)
env -i "$QPT" record --emulate=qemu -o "$tmp/xzt.data" -- \
	"$XZ" -T2 -1 -c "$text" >/dev/null 2>"$tmp/xzt.sum"
t1=$(now)
awk -v a="$t0" -v b="$t1" -v s="$(sed -n 's/.*--emulate: \(.*\) ]/\1/p' \
	"$tmp/xzt.sum")" 'BEGIN { printf "xz -T2 -1: recorded in %.1f s "\
	"(goal < 60): %s\n", b - a, s }'
