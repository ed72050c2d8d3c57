#!/bin/bash
# The cost of --srcline: qpt decode --insn with and without it on an
# emulated recording of bench/progs/srcloop.c (built with -g; libc's lines
# from libc6-dbg's debug files where installed), ratios of wall times in
# alternating pairs (PAIRS, default 5; medians); then qpt decode --insn
# --srcline against perf script --itrace=i0ns -F ip,sym,srcline on a
# smaller recording (perf asks addr2line for each new address: on 350K
# instructions, 713 s against qpt's 1.7 s).
#
#   bench/srcline.sh [ROUNDS]    ROUNDS of the workload (default 1500,
#                                about 19 million instructions)
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing); the workload from the same build
# (PROG=path/to/bench_srcloop, default beside it).  Not a ctest.
set -eu
# shellcheck source=bench/lib.sh
. "$(cd "$(dirname "$0")" && pwd)/lib.sh" # perf, an optimised $QPT
rounds=${1:-1500}
prog=${PROG:-$(dirname "$(dirname "$QPT")")/bench/bench_srcloop}
if [ ! -x "$prog" ]; then
	cmake --build "$(dirname "$(dirname "$QPT")")" --target bench_srcloop \
		-j2 >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -i "$QPT" record -q --emulate -o "$tmp/big.data" -- "$prog" "$rounds" \
	>/dev/null
env -i "$QPT" record -q --emulate -o "$tmp/small.data" -- "$prog" 5 \
	>/dev/null
n=$("$QPT" decode --insn --no-asm -i "$tmp/big.data" | grep -c insn:)
with=$("$QPT" decode --insn --no-asm --srcline -i "$tmp/big.data" |
	grep -c '^  [^ ]*:[0-9]*$')
echo "input: srcloop $rounds rounds, $n instructions, $with with a line"
PAIRS=${PAIRS:-5} pair_ratio "--insn --srcline (peer: --insn)" 0 \
	"$QPT" decode --insn --srcline -i "$tmp/big.data" -- \
	"$QPT" decode --insn -i "$tmp/big.data"
PAIRS=${PAIRS:-5} pair_ratio "--insn --no-asm --srcline (peer: --no-asm)" 0 \
	"$QPT" decode --insn --no-asm --srcline -i "$tmp/big.data" -- \
	"$QPT" decode --insn --no-asm -i "$tmp/big.data"
echo "small: srcloop 5 rounds," \
	"$("$QPT" decode --insn --no-asm -i "$tmp/small.data" | grep -c insn:)" \
	"instructions"
PAIRS=1 pair_ratio "--insn --srcline vs perf script -F ip,sym,srcline" 0 \
	"$QPT" decode --insn --srcline -i "$tmp/small.data" -- \
	perf script -i "$tmp/small.data" --itrace=i0ns -F ip,sym,srcline
