#!/usr/bin/env bash
# The crash part of scripts/demo.sh (and of its test): build the crash
# example (C++: an exception thrown and caught before the crash), record
# it with --snapshot (emulated Intel PT where the machine has none), and
# show qpt crash's report.  The program dies of SIGSEGV;
# qpt record exits with its status (139), as the shell would see it.
# Args: QPT OUTDIR
set -uo pipefail
qpt=$1 out=$2
src=$(dirname "$0")/../traces/demo/crash.cc
c++ -O1 -g -o "$out/demo_crash" "$src" || exit 1
if [ -e /sys/bus/event_source/devices/intel_pt ]; then
	echo "== Intel PT hardware snapshots on a crash are not done yet: emulated"
fi
echo "== qpt record --emulate --snapshot -o $out/crash.data -- $out/demo_crash"
"$qpt" record -q --emulate --snapshot -o "$out/crash.data" -- "$out/demo_crash"
echo "(exit status $?, as without qpt)"
echo "== qpt crash -i $out/crash.data --last 8 --insns 6"
"$qpt" crash -i "$out/crash.data" --last 8 --insns 6
