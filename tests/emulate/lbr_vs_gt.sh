#!/bin/bash
# qpt decode --lbr=N --json: the last record of each thread equals the
# last N taken branches of the single-step ground truth (lbr_vs_gt.py says
# how they are derived), for programs with recursion, indirect calls and a
# jump table, setjmp/longjmp, signal handlers entered by a syscall and by
# a fault, a crash and threads; N = 32 and 1024 (all a thread's branches
# when it has fewer).
# Args: GT_STEP PROG_DIR PROG...
set -u
GT=$1 DIR=$2
shift 2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
here=$(dirname "$0")

for p in "$@"; do
	prog=$DIR/$p
	env -i QPT_TEST=1 "$GT" "$tmp/gt.txt" -- "$prog" >/dev/null 2>&1
	env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/cyc/u \
		-o "$tmp/$p.data" -- "$prog" >/dev/null 2>"$tmp/rec.err"
	if [ ! -s "$tmp/$p.data" ]; then
		bad "$p: qpt record: $(cat "$tmp/rec.err")"
		continue
	fi
	perf script -i "$tmp/$p.data" --itrace=i0ns -F tid,ip,insnlen,flags \
		>"$tmp/ilen.txt" 2>/dev/null
	for n in 32 1024; do
		if ! "$QPT" decode -i "$tmp/$p.data" --lbr=$n --json \
			--lbr-period 997 \
			>"$tmp/lbr.json" 2>"$tmp/lbr.err"; then
			bad "$p: qpt decode --lbr=$n: $(cat "$tmp/lbr.err")"
			continue
		fi
		echo "$p --lbr=$n:"
		python3 "$here/lbr_vs_gt.py" "$tmp/gt.txt" "$tmp/ilen.txt" \
			"$tmp/lbr.json" $n 997 || bad "$p --lbr=$n"
	done
	perf script -i "$tmp/$p.data" --itrace=b -F tid,ip,addr,flags,ipc \
		>"$tmp/ipc.txt" 2>/dev/null
	python3 "$here/lbr_cycles.py" "$tmp/ipc.txt" "$tmp/lbr.json" ||
		bad "$p: cycles"
done
exit $fail
