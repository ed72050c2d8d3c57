#!/bin/bash
# Call-stack LBR stitching against perf on the same file: a program whose
# recursion goes deeper than the LBR is recorded (qpt record --emulate,
# with timestamps), qpt inject --lbr-callstack synthesizes the samples a
# 32-entry call-stack LBR would give every PERIOD instructions and the
# truth (the whole call stack of the PT flow there), and the samples whose
# whole stack `qpt lbr --stitch` and `perf script --stitch-lbr` give back
# are counted (lbr_stitch.py).
#   bench/lbr_stitch.sh [--check] [BUILD_DIR [PROGRAM [PERIOD [DEPTH]]]]
# --check: exit 1 unless qpt gives back more stacks than perf and stitches
# none wrong (tests/emulate/lbr_stitch.sh).
set -eu
check=
if [ "${1:-}" = --check ]; then
	check=--check
	shift
fi
B=${1:-build}
P=${2:-$B/tests/emulate/emu_deep}
N=${3:-97}
D=${4:-32}
QPT=${QPT:-$B/cli/qpt}
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "perf is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -i "$QPT" record -q --emulate -e intel_pt/tsc,mtc/u -o "$tmp/pt.data" \
	-- "$P" >/dev/null
"$QPT" inject --lbr-callstack="$N" --lbr-depth "$D" -i "$tmp/pt.data" \
	-o "$tmp/lbr.data" --truth "$tmp/truth.json"
"$QPT" lbr -i "$tmp/lbr.data" --json >"$tmp/plain.json"
"$QPT" lbr -i "$tmp/lbr.data" --stitch --json >"$tmp/stitched.json"
perf script -i "$tmp/lbr.data" --stitch-lbr >"$tmp/perf.txt" 2>"$tmp/perf.err"
"$QPT" dump --json -i "$tmp/lbr.data" >"$tmp/dump.json"
echo "$(basename "$P"): a $D-entry call-stack LBR every $N instructions"
python3 "$here/lbr_stitch.py" $check "$tmp/truth.json" \
	"$tmp/plain.json" "$tmp/stitched.json" "$tmp/perf.txt" "$tmp/dump.json"
