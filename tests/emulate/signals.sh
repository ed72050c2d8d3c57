#!/bin/bash
# qpt record --emulate and signals, as perf record and strace behave:
# - the command starts with default dispositions and nothing blocked, even
#   when qpt was started with SIGINT and SIGPIPE ignored (emu_disp reports
#   what it finds; the hardware path too, with task-clock standing in for
#   the PMU);
# - qpt exits with the command's status (exit code, 128 + N for signal N)
#   and says "program killed by SIGSEGV" where that happened;
# - SIGINT, SIGTERM or SIGHUP sent to qpt alone: it passes the signal on,
#   kills the command if it has not ended 2 s later, finishes the file and
#   exits within seconds, leaving no process behind; Ctrl-C (the whole
#   process group) likewise;
# - every file left so decodes in perf (no errors) and qpt;
# - a timer's signals stop the command wherever it runs natively, in
#   blocks and in the ways of jumps with no breakpoint (emu_ways alarm):
#   perf and qpt decode the file with no error and find the handler
#   entered as often as the command counted.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/emulate/decodes.sh
. "$(dirname "$0")/decodes.sh"
cd "$tmp" || exit 1
mkfifo out.fifo

# dispositions
want="SIGINT default SIGPIPE default blocked none"
(trap '' INT PIPE; env -i "$QPT" record -q --emulate -o d.data \
	-- "$DIR/emu_disp") >disp.txt 2>err.txt
[ "$(cat disp.txt)" = "$want" ] ||
	bad "--emulate: the command found '$(cat disp.txt)' $(cat err.txt)"
if (trap '' INT PIPE; "$QPT" record -q -e task-clock:u -o d2.data \
	-- "$DIR/emu_disp") >disp.txt 2>err.txt; then
	[ "$(cat disp.txt)" = "$want" ] ||
		bad "task-clock: the command found '$(cat disp.txt)'"
else
	echo "note: task-clock not recordable here: $(head -1 err.txt)"
fi

# exit status
env -i "$QPT" record --emulate -o crash.data -- "$DIR/emu_crash" \
	>/dev/null 2>err.txt
rc=$?
[ $rc -eq 139 ] || bad "crash: exit $rc, want 139"
grep -q "program killed by SIGSEGV" err.txt || bad "crash: $(cat err.txt)"
decodes crash.data crash
env -i "$QPT" record -q --emulate -o seven.data -- /bin/sh -c 'exit 7' \
	2>err.txt
rc=$?
[ $rc -eq 7 ] || bad "exit 7: qpt exits $rc $(cat err.txt)"

# qpt's state while it runs: its pid, the command's ($cmd); the command
# prints "ready PID" once it runs (read through the fifo, kept open)
start() { # MODE [EVENT: the hardware path with this event]
	if [ -n "${2:-}" ]; then
		env -i "$QPT" record -e "$2" -o sig.data -- \
			"$DIR/emu_forever_static" "$1" >out.fifo 2>rec.err &
	else
		env -i "$QPT" record --emulate -o sig.data -- \
			"$DIR/emu_forever_static" "$1" >out.fifo 2>rec.err &
	fi
	qpid=$!
	exec 3<out.fifo
	read -r _ cmd <&3
	if [ "$1" = block ]; then # until it sleeps in pause()
		while [ "$(awk '{ print $3 }' "/proc/$cmd/stat" 2>/dev/null)" \
			!= S ]; do :; done
	fi
}

finish() { # WHAT WANT_RC [hw: perf reads it, no Intel PT to decode]
	await_qpt "$1" "$2"
	if [ -n "${3:-}" ]; then
		perf report -D -i sig.data >/dev/null 2>&1 ||
			bad "$1: perf cannot read the file"
	else
		decodes sig.data "$1"
	fi
}

for sig in INT TERM HUP; do
	num=$(kill -l "$sig")
	for mode in spin block; do
		start $mode
		kill -s "$sig" "$qpid"
		finish "SIG$sig, $mode" $((128 + num))
	done
	# a command that ignores it: killed after the grace period
	start ignore
	kill -s "$sig" "$qpid"
	finish "SIG$sig, ignored" 137
done
# a command that handles it and exits on its own
start handle
kill -s TERM "$qpid"
finish "SIGTERM, handled" 3

# the hardware path (a software event stands in for the PMU) likewise
if "$QPT" record -q -e task-clock:u -o probe.data -- true 2>/dev/null; then
	start ignore task-clock:u
	kill -s TERM "$qpid"
	finish "task-clock, SIGTERM, ignored" 137 hw
	start spin task-clock:u
	kill -s HUP "$qpid"
	finish "task-clock, SIGHUP" 129 hw
fi

# Ctrl-C: SIGINT to the process group of qpt and the command
set -m
start spin
set +m
kill -s INT -- "-$qpid"
finish "Ctrl-C" 130

# a timer's signals, every 500 us, until 300 have come
env -i "$QPT" record -q --emulate -o alarm.data -- "$DIR/emu_ways" alarm \
	>alarm.txt 2>err.txt || bad "alarm: qpt exits $? $(head -1 err.txt)"
n=$(awk '$1 == "alarm" { print $2 }' alarm.txt)
[ "${n:-0}" -ge 300 ] 2>/dev/null ||
	bad "alarm: the command counted '$n' signals, want 300 or more"
decodes alarm.data alarm
p=$(perf script -i alarm.data --itrace=i0ns -F ip,sym,symoff 2>/dev/null |
	grep -c 'on_alarm+0x0$')
"$QPT" decode -i alarm.data >alarm.dec 2>dec.err ||
	bad "alarm: qpt decode exits $?: $(head -1 dec.err)"
q=$(grep -c ' on_alarm+0x0 insn:' alarm.dec)
e=$(grep -cE '^ *[0-9]+ +\[(error|lost|overflow)' alarm.dec)
[ "$p" = "$n" ] && [ "$q" = "$n" ] ||
	bad "alarm: the handler entered $p times (perf), $q (qpt), want $n"
[ "$e" = 0 ] || bad "alarm: qpt decode finds $e errors"

[ $fail -eq 0 ] && echo "ok: dispositions, exit status, stop signals"
exit $fail
