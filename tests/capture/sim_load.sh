#!/usr/bin/env bash
# A producer faster than its consumer on the simulated kernel (sim_load.c),
# in full-trace mode and in snapshot mode (snapshots smaller than the area):
# every byte the simulated PMU wrote into its AUX areas is captured or
# reported lost (overwritten before a snapshot took it, or left out of one
# by its size), and every record it made is in the file or counted by a
# LOST record, exactly; qpt's summary line says the same numbers.  Oracles:
# the simulator's counts (the truth), a reader of the perf.data framing
# written here (record types, AUX flags, LOST sums, AUXTRACE sizes), and
# perf report --stats's counts by type.
# Args: SIM_LOAD [SECONDS]
set -u
SIM=$1 SECS=${2:-3}
here=$(dirname "$0")
command -v perf >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
# shellcheck source=tests/capture/crash_common.sh
. "$here/crash_common.sh"
fake_sysfs "$tmp/sys" 8 7

for mode in full snapshot; do
	opts=()
	[ $mode = snapshot ] && opts=(-S -s 16384)
	timeout 120 "$SIM" -t "$SECS" "${opts[@]}" "$tmp/$mode.data" "$tmp/sys" \
		-- cat >"$tmp/out.txt" 2>"$tmp/err.txt"
	rc=$?
	[ $rc = 0 ] || { bad "$mode: exit $rc: $(cat "$tmp/err.txt")"; continue; }
	perf report --stats -i "$tmp/$mode.data" >"$tmp/stats.txt" 2>&1 ||
		bad "$mode: perf report --stats: $(head -3 "$tmp/stats.txt")"
	python3 - "$mode" "$tmp/$mode.data" "$tmp/out.txt" "$tmp/err.txt" \
		"$tmp/stats.txt" <<'PY' || bad "$mode: the accounting does not add up"
import re, struct, sys

mode, data, out, err, stats = sys.argv[1:]
truth, q = {}, {}
for line in open(out):
    f = line.split()
    if f[0] == "qpt":
        q[f[1]] = int(f[2])
    elif f[0] != "sample":
        for k, v in zip(f[0::2], f[1::2]):
            truth[k] = int(v)

# The file: records in the data section, by the format's framing.
AUX, LOST, SWITCH, AUXTRACE = 11, 2, 14, 71
b = open(data, "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
pos, end = off, off + size
n = {}
aux_flags = {"T": 0, "C": 0, "P": 0, "O": 0}
lost_sum = auxtrace_sum = ring_records = 0
while pos < end:
    typ, misc, sz = struct.unpack_from("<IHH", b, pos)
    assert sz >= 8, (pos, sz)
    n[typ] = n.get(typ, 0) + 1
    if typ < 64:
        ring_records += 1
    if typ == AUX:
        flags = struct.unpack_from("<Q", b, pos + 24)[0]
        for bit, k in ((1, "T"), (2, "O"), (4, "P"), (8, "C")):
            aux_flags[k] += bool(flags & bit)
    elif typ == LOST:
        lost_sum += struct.unpack_from("<Q", b, pos + 16)[0]
    elif typ == AUXTRACE:
        payload = struct.unpack_from("<Q", b, pos + 8)[0]
        auxtrace_sum += payload
        pos += payload
    pos += sz
assert pos == end, (pos, end)

def check(what, got, want):
    if got != want:
        print(f"{mode}: {what}: {got}, want {want}")
        check.bad = True
check.bad = False

# perf's counts by type
perf = {m.group(1): int(m.group(2)) for m in
        re.finditer(r"^\s*(\w+) events:\s+(\d+)", open(stats).read(), re.M)}
for name, typ in (("AUX", AUX), ("LOST", LOST), ("SWITCH", SWITCH),
                  ("AUXTRACE", AUXTRACE)):
    check(f"perf's {name} events", perf.get(name, 0), n.get(typ, 0))

# The truth against the file and qpt: every byte, every record.
check("losses not yet told at the end", truth["pending"], 0)
check("LOST records' sum vs records dropped", lost_sum, truth["dropped"])
check("records in the file + lost vs made",
      n.get(AUX, 0) + n.get(SWITCH, 0) + lost_sum, truth["records"])
check("qpt's records - LOST + lost vs made",
      q["records"] - q["lost_events"] + q["lost_records"], truth["records"])
check("qpt's records vs the file's", q["records"], ring_records)
check("qpt's LOST records", q["lost_events"], n.get(LOST, 0))
check("bytes captured + overwritten + skipped vs written",
      q["aux_bytes"] + q["aux_overwritten"] + q["aux_skipped"], truth["made"])
check("AUXTRACE records", q["aux_buffers"], n.get(AUXTRACE, 0))
pad = auxtrace_sum - q["aux_bytes"]
if not 0 <= pad < 8 * max(1, q["aux_buffers"]):
    check("AUXTRACE bytes (padded)", auxtrace_sum, q["aux_bytes"])
for k, name in (("T", "aux_truncated"), ("C", "aux_collision"),
                ("P", "aux_partial"), ("O", "aux_overwrite")):
    check(f"AUX records flagged {k}", aux_flags[k], q[name])
# flags on AUX records that a LOST hid are not in the file
assert aux_flags["C"] <= truth["flagged"] and truth["flagged"] > 0, truth
# the load did what it is for
assert truth["dropped"] > 0, "the data ring never overran"
if mode == "full":
    assert truth["truncated"] > 0 and aux_flags["T"] > 0, "no truncation"
    check("overwritten or skipped in full-trace mode",
          q["aux_overwritten"] + q["aux_skipped"], 0)
else:
    assert q["aux_overwritten"] > 0 and q["aux_skipped"] > 0, q

# The summary line says the same numbers.
line = [l for l in open(err) if l.startswith("[ qpt record:")]
assert len(line) == 1, open(err).read()
m = re.match(r"\[ qpt record: captured (\d+) bytes of trace in (\d+) "
             r"buffers, (.*); (\d+) records(?:, (\d+) lost)?; wrote ",
             line[0])
assert m, line[0]
check("summary: captured", int(m.group(1)), auxtrace_sum - pad)
check("summary: buffers", int(m.group(2)), n.get(AUXTRACE, 0))
check("summary: records", int(m.group(4)), ring_records)
check("summary: records lost", int(m.group(5) or 0), lost_sum)
lost = m.group(3)
if mode == "full":
    t = re.match(r"trace lost at (\d+) places \(the AUX area was full\), "
                 r"0 bytes overwritten$", lost)
    assert t, lost
    check("summary: places lost", int(t.group(1)), aux_flags["T"])
    check("summary: captured vs written", int(m.group(1)), truth["made"])
else:
    t = re.match(r"(\d+) bytes lost \((\d+) left out of snapshots by their "
                 r"size\)$", lost)
    assert t, lost
    check("summary: captured + lost vs written",
          int(m.group(1)) + int(t.group(1)), truth["made"])
    check("summary: left out", int(t.group(2)), q["aux_skipped"])
print(f"{mode}: ok: {truth['made']} bytes written by the PMU, "
      f"{q['aux_bytes']} captured in {q['aux_buffers']} buffers, "
      f"{q['aux_overwritten']} overwritten, {q['aux_skipped']} skipped; "
      f"{truth['records']} records made, {truth['dropped']} lost "
      f"({n.get(LOST, 0)} LOST records); {aux_flags['T']} truncations")
sys.exit(1 if check.bad else 0)
PY
done
exit $fail
