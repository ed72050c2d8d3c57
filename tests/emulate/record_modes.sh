#!/bin/bash
# qpt record --emulate options, checked with perf and the single-step ground
# truth: a bad command (one line, exit 127, no file); full-trace mode with
# an AUX area smaller than the trace (several AUXTRACE buffers, perf decode
# == ground truth); snapshot mode (the decode is a suffix of the ground
# truth, AUXTRACE_INFO says snapshot mode); noretcomp (config bit 11, same
# decode); qpt info names the event as emulated.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
prog=$DIR/emu_flow

# bad command
env -i "$QPT" record --emulate -o bad.data -- ./no-such-command 2>err.txt
rc=$?
[ $rc -eq 127 ] || bad "bad command: exit $rc, want 127"
[ "$(wc -l <err.txt)" -eq 1 ] || bad "bad command: $(wc -l <err.txt) lines"
grep -q "no-such-command" err.txt || bad "bad command: $(cat err.txt)"
[ ! -e bad.data ] || bad "bad command left bad.data"

# an output that cannot be created: one line, exit 1, the command killed
timeout 60 "$QPT" record --emulate -o /nonexistent/dir/x.data -- "$prog" \
	>/dev/null 2>err.txt
rc=$?
[ $rc -eq 1 ] || bad "bad output: exit $rc, want 1"
[ "$(wc -l <err.txt)" -eq 1 ] || bad "bad output: $(cat err.txt)"

env -i "$GT" gt.txt -- "$prog" >/dev/null
awk '{ print $2 }' gt.txt >want.txt
n=$(wc -l <want.txt)

# full-trace mode, 4 KiB AUX area: every byte arrives in several buffers
env -i "$QPT" record --emulate -m 8,1 -o full.data -- "$prog" >/dev/null \
	2>rec.txt || bad "record -m 8,1: $(cat rec.txt)"
perf script -i full.data --itrace=i0ns -F ip 2>/dev/null |
	awk '{ print $1 }' >full.txt
cmp -s want.txt full.txt || bad "-m 8,1: perf decode != ground truth"
bufs=$(perf report -D -i full.data 2>/dev/null | grep -c "PERF_RECORD_AUXTRACE size")
[ "$bufs" -ge 2 ] || bad "-m 8,1: $bufs AUXTRACE buffers, want several"

# snapshot mode: the newest 4 KiB, decoded from its first PSB
env -i "$QPT" record --emulate -S -m 8,1 -e intel_pt/psb_period=0/u \
	-o snap.data -- "$prog" >/dev/null 2>rec.txt ||
	bad "record -S: $(cat rec.txt)"
perf script -i snap.data --itrace=i0ns -F ip 2>/dev/null |
	awk '{ print $1 }' >snap.txt
s=$(wc -l <snap.txt)
if [ "$s" -lt 1000 ] || [ "$s" -ge "$n" ]; then
	bad "-S: $s instructions decoded of $n"
elif ! tail -n "$s" want.txt | cmp -s - snap.txt; then
	bad "-S: decode is not the ground truth's last $s instructions"
fi
perf report -D -i snap.data 2>/dev/null | grep -q "Snapshot mode *1" ||
	bad "-S: AUXTRACE_INFO not in snapshot mode"

# no return compression
env -i "$QPT" record --emulate -e intel_pt/noretcomp=1/u -o nrc.data \
	-- "$prog" >/dev/null 2>rec.txt || bad "noretcomp: $(cat rec.txt)"
perf script -i nrc.data --itrace=i0ns -F ip 2>/dev/null |
	awk '{ print $1 }' | cmp -s want.txt - || bad "noretcomp: decode differs"
"$QPT" info -i nrc.data 2>/dev/null | grep "qpt-emulated" |
	grep -q "config = 0x300ee01" || bad "noretcomp: event config"
perf report -D -i nrc.data 2>/dev/null | grep -q "NoRETComp bit *0x800" ||
	bad "AUXTRACE_INFO NoRETComp bit"

# TSC packets from the host clock: same decode, and perf gives each
# instruction a time within the recording, never going backwards
env -i "$QPT" record --emulate -e intel_pt/tsc/u -o tsc.data -- "$prog" \
	>/dev/null 2>rec.txt || bad "tsc: $(cat rec.txt)"
perf script -i tsc.data --itrace=i0ns -F time,ip 2>/dev/null >tsc.txt
awk '{ print $2 }' tsc.txt | cmp -s want.txt - || bad "tsc: decode differs"
awk '{ t = $1 + 0; if (t <= 0 || t < last) { print "bad time " $0; exit 1 }
	last = t }' tsc.txt || bad "tsc: times missing or going backwards"

# a snapshot on SIGUSR2 while the command runs (it says so through a fifo;
# qpt's handlers are set before it starts), and one at its end (it exits 3
# on SIGTERM, which qpt passes on)
mkfifo usr2.fifo
env -i "$QPT" record --emulate -S -m 8,1 -e intel_pt/psb_period=0/u \
	-o usr2.data -- "$DIR/emu_forever_static" handle >usr2.fifo \
	2>rec.txt &
qpid=$!
exec 3<usr2.fifo
read -r _ _ <&3
size=$(stat -c %s usr2.data)
kill -USR2 $qpid
# the snapshot is in the file once it grows
for _ in $(seq 300); do
	[ "$(stat -c %s usr2.data)" -gt "$size" ] && break
	sleep 0.05
done
kill -TERM $qpid
wait $qpid
rc=$?
exec 3<&-
[ $rc -eq 3 ] || bad "record -S with SIGUSR2: exit $rc: $(cat rec.txt)"
snaps=$(perf report -D -i usr2.data 2>/dev/null | grep -c "PERF_RECORD_AUXTRACE size")
[ "$snaps" -ge 2 ] || bad "SIGUSR2: $snaps snapshots, want 2"
perf script -i usr2.data --itrace=i0ns -F ip 2>/dev/null | awk '{ print $1 }' >u.txt
[ "$(wc -l <u.txt)" -gt 1000 ] || bad "SIGUSR2: little decoded"

# a usage error
"$QPT" record --emulate -e intel_pt/ptw/u -- true 2>/dev/null
[ $? -eq 2 ] || bad "an unemulated term is not a usage error"

[ $fail -eq 0 ] && echo "ok: $n instructions; snapshot $s; $bufs buffers"
exit $fail
