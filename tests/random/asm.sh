#!/bin/bash
# Random assembly programs (asmgen.py) against the emulated source: for
# each SEED, the program (every fourth with an interval timer, --async),
# static, checked by check.sh against the single-step ground truth too.
# Args: GT_STEP WORKDIR SEED...
# Prints check.sh's lines (the program names are as-SEED, as-SEEDa with the
# timer), and "build-fail as-SEED: ..." for a program that does not build.
# Exit 1 when a program differs.
set -u
GT=$1 work=$2
shift 2
here=$(dirname "$0")
mkdir -p "$work"
rc=0
for s in "$@"; do
	a="" n=as-$s
	[ $((s % 4)) -eq 0 ] && a=--async n=as-${s}a
	d=$work/$n
	mkdir -p "$d"
	if ! /usr/bin/python3 "$here/asmgen.py" "$s" $a >"$d/$n.S" \
		2>"$d/gen.log" ||
		! gcc -nostdlib -static -no-pie -o "$d/$n" "$d/$n.S" \
			2>"$d/gcc.log"; then
		echo "build-fail $n: $(cat "$d/gen.log" "$d/gcc.log" | head -1)"
		continue
	fi
	if bash "$here/check.sh" -g "$GT" "$d/$n"; then
		rm -rf "$d"
	else
		rc=1
	fi
done
exit $rc
