#!/usr/bin/env bash
# Soak: a producer faster than its consumer on the simulated kernel
# (tests/capture/sim_load.c: qpt's recorder, the PMU source, two rings) for
# MINUTES in full-trace and snapshot mode at once, the output in file mode
# on /dev/null.  Each run samples its own memory (VmRSS) and open fds every
# ten seconds; printed: the samples, then per mode the fds (first, last,
# most), the RSS after the first minute and at the end, the growth in
# between, and how much of it the AUXTRACE index explains (16 bytes per
# buffer written: the file's HEADER_AUXTRACE, which perf keeps in memory
# as well); the accounting (sim_load.sh's checks) holds at the end.
# Usage: bench/soak.sh [MINUTES]   (default 10; needs a build with tests:
#        QPT_BUILD, default ./build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${QPT_BUILD:-$here/build}
sim=$build/tests/capture/sim_load
[ -x "$sim" ] || { echo "build first (with tests): cmake --build $build"; exit 1; }
secs=$((${1:-10} * 60))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/capture/crash_common.sh
. "$here/tests/capture/crash_common.sh"
fake_sysfs "$tmp/sys" 8 7

"$sim" -t "$secs" /dev/null "$tmp/sys" -- cat >"$tmp/full.txt" \
	2>"$tmp/full.err" </dev/null &
p1=$!
"$sim" -t "$secs" -S -s 16384 /dev/null "$tmp/sys" -- cat >"$tmp/snap.txt" \
	2>"$tmp/snap.err" </dev/null &
p2=$!
wait $p1 || { echo "full: $(cat "$tmp/full.err")"; exit 1; }
wait $p2 || { echo "snapshot: $(cat "$tmp/snap.err")"; exit 1; }

for mode in full snap; do
	echo "== $mode: samples (seconds, RSS KiB, fds)"
	awk '$1 == "sample" { printf "  %s %s %s\n", $2, $3, $4 }' "$tmp/$mode.txt"
	grep '^\[ qpt record:' "$tmp/$mode.err"
	python3 - "$tmp/$mode.txt" <<'PY'
import sys
s = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[1])
     if l.startswith("sample")]
q = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[1])
     if l.startswith("qpt ")}
t = {}
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] in ("made", "dropped", "offered"):
        t.update(zip(f[0::2], map(int, f[1::2])))
fds = [x[2] for x in s]
warm = [x for x in s if x[0] >= 60] or s
grow = warm[-1][1] - warm[0][1]
index = q["aux_buffers"] * 16 // 1024
print(f"  fds: first {fds[0]}, last {fds[-1]}, most {max(fds)}")
print(f"  RSS: {warm[0][1]} KiB at {warm[0][0]} s, {warm[-1][1]} KiB at "
      f"{warm[-1][0]} s: {grow:+d} KiB; the AUXTRACE index of "
      f"{q['aux_buffers']} buffers is {index} KiB, the rest "
      f"{grow - index:+d} KiB")
ok = (q["aux_bytes"] + q["aux_overwritten"] + q["aux_skipped"] == t["made"]
      and q["records"] - q["lost_events"] + q["lost_records"] == t["records"]
      and q["lost_records"] == t["dropped"] and t["pending"] == 0)
print(f"  accounting: {t['made']} bytes written by the PMU, "
      f"{q['aux_bytes']} captured, {q['aux_overwritten']} overwritten, "
      f"{q['aux_skipped']} skipped; {t['records']} records, "
      f"{q['lost_records']} lost: {'exact' if ok else 'DOES NOT ADD UP'}")
PY
done
