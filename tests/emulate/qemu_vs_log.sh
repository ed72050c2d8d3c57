#!/bin/bash
# qpt record --emulate=qemu against QEMU's own log: for each test program,
# `qemu-x86_64 -singlestep -d exec,nochain,tid` logs the address of every
# instruction each guest thread starts (one block per instruction, in a
# file per thread); consecutive repeats of one address are the iterations
# of a REP string instruction, which Intel PT shows once.  qpt decode
# --insn and perf script --itrace=i0ns of the recording of the same
# program (ASLR off, same environment and arguments) must list, per
# thread, the same addresses, and perf must report no decode error.
# Args: PROG_DIR CMD...  (a CMD is a program and its arguments in one word;
# words naming a file in PROG_DIR stand for its path).  Skips (77) where
# qemu-x86_64 or perf is absent.
set -u
DIR=$1
shift
QEMU=$(command -v qemu-x86_64) || { echo "no qemu-x86_64: skip"; exit 77; }
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
[ -x "$QPT" ] || { echo "no qpt"; exit 1; }
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "$0")/../shell/by_thread.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# "TID IP" of qpt decode's instruction lines (the IP is before "insn:")
insn_ips() {
	awk '{ for (i = 2; i <= NF; i++) if ($i == "insn:") {
		print $1, $(i - 1); break } }'
}

# QEMU's log files $tmp/log.TID as "TID IP" lines, repeats folded
log_ips() {
	local f
	for f in "$tmp"/log.*; do
		sed -n 's|^Trace [0-9]*: 0x[0-9a-f]* \[[0-9a-f]*/0*\([0-9a-f]*\)/.*|\1|p' \
			"$f" | uniq | sed "s/^/${f##*.} /"
	done
}

for p in "$@"; do
	cmd=()
	for w in $p; do
		if [ -e "$DIR/$w" ]; then cmd+=("$DIR/$w"); else cmd+=("$w"); fi
	done
	data=$tmp/${p//[^a-z0-9_]/_}.data
	rm -f "$tmp"/log.*
	env -i QPT_TEST=1 setarch -R "$QEMU" -singlestep -d exec,nochain,tid \
		-D "$tmp/log.%d" "${cmd[@]}" >/dev/null 2>&1
	env -i QPT_TEST=1 "$QPT" record -q --emulate=qemu -o "$data" -- \
		"${cmd[@]}" >/dev/null 2>"$tmp/rec.err"
	rc=$?
	if [ $rc -ne 0 ] && [ -s "$tmp/rec.err" ]; then
		echo "FAIL $p: qpt record exit $rc: $(cat "$tmp/rec.err")"
		fail=1
		continue
	fi
	log_ips | by_thread >"$tmp/want"
	n=$(grep -vc -- -- "$tmp/want")
	"$QPT" decode -i "$data" --insn --no-asm --no-sym 2>&1 | insn_ips | by_thread \
		>"$tmp/qgot"
	perf script -i "$data" --itrace=i0ns -F tid,ip >"$tmp/perf.txt" \
		2>"$tmp/perf.err"
	awk '{ printf "%s %s\n", $1, $2 }' "$tmp/perf.txt" | by_thread \
		>"$tmp/pgot"
	perf script -i "$data" --itrace=e -F tid,ip >"$tmp/errs.txt" 2>&1
	if [ "$n" -lt 1000 ]; then
		echo "FAIL $p: only $n instructions in QEMU's log"
		fail=1
	elif ! cmp -s "$tmp/want" "$tmp/qgot"; then
		echo "FAIL $p: qpt decode differs from QEMU's log ($n insns)"
		diff "$tmp/want" "$tmp/qgot" | head -10
		fail=1
	elif ! cmp -s "$tmp/want" "$tmp/pgot"; then
		echo "FAIL $p: perf script differs from QEMU's log ($n insns)"
		diff "$tmp/want" "$tmp/pgot" | head -10
		fail=1
	elif grep -qi "error" "$tmp/errs.txt" "$tmp/perf.err"; then
		echo "FAIL $p: perf reports decode errors"
		grep -i error "$tmp/errs.txt" "$tmp/perf.err" | head -5
		fail=1
	else
		echo "ok $p: $n instructions, $(($(grep -c -- -- "$tmp/want") + 1)) threads"
	fi
done
exit $fail
