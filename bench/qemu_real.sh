#!/bin/bash
# --emulate=qemu on real programs too large for CI, against QEMU's own log
# of every instruction (tests/emulate/qemu_vs_log.sh: qpt decode and perf
# script must list, per thread, the addresses QEMU's -singlestep log
# shows): a Python one-liner and xz -T2 compressing with two threads
# (small blocks, so that both threads work).  Python hashes strings with a
# random seed per run unless PYTHONHASHSEED is set: its dictionaries probe
# other slots from one run to the next, and two runs are not comparable.
# The logs take about 100 bytes per instruction: some GB in $TMPDIR.
#   bench/qemu_real.sh [BUILD_DIR]   (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# text to compress: the C sources, 128 KiB
cat "$here"/decode/*.c | head -c 131072 >"$tmp/text"
export QPT=$B/cli/qpt
bash "$here/tests/emulate/qemu_vs_log.sh" "$tmp" \
	"PYTHONHASHSEED=0 /usr/bin/python3 -c print(sum(range(1000)))"
# which thread compresses which block, and how long the others wait,
# differ from run to run: QEMU logs the run qpt records
bash "$here/tests/emulate/qemu_vs_log.sh" --same-run "$tmp" \
	"/usr/bin/xz -T2 -1 --block-size=16KiB -c -k $tmp/text"
