#!/usr/bin/env bash
# Faults injected into a recording on the simulated kernel (sim_fault.c
# says how), one class at a time:
#  - EINTR and EAGAIN on every kernel call (perf_event_open, ioctl, mmap,
#    poll, the AUX event's enable and disable) and every write of the
#    output (every other call fails, so every call fails once), short
#    writes on every write: the recording is whole;
#  - perf_event_open failing with EACCES, EBUSY, EMFILE, ENODEV, E2BIG,
#    mmap with ENOMEM and EPERM, EINTR without end: one line naming the
#    cause, exit 1, no file;
#  - ENOSPC and EIO on every write of the output: one line, exit 1; once
#    the recording had started, the file reads whole in perf and qpt and
#    holds every unit drained before the failure;
#  - the PMU going away mid-run: one line, exit 1, the command ended, the
#    file reads up to there.
# Every run ends (a timeout would fail it), and leaves no fd open and no
# child unreaped (checked through /proc by sim_fault).  Oracles: perf
# report -D (its warnings, the units' numbers in the TSC packets of each
# CPU's AUXTRACE buffers: aux_units.py), the simulator's counts.
# Args: SIM_FAULT
set -u
SIM=$1
QPT=${QPT:?}
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
AREA_UNITS=$((16 * $(getconf PAGESIZE) / 32))

# run NAME [SIM OPTIONS]: sim_fault records `cat` (its stdin closed after
# the fourth poll); $rc, $tmp/out.txt, $tmp/err.txt
run() {
	local name=$1
	shift
	rm -f "$tmp/$name.data"
	timeout 60 "$SIM" "$@" "$tmp/$name.data" "$tmp/sys" -- cat \
		>"$tmp/out.txt" 2>"$tmp/err.txt"
	rc=$?
	[ $rc != 124 ] || bad "$name: did not end"
	local leaks
	leaks=$(awk '$1 == "leaks" { print $2, $3 }' "$tmp/out.txt")
	[ "$leaks" = "0 0" ] || bad "$name: leaked fds, children: $leaks"
}

val() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/out.txt"; }
calls() { awk -v k="$1" '$1 == "calls" { for (i = 2; i < NF; i += 2)
	if ($i == k) print $(i + 1) }' "$tmp/out.txt"; }

# perf reads the file without a warning or an error (its dump in
# $tmp/dump.txt), and so does qpt
reads() {
	local name=$1
	perf report -D -i "$tmp/$name.data" >"$tmp/dump.txt" 2>"$tmp/perf.err" ||
		bad "$name: perf report fails: $(head -1 "$tmp/perf.err")"
	if grep -i -E 'warn|error|lost' "$tmp/perf.err" >/dev/null; then
		bad "$name: perf: $(grep -i -E 'warn|error|lost' "$tmp/perf.err" | head -1)"
	fi
	"$QPT" dump -i "$tmp/$name.data" >/dev/null 2>"$tmp/qpt.err" ||
		bad "$name: qpt dump: $(cat "$tmp/qpt.err")"
}

# whole NAME [SIM OPTIONS]: the run succeeds; full trace: each CPU's
# buffers hold every unit made, in order
whole() {
	local name=$1 was=$fail
	shift
	run "$name" "$@"
	[ $rc = 0 ] || { bad "$name: exit $rc: $(cat "$tmp/err.txt")"; return 1; }
	[ ! -s "$tmp/err.txt" ] || bad "$name: stderr: $(cat "$tmp/err.txt")"
	reads "$name"
	python3 "$here/aux_units.py" whole "$(val units)" <"$tmp/dump.txt" \
		>"$tmp/units.txt" ||
		bad "$name: $(cat "$tmp/units.txt"), want 0..$(($(val units) - 1)) per CPU"
	[ "$fail" = "$was" ]
}

# one_line NAME PATTERN: exit 1 and one line on stderr, matching PATTERN
one_line() {
	local name=$1 pat=$2
	[ $rc = 1 ] || bad "$name: exit $rc, want 1"
	[ "$(wc -l <"$tmp/err.txt")" = 1 ] ||
		bad "$name: not one line: $(cat "$tmp/err.txt")"
	grep -q -E "^qpt: .*$pat" "$tmp/err.txt" ||
		bad "$name: '$(cat "$tmp/err.txt")' does not say '$pat'"
}

# refused NAME PATTERN [SIM OPTIONS]: one line, exit 1, no file
refused() {
	local name=$1 pat=$2 was=$fail
	shift 2
	run "$name" "$@"
	one_line "$name" "$pat"
	! grep -q '^started' "$tmp/out.txt" || bad "$name: the recording started"
	[ ! -e "$tmp/$name.data" ] || bad "$name: left a file"
	[ "$fail" = "$was" ]
}

# cut NAME PATTERN [SIM OPTIONS]: one line, exit 1; once started, the file
# reads, and in full-trace mode each CPU's buffers hold units 0..K-1, every
# unit kept before the failure
cut() {
	local name=$1 pat=$2 was=$fail
	shift 2
	run "$name" "$@"
	one_line "$name" "$pat"
	grep -q '^started' "$tmp/out.txt" || { [ "$fail" = "$was" ]; return; }
	reads "$name"
	[ "$1" != -S ] || { [ "$fail" = "$was" ]; return; }
	python3 "$here/aux_units.py" prefix "$(val kept)" "$(val units)" \
		<"$tmp/dump.txt" >"$tmp/units.txt" ||
		bad "$name: $(cat "$tmp/units.txt"); $(val kept) of $(val units) kept"
	[ "$fail" = "$was" ]
}

# The run without faults: how many calls of each kind it makes.
whole clean || exit 1
declare -A N
for c in open ioctl map poll write enable disable; do
	N[$c]=$(calls $c)
done
echo "clean: ok: $(val units) units per CPU; calls: $(grep '^calls' "$tmp/out.txt")"

# EINTR and EAGAIN on every call, short writes: the recording is whole.
n=0
for c in open ioctl map poll write; do
	for e in EINTR EAGAIN; do
		whole "$c-$e" -f "$c:1:$e:alt" && n=$((n + 1))
	done
done
whole short-writes -f write:1:short:0 && n=$((n + 1))
whole interrupts -f open:1:EINTR:3 -f ioctl:1:EAGAIN:3 -f map:1:EINTR:3 \
	-f poll:1:EINTR:3 -f write:1:EAGAIN:3 && n=$((n + 1))
echo "transient: ok: $n runs whole"

# The AUX event's enable and disable: snapshot mode takes one snapshot at
# the end, its disable and enable interrupted.
for e in EINTR EAGAIN; do
	run snap-$e -S -f disable:1:$e:3 -f enable:1:$e:3
	[ $rc = 0 ] || bad "snap-$e: exit $rc: $(cat "$tmp/err.txt")"
	reads snap-$e
	python3 "$here/aux_units.py" newest "$(val units)" "$AREA_UNITS" \
		<"$tmp/dump.txt" >"$tmp/units.txt" ||
		bad "snap-$e: $(cat "$tmp/units.txt"), want the newest of" \
			"$(val units) units, as many as the area holds"
done
echo "snapshot: ok: interrupted disable and enable"

# The kernel refuses the events (the first or the last), or their rings.
last=${N[open]}
for at in 1 "$last"; do
	refused eacces-"$at" "no permission" -f open:"$at":EACCES
	refused ebusy-"$at" "busy" -f open:"$at":EBUSY
	refused emfile-"$at" "too many open files" -f open:"$at":EMFILE
	refused enodev-"$at" "not supported" -f open:"$at":ENODEV
	refused e2big-"$at" "E2BIG" -f open:"$at":E2BIG
done
refused eintr-forever "Interrupted system call" -f open:1:EINTR:0
refused enomem-map "cannot map .* over the locked-memory" -f map:2:ENOMEM
refused eperm-map "cannot map .* over the locked-memory" -f map:1:EPERM
refused ioctl-id "PERF_EVENT_IOC_ID: No such device" -f ioctl:1:ENODEV
refused ioctl-output "cannot share the ring buffer" -f ioctl:2:ENODEV
echo "refused: ok: EACCES, EBUSY, EMFILE, ENODEV, E2BIG; mmap's ENOMEM, EPERM"

# The disk fills up at every write, or fails at the first, a middle and
# the last one.
n=0
for ((i = 1; i <= N[write]; i++)); do
	cut enospc-$i "No space left on device" -f write:$i:ENOSPC && n=$((n + 1))
done
for i in 1 $((N[write] / 2)) "${N[write]}"; do
	cut eio-"$i" "Input/output error" -f write:"$i":EIO && n=$((n + 1))
done
cut eagain-forever "Resource temporarily unavailable" \
	-f write:$((N[write] / 2)):EAGAIN:0 && n=$((n + 1))
echo "write errors: ok: $n runs"

# The PMU goes away after the second poll: the command (which would run
# on) is ended, the file holds what was drained.
cut gone "did the PMU go away" -g 2 -P 1000
[ "$(val status)" = 15 ] || bad "gone: the command's status $(val status), want SIGTERM"
[ "$(grep -c '^info the kernel ended the events of ring' "$tmp/out.txt")" = 2 ] ||
	bad "gone: $(grep -c '^info the kernel' "$tmp/out.txt") rings said ended, want 2"
! grep -q '^warning' "$tmp/out.txt" || bad "gone: $(grep '^warning' "$tmp/out.txt")"
cut gone-snapshot "" -S -g 2 -P 1000
echo "gone: ok: $(xargs <"$tmp/err.txt")"
exit $fail
