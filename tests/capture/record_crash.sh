#!/usr/bin/env bash
# qpt record --on-signal with the PMU source on the real kernel, a
# software event (task-clock: the ptrace watch is the same for every
# PMU), for a command and for -p PID.  Oracles: the program's exit status
# alone (the kernel's), the faulting ip of the single-stepper (gt_step,
# ASLR off as here with setarch -R; crash_common.sh), the crash facts read
# from the file without qpt (crash_feature.py), perf reading the file;
# -p: the process's own parent sees its real status, and a process let go
# when the recording stops has no tracer and runs on to its own end; a
# command still running when the recording stops gets the stop signal.
# Args: GT_STEP PROG_DIR
set -u
GT=$1 DIR=$2
here=$(dirname "$0")
command -v perf >/dev/null || exit 77
command -v objdump >/dev/null || exit 77
perf stat -e task-clock:u true >/dev/null 2>&1 || exit 77
# shellcheck source=tests/capture/crash_common.sh
. "$here/crash_common.sh"
# shellcheck source=tests/capture/wait_for.sh
. "$here/wait_for.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
tracer_of() {
	awk '/^TracerPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# check NAME PID K SIGNO CODE PROG ARGS: the file NAME.data's one crash
# entry (of process PID; K-th thread in the order they ran) against the
# oracles
check() {
	local name=$1 pid=$2 k=$3 signo=$4 code=$5 ip
	shift 5
	perf report -D -i "$name.data" >/dev/null 2>perf.err ||
		bad "$name: perf report -D: $(head -1 perf.err)"
	python3 "$here/../emulate/crash_feature.py" "$name.data" >facts.txt
	read -r kind fsig fcode fpid ftid _ fip <facts.txt
	ip=$(fault_ip "$GT" "$k" "$@")
	[ "$(wc -l <facts.txt)" = 1 ] || bad "$name: $(wc -l <facts.txt) entries"
	[ "$kind $fsig $fcode" = "1 $signo $code" ] ||
		bad "$name: facts $kind $fsig $fcode, want 1 $signo $code"
	[ -z "$pid" ] || [ "$fpid" = "$pid" ] || bad "$name: pid $fpid, want $pid"
	[ $k = 0 ] && [ "$ftid" != "$fpid" ] && bad "$name: tid $ftid"
	[ $k != 0 ] && [ "$ftid" = "$fpid" ] && bad "$name: tid $ftid is the leader"
	[ "$fip" = "$ip" ] || bad "$name: ip $fip, the single-stepper's $ip"
	echo "$name: signal $fsig code $fcode in $fpid/$ftid at 0x$fip"
}

S=$DIR/emu_crashy_static
# a command: the same exit status as alone
for c in "segv 0 11 1 $S" "thread 1 11 1 $S thread" "fpe 0 8 1 $DIR/emu_crashy fpe"; do
	# shellcheck disable=SC2086
	set -- $c
	name=$1 k=$2 sig=$3 code=$4
	shift 4
	{ (setarch -R "$@" >/dev/null 2>&1); } 2>/dev/null
	want=$?
	setarch -R "$QPT" record -q -e task-clock:u --on-signal=SEGV,FPE \
		-o "$name.data" -- "$@" >/dev/null 2>rec.err
	got=$?
	[ "$got" = "$want" ] || bad "$name: qpt record exits $got, alone $want"
	[ ! -s rec.err ] || bad "$name: $(cat rec.err)"
	check "$name" "" "$k" "$sig" "$code" "$@"
done

# attach NAME SCRIPT: a shell running SCRIPT once told to (through the
# fifo go), qpt record -p on it (NAME.data); $target, $rec once traced
mkfifo go
attach() {
	setarch -R /bin/sh -c "read x <go; $2" &
	target=$!
	"$QPT" record -q -e task-clock:u --on-signal=SEGV -o "$1.data" \
		-p $target 2>rec.err &
	rec=$!
	wait_for '[ "$(tracer_of $target)" = $rec ]'
}

# -p: the shell execs the crashing program; its parent (this script) sees
# it die of SIGSEGV
attach pid "exec $S"
echo go >go
wait $target
st=$?
wait $rec
[ $? = 0 ] || bad "-p: qpt record: $(cat rec.err)"
[ $st = 139 ] || bad "-p: the process's parent sees $st, want 139"
check pid "$target" 0 11 1 "$S"

# -p stopped first: the process is let go (no tracer) and ends as its own
attach let "exit 3"
kill -INT $rec
wait $rec
[ "$(tracer_of $target)" = 0 ] || bad "let go: traced by $(tracer_of $target)"
echo go >go
wait $target
st=$?
[ $st = 3 ] || bad "let go: exit $st, want 3"
if python3 "$here/../emulate/crash_feature.py" let.data | grep -q .; then
	bad "let go: crash facts"
fi
echo "let go: untraced, exit $st"

# the recording stopped first (SIGINT to qpt): the command gets the
# signal through the watch and dies of it, qpt exits with its status
"$QPT" record -q -e task-clock:u --on-signal=SEGV -o int.data -- \
	/bin/sh -c 'read x <go' 2>rec.err &
rec=$!
wait_for '[ -n "$(cat /proc/$rec/task/$rec/children 2>/dev/null)" ]'
child=$(cat /proc/$rec/task/$rec/children)
wait_for '[ "$(tracer_of $child)" = $rec ]'
kill -INT $rec
wait $rec
st=$?
[ $st = 130 ] || bad "stopped: qpt record exits $st, want 130 (SIGINT)"
[ -e /proc/$child ] && bad "stopped: the command $child still runs"
echo "stopped: the command died of SIGINT, exit $st"

# the watch needs a command or a process
"$QPT" record -e task-clock:u --on-signal=SEGV -a -o x.data 2>err.txt
[ $? = 2 ] || bad "--on-signal -a: not a usage error"
exit $fail
