#!/bin/bash
# The breakpoint engine (qpt record --emulate, the default) against the
# single-step one (--emulate=step, the reference) on the same programs in
# the same environment: the decodes of the two recordings, by perf and by
# qpt decode, list per thread the same instructions, and the same decode
# errors where code cannot be decoded (anonymous JIT code has no file);
# the command's output and exit status are those of a run without qpt.
# The two recordings run in new pid namespaces (the same pids: a shell's
# path depends on its parent's pid's digits).
# With TSC and no MTC: where perf cannot decode (JIT code) it starts again
# at the next timing packet, and MTCs fall at other places in the two
# engines' streams (the time between stops differs).
# Args: [--inherit] GT_STEP PROG_DIR CMD...
# A CMD is a program with its arguments in one word; words naming a file
# in PROG_DIR stand for that file's path.
set -u
qf=""
[ "${1:-}" = --inherit ] && { qf=--inherit; shift; }
GT=$1 DIR=$2
shift 2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"

# shellcheck source=tests/shell/pidns.sh
. "$(dirname "$0")/../shell/pidns.sh"
# shellcheck source=tests/emulate/views.sh
. "$(dirname "$0")/views.sh"

for p in "$@"; do
	cmd=()
	for w in $p; do
		if [ -e "$DIR/$w" ]; then cmd+=("$DIR/$w"); else cmd+=("$w"); fi
	done
	( # the shell's word on a crash is not the command's output
		env -i QPT_TEST=1 setarch -R "${cmd[@]}" >"$tmp/plain.out"
		echo "exit $?" >>"$tmp/plain.out"
	) 2>/dev/null
	for m in step fast; do
		in_pidns env -i QPT_TEST=1 "$QPT" record --emulate=$m $qf \
			-e intel_pt/mtc=0/u -o "$tmp/$m.data" -- "${cmd[@]}" \
			>"$tmp/$m.out" 2>"$tmp/$m.err"
		echo "exit $?" >>"$tmp/$m.out"
		perf_view "$tmp/$m.data" >"$tmp/$m.perf"
		qpt_view "$tmp/$m.data" >"$tmp/$m.qpt"
	done
	n=$(grep -c . "$tmp/step.qpt")
	if ! cmp -s "$tmp/plain.out" "$tmp/step.out" ||
		! cmp -s "$tmp/plain.out" "$tmp/fast.out"; then
		bad "$p: output or exit status differs from a run without qpt"
		diff "$tmp/plain.out" "$tmp/fast.out" | head -5
	elif ! cmp -s "$tmp/step.perf" "$tmp/fast.perf"; then
		bad "$p: perf decodes differ"
		diff "$tmp/step.perf" "$tmp/fast.perf" | head -10
	elif ! cmp -s "$tmp/step.qpt" "$tmp/fast.qpt"; then
		bad "$p: qpt decodes differ"
		diff "$tmp/step.qpt" "$tmp/fast.qpt" | head -10
	elif [ "$n" -lt 1000 ]; then
		bad "$p: only $n instructions"
	else
		echo "ok $p: $n instructions"
	fi
done
exit $fail
