#!/bin/bash
# qpt record --emulate=qemu at its edges, each against what the program or
# QEMU says:
#  - SIGINT to qpt ends the recording of a command that computes within a
#    second (exit 130); perf and qpt decode the file without errors;
#  - snapshot mode with --control: "snapshot" writes one while the command
#    runs, "stop" ends it (143), perf decodes the snapshots;
#  - --snapshot-on=SYM: one snapshot per call, as many as QEMU's log has
#    entries at SYM's address;
#  - fork: the child's trace begins at the instruction the program says
#    its child starts at; exec: a warning, the program's exit status;
#  - a crash: qpt crash names the signal and points to --emulate=fast;
#  - bad input: no qemu-x86_64 there, a plugin of another API version
#    (exit 1, one line each), a command QEMU cannot run (127).
# Args: PROG_DIR PLUGIN_V99
set -u
DIR=$1 V99=$2
QEMU=$(command -v qemu-x86_64) || { echo "no qemu-x86_64: skip"; exit 77; }
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
[ -x "$QPT" ] || { echo "no qpt"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkfifo out.fifo ctl.fifo

# shellcheck source=tests/emulate/decodes.sh
. "$(dirname "$0")/decodes.sh"

# qpt ($qpid) ends within 15 s and exits WANT_RC
await_qpt() { # WHAT WANT_RC
	local rc
	for _ in $(seq 300); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$qpid" 2>/dev/null && { bad "$1: qpt still runs"
					 kill -KILL "$qpid"; }
	wait "$qpid"
	rc=$?
	exec 3<&-
	[ $rc -eq "$2" ] || bad "$1: qpt exits $rc, want $2: $(cat rec.err)"
}

start() { # OPTIONS... (the command prints "ready PID" when it runs)
	env -i "$QPT" record --emulate=qemu "$@" >out.fifo 2>rec.err &
	qpid=$!
	exec 3<out.fifo
	read -r _ cmd <&3
}

# SIGINT while the command computes
start -o int.data -- "$DIR/emu_forever_static" spin
t0=$(date +%s%N)
kill -INT "$qpid"
await_qpt sigint 130
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 1000 ] || bad "sigint: qpt took $ms ms to end"
decodes int.data sigint

# snapshots by the control FIFO
start -S -m 8,8 --control ctl.fifo -o c.data -- \
	"$DIR/emu_forever_static" spin
echo snapshot >ctl.fifo
for _ in $(seq 300); do
	perf report -D -i c.data 2>/dev/null | grep -q "RECORD_AUXTRACE size" &&
		break
	sleep 0.05
done
kill -0 "$qpid" 2>/dev/null || bad "snapshot: qpt ended early"
echo stop >ctl.fifo
await_qpt control 143
n=$(perf report -D -i c.data 2>/dev/null | grep -c "RECORD_AUXTRACE size")
[ "$n" -ge 2 ] || bad "control: $n snapshots, want 2 (requested, final)"
decodes c.data control

# --snapshot-on: a snapshot at each entry of depth (QEMU's log counts them)
addr=$(nm "$DIR/emu_flow_static" | awk '$3 == "depth" { sub(/^0+/, "", $1);
	print $1 }')
env -i setarch -R "$QEMU" -singlestep -d exec,nochain -D log.txt \
	"$DIR/emu_flow_static" >/dev/null
want=$(grep -c "/0*$addr/" log.txt)
env -i "$QPT" record -q --emulate=qemu -S --snapshot-on=depth -o so.data \
	-- "$DIR/emu_flow_static" >/dev/null 2>rec.err ||
	bad "snapshot-on: qpt record fails: $(cat rec.err)"
n=$(perf report -D -i so.data 2>/dev/null | grep -c "RECORD_AUXTRACE size")
[ "$n" -eq $((want + 1)) ] ||
	bad "snapshot-on: $n snapshots, want $want hits and the last"

# fork: the child's first instruction; exec: a warning
env -i "$QPT" record -q --emulate=qemu -o f.data -- "$DIR/emu_clone_fork" \
	>out.txt 2>rec.err || bad "fork: qpt record fails: $(cat rec.err)"
child=$(sed -n 's/^child 0*\([0-9a-f]*\)$/\1/p' out.txt)
ctid=$("$QPT" dump -i f.data | sed -n 's/.*RECORD_FORK(\([0-9]*\):.*/\1/p')
first=$("$QPT" decode -i f.data --no-sym 2>/dev/null |
	awk -v t="$ctid" '$1 == t && / insn: / { for (i = 2; i <= NF; i++)
	if ($i == "insn:") { print $(i - 1); exit } }')
[ -n "$child" ] && [ "$first" = "$child" ] ||
	bad "fork: the child ($ctid)'s trace starts at '$first', not '$child'"
env -i "$QPT" record -q --emulate=qemu -o e.data -- "$DIR/emu_forkexec" \
	>/dev/null 2>rec.err || bad "exec: qpt record fails: $(cat rec.err)"
grep -q "exec of .*emu_forkexec is not traced" rec.err ||
	bad "exec: no warning: $(cat rec.err)"

# a crash
env -i "$QPT" record -q --emulate=qemu -o cr.data -- "$DIR/emu_crash_static" \
	>/dev/null 2>rec.err
rc=$?
[ $rc -eq 139 ] || bad "crash: qpt exits $rc, want 139"
"$QPT" crash -i cr.data >crash.txt 2>&1
grep -q "killed by SIGSEGV" crash.txt && grep -q -- "--emulate=fast" crash.txt ||
	bad "crash: qpt crash says: $(head -3 crash.txt)"

# bad input: one line, exit 1 (127: a command QEMU cannot run)
one_line() { # WHAT WANT_RC WANT_TEXT RC
	[ "$4" -eq "$2" ] || bad "$1: exit $4, want $2: $(cat rec.err)"
	[ "$(wc -l <rec.err)" -eq 1 ] || bad "$1: not one line: $(cat rec.err)"
	grep -q "$3" rec.err || bad "$1: '$3' not said: $(cat rec.err)"
}
"$QPT" record -q --emulate=qemu --qemu "$tmp/none" -o b.data -- /bin/true \
	2>rec.err
one_line "no qemu" 1 "not found" $?
mkdir v99
ln -s "$V99" v99/qpt-qemu.so
ln -s "$(dirname "$QPT")/qpt-qemu-cpuid" v99/qpt-qemu-cpuid
QPT_QEMU_PLUGIN=$tmp/v99/qpt-qemu.so "$QPT" record -q --emulate=qemu \
	-o b.data -- /bin/true 2>rec.err
one_line "plugin version" 1 "API version 99" $?
printf 'garbage' >garbage
chmod +x garbage
"$QPT" record -q --emulate=qemu -o b.data -- ./garbage 2>rec.err
one_line "not a program" 127 "cannot run" $?

[ $fail -eq 0 ] && echo "ok: stop, snapshots, fork, exec, crash, bad input"
exit $fail
