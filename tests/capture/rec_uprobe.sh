#!/usr/bin/env bash
# --snapshot-on on the PMU source with the real kernel's uprobe
# (rec_uprobe.c: every event real but the AUX event, whose area is a
# stand-in in memory; Intel PT is absent here).  A program calls target()
# N times.  Oracles:
#  - the uprobe's file offset: objdump -F's for target in the program;
#  - the uprobe samples perf report -D reads from the file (N, each at
#    target's file offset through the program's MMAP2), and qpt dump reads
#    as many;
#  - the triggers read from the file without qpt (crash_feature.py): N,
#    kind 2, the samples' ips and tids;
#  - one snapshot per sample (each disable of the stand-in AUX event), the
#    first holding the newest units (perf report -D, the TSC numbers);
#  - -p PID: the probe in /proc/PID/exe; as many triggers and snapshots
#    as the calls made once the events are enabled;
#  - the CLI: a symbol that is not found is one line and exit 1;
#    --snapshot-on without -S, or with -a, exit 2.
# Skips (77) without perf or the uprobe PMU, or where uprobes may not be
# opened.
# Args: REC_UPROBE PROG
set -u
REC=$1 PROG=$2
QPT=${QPT:?}
here=$(dirname "$0")
N=7
command -v perf >/dev/null || exit 77
command -v objdump >/dev/null || exit 77
[ -r /sys/bus/event_source/devices/uprobe/type ] || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

# shellcheck source=tests/capture/crash_common.sh
. "$here/crash_common.sh"
# a fake sysfs: the Linux driver's intel_pt, the real uprobe PMU
fake_sysfs "$tmp/sys" 48 "$(cat /sys/bus/event_source/devices/uprobe/type)"
AREA_UNITS=$((16 * $(getconf PAGESIZE) / 32))

"$REC" "$tmp/u.data" "$tmp/sys" target -- "$PROG" $N >"$tmp/rec.txt" \
	2>"$tmp/rec.err"
rc=$?
[ $rc = 77 ] && { cat "$tmp/rec.err"; exit 77; }
[ $rc = 0 ] || bad "rec_uprobe: $(cat "$tmp/rec.err")"
grep -qx "status 0" "$tmp/rec.txt" || bad "the program did not exit 0"

# the file offset: objdump's
want=$(objdump -dF "$PROG" |
	sed -n 's/^[0-9a-f]* <target> (File Offset: 0x\([0-9a-f]*\)):$/\1/p')
read -r _ path off < <(grep '^uprobe ' "$tmp/rec.txt")
[ "$path" = "$(realpath "$PROG")" ] || bad "uprobe on '$path'"
if [ -z "$want" ] || [ "$off" != $((0x$want)) ]; then
	bad "uprobe at offset $off, objdump's 0x$want"
fi

# the samples, as perf reads them (perf report -D: perf script's Intel PT
# decoder stops at the per-CPU recording's context switches, which are not
# CPU-wide as the file says), each in the program's code at target's file
# offset through its MMAP2; qpt dump reads as many
perf report -D -i "$tmp/u.data" >"$tmp/dump.txt" 2>"$tmp/perf.err" ||
	bad "perf report -D: $(head -1 "$tmp/perf.err")"
python3 - "$tmp/dump.txt" "$(realpath "$PROG")" "$off" >"$tmp/samples.txt" <<'PY' ||
import re, sys
maps, out = [], []
for line in open(sys.argv[1]):
    m = re.search(r"PERF_RECORD_MMAP2 \d+/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) "
                  r"@ 0x([0-9a-f]+) .*\]: r-xp (\S+)$", line)
    if m and m.group(4) == sys.argv[2]:
        maps.append([int(m.group(i), 16) for i in (1, 2, 3)])
    m = re.search(r"\[0x([0-9a-f]+)\]: PERF_RECORD_SAMPLE\(IP, 0x2\): "
                  r"(\d+)/(\d+): 0x([0-9a-f]+) ", line)
    # not the triggers' samples (qpt:crash, with registers and stack)
    m = m if m and int(m.group(1), 16) < 0x100 else None
    if m:
        ip = int(m.group(4), 16)
        offs = [ip - s + pg for s, n, pg in maps if s <= ip < s + n]
        assert offs == [int(sys.argv[3])], (hex(ip), offs)
        print(m.group(2), m.group(3), m.group(4))
PY
	bad "a sample not at target: $(tail -1 "$tmp/samples.txt")"
[ "$(wc -l <"$tmp/samples.txt")" = $N ] ||
	bad "perf reads $(wc -l <"$tmp/samples.txt") uprobe samples, want $N"
"$QPT" dump --json -i "$tmp/u.data" |
	grep -c '"type":"SAMPLE".*"event":"uprobe"' >"$tmp/qn.txt"
[ "$(cat "$tmp/qn.txt")" = $N ] || bad "qpt dump: $(cat "$tmp/qn.txt") samples"

# the triggers: one per sample, where and in which thread it hit
python3 "$here/../emulate/crash_feature.py" "$tmp/u.data" >"$tmp/facts.txt" 2>&1 ||
	bad "crash_feature.py: $(cat "$tmp/facts.txt")"
awk '{ printf "2 0 0 %s %s 0 %s\n", $1, $2, $3 }' "$tmp/samples.txt" \
	>"$tmp/want_facts.txt"
cmp -s "$tmp/facts.txt" "$tmp/want_facts.txt" ||
	bad "triggers $(head -1 "$tmp/facts.txt"), the samples' $(head -1 "$tmp/want_facts.txt")"

# one snapshot per sample, the first with the newest units
[ "$(grep -c '^snapshot running' "$tmp/rec.txt")" = $N ] ||
	bad "$(grep -c '^snapshot running' "$tmp/rec.txt") snapshots for $N samples"
read -r _ _ end < <(grep '^snapshot running' "$tmp/rec.txt")
units "$tmp/u.data" | head -1 >"$tmp/units.txt"
[ "$(cat "$tmp/units.txt")" = "$((end - AREA_UNITS)) $((end - 1)) $AREA_UNITS" ] ||
	bad "first snapshot units $(cat "$tmp/units.txt"), want" \
		"$((end - AREA_UNITS))..$((end - 1))"

# -p: the uprobe in the running process's executable (/proc/PID/exe),
# the process told to make its calls once the events are enabled
# shellcheck source=tests/capture/wait_for.sh
. "$here/wait_for.sh"
mkfifo "$tmp/go"
"$PROG" 3 first <>"$tmp/go" >/dev/null &
target=$!
# shellcheck disable=SC2016 # wait_for evals it
wait_for '[ "$(readlink /proc/$target/exe)" = "$(realpath "$PROG")" ]'
"$REC" -p $target "$tmp/p.data" "$tmp/sys" target >"$tmp/p.txt" \
	2>"$tmp/p.err" &
rec=$!
# shellcheck disable=SC2016
if wait_for 'grep -qx started "$tmp/p.txt"'; then
	echo go >"$tmp/go"
else
	kill $target
fi
wait $target
wait $rec || bad "-p: rec_uprobe: $(cat "$tmp/p.err")"
read -r _ path _ < <(grep '^uprobe ' "$tmp/p.txt")
[ "$path" = "$(realpath "$PROG")" ] || bad "-p: uprobe on '$path'"
python3 "$here/../emulate/crash_feature.py" "$tmp/p.data" >"$tmp/pf.txt"
[ "$(awk -v p=$target '$1 == 2 && $4 == p' "$tmp/pf.txt" | wc -l)" = 3 ] ||
	bad "-p: triggers $(xargs <"$tmp/pf.txt"), want 3 in $target"
[ "$(grep -c '^snapshot running' "$tmp/p.txt")" = 3 ] ||
	bad "-p: $(grep -c '^snapshot running' "$tmp/p.txt") snapshots for 3"

# the CLI
"$QPT" record -q -S --snapshot-on=no_such_symbol --sysfs "$tmp/sys" \
	-e intel_pt//u -o "$tmp/x.data" -- "$PROG" 1 >/dev/null 2>"$tmp/err.txt"
rc=$?
[ $rc = 1 ] || bad "unknown symbol: exit $rc, want 1"
if [ "$(wc -l <"$tmp/err.txt")" != 1 ] ||
	! grep -q no_such_symbol "$tmp/err.txt"; then
	bad "unknown symbol: $(cat "$tmp/err.txt")"
fi
"$QPT" record -q --snapshot-on=target -e intel_pt//u -o "$tmp/x.data" -- \
	"$PROG" 1 2>/dev/null
[ $? = 2 ] || bad "--snapshot-on without -S: not a usage error"
"$QPT" record -q -S --snapshot-on=target -e intel_pt//u -a -o "$tmp/x.data" \
	2>/dev/null
[ $? = 2 ] || bad "--snapshot-on -a: not a usage error"
[ $fail = 0 ] && echo "$N calls: $N uprobe samples, $N triggers, $N snapshots"
exit $fail
