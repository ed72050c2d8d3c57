#!/bin/bash
# One random program against the emulated source (issue 20, section 3):
# for each PROG, its output and exit status under `qpt record --emulate`
# (both engines) are those of a run without qpt, and the recordings of the
# breakpoint engine (fast) and of the single-step one (step) decode, by
# perf and by qpt decode, to the same instructions per thread and no decode
# error; with -g, to the single-step ground truth (gt_step) too.  Every run
# gets the same environment (env -i), arguments and ASLR off.
# A program whose symbols random_mask_lo and random_mask_hi bound the code
# that asynchronous signals run (where they land varies from run to run)
# is compared between runs without the instructions of that range, and
# perf and qpt decode must see the same instructions in each recording.
# Args: [-g] GT_STEP PROG...   (a PROG is a path, its arguments after it
#                                in the same word)
# Env: QPT; RANDOM_CAP (default 2000000): a program that runs more
# instructions (as the fast engine counts them) is not single-stepped;
# RANDOM_NATIVE_S (default 2): a program that runs longer natively is not
# recorded; RANDOM_KEEP=DIR keeps each differing program's files there.
# One line per program, its first word the verdict:
#   ok NAME: N instructions, L loops run natively (T trips)[, ground truth]
#   (the loops as the fast engine counts them)
#   skip-native NAME / skip-long NAME: too long natively / to single-step
#   DIFF NAME: what differs (then the first lines of the difference)
# Exit 1 when a program differs, 0 otherwise (skips included).
set -u
gt=""
[ "${1:-}" = -g ] && { gt=1; shift; }
GT=$1
shift
cap=${RANDOM_CAP:-2000000}
native_s=${RANDOM_NATIVE_S:-2}
src=$(dirname "$0")/../emulate
# shellcheck source=tests/emulate/common.sh
. "$src/common.sh"
# shellcheck source=tests/emulate/views.sh
. "$src/views.sh"

# the difference found: a line, the first lines of diff A B, the files kept
differs() { # NAME WHAT A B
	echo "DIFF $1: $2"
	diff "$3" "$4" | head -8 | sed 's/^/    /'
	fail=1
	if [ -n "${RANDOM_KEEP:-}" ]; then
		mkdir -p "$RANDOM_KEEP/$1"
		cp "${cmd[0]}" "$tmp"/* "$RANDOM_KEEP/$1/" 2>/dev/null
	fi
}

# by_thread's lines of FILE without the addresses in [$lo, $hi) (hex)
unmasked() { # FILE
	awk -v lo="$lo" -v hi="$hi" '
		function pad(a) { a = sprintf("%16s", a); gsub(/ /, "0", a)
				  return a }
		$1 ~ /^[0-9a-f]+$/ { a = pad($1)
				     if (a >= pad(lo) && a < pad(hi)) next }
		{ print }' "$1"
}

# qpt record --emulate=$1 of the command to $tmp/$1.*, its output and exit
# status in $1.out; the instructions the engine counted in $insns.  A
# recording that does not end within $2 s is ended (SIGTERM, then SIGKILL).
record() { # ENGINE LIMIT
	env -i QPT_TEST=1 timeout -k 10 "$2" "$QPT" record --emulate="$1" \
		-e intel_pt/mtc=0/u -o "$tmp/$1.data" -- "${cmd[@]}" \
		>"$tmp/$1.out" 2>"$tmp/$1.err"
	rec_rc=$?
	echo "exit $rec_rc" >>"$tmp/$1.out"
	insns=$(sed -n 's/.*--emulate: \([0-9]*\) instructions.*/\1/p' \
		"$tmp/$1.err")
	loops=$(sed -n 's/.* \([0-9]* loops run natively ([0-9]* trips)\).*/\1/p' \
		"$tmp/$1.err")
}

# the program $1 (words: path and arguments), all checks; 0 when no
# difference
check() {
	local name v
	read -r -a cmd <<<"$1"
	name=$(basename "${cmd[0]}")
	rm -f "$tmp"/*
	( # the shell's word on a crash is not the command's output
		env -i QPT_TEST=1 setarch -R timeout -s KILL "$native_s" \
			"${cmd[@]}" >"$tmp/plain.out"
		echo "exit $?" >>"$tmp/plain.out"
	) 2>/dev/null
	if [ "$(tail -1 "$tmp/plain.out")" = "exit 137" ]; then
		echo "skip-native $name: runs over $native_s s natively"
		return 0
	fi
	record fast 600
	if [ $rec_rc -eq 124 ] || [ $rec_rc -eq 137 ]; then
		differs "$name" "qpt record --emulate=fast did not end" \
			"$tmp/plain.out" "$tmp/fast.err"
		return 1
	elif ! cmp -s "$tmp/plain.out" "$tmp/fast.out"; then
		differs "$name" "output or exit status under the fast engine" \
			"$tmp/plain.out" "$tmp/fast.out"
		return 1
	elif [ -z "$insns" ]; then
		differs "$name" "no summary from qpt record" \
			"$tmp/plain.out" "$tmp/fast.err"
		return 1
	elif [ "$insns" -gt "$cap" ]; then
		echo "skip-long $name: $insns instructions (over $cap)"
		return 0
	fi
	fast_loops=$loops
	record step 1800
	if ! cmp -s "$tmp/plain.out" "$tmp/step.out"; then
		differs "$name" "output or exit status under the step engine" \
			"$tmp/plain.out" "$tmp/step.out"
		return 1
	fi
	lo=$(nm "${cmd[0]}" 2>/dev/null | awk '$3 == "random_mask_lo" { print $1 }')
	hi=$(nm "${cmd[0]}" 2>/dev/null | awk '$3 == "random_mask_hi" { print $1 }')
	for v in perf qpt; do
		"${v}_view" "$tmp/step.data" >"$tmp/step.$v"
		"${v}_view" "$tmp/fast.data" >"$tmp/fast.$v"
		if [ -n "$lo" ] && [ -n "$hi" ]; then
			for e in step fast; do
				mv "$tmp/$e.$v" "$tmp/$e.$v.full"
				unmasked "$tmp/$e.$v.full" >"$tmp/$e.$v"
			done
		fi
		if ! cmp -s "$tmp/step.$v" "$tmp/fast.$v"; then
			differs "$name" "$v decodes of fast and step differ" \
				"$tmp/step.$v" "$tmp/fast.$v"
			return 1
		elif grep -q ERR "$tmp/step.$v"; then
			differs "$name" "$v reports decode errors" \
				/dev/null "$tmp/step.$v"
			return 1
		fi
	done
	# the two decoders alike, in full (a masked range included)
	for e in step fast; do
		f=""
		[ -e "$tmp/$e.qpt.full" ] && f=.full
		if ! cmp -s "$tmp/$e.perf$f" "$tmp/$e.qpt$f"; then
			differs "$name" "perf and qpt decode differ ($e)" \
				"$tmp/$e.perf$f" "$tmp/$e.qpt$f"
			return 1
		fi
	done
	n=$(grep -vc -- -- "$tmp/step.qpt")
	if [ "$n" -lt 100 ]; then
		differs "$name" "only $n instructions decoded" \
			/dev/null "$tmp/step.qpt"
		return 1
	fi
	if [ -z "$gt" ]; then
		echo "ok $name: $n instructions, $fast_loops"
		return 0
	fi
	env -i QPT_TEST=1 "$GT" "$tmp/gt.txt" -- "${cmd[@]}" >"$tmp/gt.out" \
		2>&1
	by_thread <"$tmp/gt.txt" >"$tmp/gt"
	if [ -n "$lo" ] && [ -n "$hi" ]; then
		mv "$tmp/gt" "$tmp/gt.full"
		unmasked "$tmp/gt.full" >"$tmp/gt"
	fi
	for v in perf qpt; do
		if ! cmp -s "$tmp/gt" "$tmp/step.$v"; then
			differs "$name" "$v decode differs from the ground truth" \
				"$tmp/gt" "$tmp/step.$v"
			return 1
		fi
	done
	echo "ok $name: $n instructions, $fast_loops, ground truth"
}

for p in "$@"; do
	check "$p"
done
exit "$fail"
