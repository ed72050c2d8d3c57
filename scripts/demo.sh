#!/usr/bin/env bash
# Install, build, then record the bundled example (traces/demo/demo.c) with
# Intel PT (or, where this machine has none, the emulated Intel PT source)
# and decode it: a call trace of main, the last instructions, and a check
# that perf's own decoder agrees with qpt's instruction for instruction;
# then a program that crashes, recorded in snapshot mode, and qpt crash's
# report of its last moments (scripts/demo_crash.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${QPT_DEMO_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
qpt=$build/cli/qpt
out=$build/demo
mkdir -p "$out"
cc -O1 -g -o "$out/demo" traces/demo/demo.c

if [ -e /sys/bus/event_source/devices/intel_pt ]; then
	source="-e intel_pt//u"
else
	echo "== no Intel PT on this machine: using the emulated Intel PT source"
	source="--emulate"
fi
echo "== qpt record $source -o $out/demo.data -- $out/demo"
# shellcheck disable=SC2086
"$qpt" record $source -o "$out/demo.data" -- "$out/demo"

echo "== qpt info (excerpt)"
"$qpt" info -i "$out/demo.data" | grep -E "cmdline|auxtrace|emulated|event :" || true

echo "== qpt decode --calls, from the call of main (25 lines)"
"$qpt" decode --calls -i "$out/demo.data" >"$out/calls.txt"
awk '/ main\+0x0 / { on = 1 } on && n++ < 25' "$out/calls.txt"

echo "== qpt decode --insn (last 5 instructions)"
"$qpt" decode --insn --last 5 -i "$out/demo.data"

echo "== qpt flame: $out/flame.svg (a flame graph of the call flow: open it in a browser)"
"$qpt" flame -i "$out/demo.data" -o "$out/flame.svg"

echo "== cross-check with perf script --itrace=i0ns"
"$qpt" decode --insn --json --no-sym -i "$out/demo.data" |
	grep -v '"event":' | sed -n 's/.*"ip":"0x\([0-9a-f]*\)".*/\1/p' >"$out/qpt.ips"
perf script -i "$out/demo.data" --itrace=i0ns -F ip 2>/dev/null |
	awk '{print $1}' >"$out/perf.ips"
n=$(wc -l <"$out/qpt.ips")
if [ "$n" -gt 0 ] && cmp -s "$out/qpt.ips" "$out/perf.ips"; then
	echo "qpt and perf agree on all $n instructions"
else
	echo "qpt ($n) and perf ($(wc -l <"$out/perf.ips")) instruction sequences differ" >&2
	exit 1
fi

bash scripts/demo_crash.sh "$qpt" "$out"
