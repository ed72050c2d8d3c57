#!/bin/bash
# qpt record --emulate --control FIFO: the recorder's control FIFO works
# for the emulated source as for the PMU's.  "snapshot" writes a snapshot
# while the command runs (the AUXTRACE record is in the file before qpt
# ends); "stop" ends the recording as SIGTERM would (the command gets
# SIGTERM: qpt exits 143, nothing is left behind), also while the command
# sleeps in pause(); perf decodes the snapshots without errors.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
mkfifo out.fifo ctl.fifo

auxtraces() { # FILE: its AUXTRACE records
	perf report -D -i "$1" 2>/dev/null | grep -c "PERF_RECORD_AUXTRACE size"
}

run() { # MODE
	env -i "$QPT" record --emulate -S -m 8,8 --control ctl.fifo \
		-o c.data -- "$DIR/emu_forever_static" "$1" >out.fifo \
		2>rec.err &
	qpid=$!
	exec 3<out.fifo
	read -r _ cmd <&3
	if [ "$1" = block ]; then # until it sleeps in pause()
		while [ "$(awk '{ print $3 }' "/proc/$cmd/stat" 2>/dev/null)" \
			!= S ]; do :; done
	fi
}

# a snapshot on request while the command computes, then stop
run spin
echo snapshot >ctl.fifo
for _ in $(seq 300); do
	[ "$(auxtraces c.data)" -ge 1 ] && break
	sleep 0.05
done
n=$(auxtraces c.data)
[ "$n" -ge 1 ] || bad "snapshot: no AUXTRACE in the file while qpt runs"
kill -0 "$qpid" 2>/dev/null || bad "snapshot: qpt ended early"
echo stop >ctl.fifo
await_qpt spin 143
n=$(auxtraces c.data)
[ "$n" -ge 2 ] || bad "spin: $n snapshots, want 2 (requested, final)"
d=$(perf script -i c.data --itrace=i0ns -F ip 2>/dev/null | wc -l)
e=$(perf script -i c.data --itrace=e 2>&1 | grep -ci error)
[ "$d" -gt 1000 ] || bad "spin: perf decodes $d instructions"
[ "$e" -eq 0 ] || bad "spin: perf reports $e decode errors"

# stop while the command is blocked in the kernel
run block
echo stop >ctl.fifo
await_qpt block 143
perf report -D -i c.data >/dev/null 2>&1 || bad "block: perf cannot read it"

[ $fail -eq 0 ] && echo "ok: snapshots on request and stop by the FIFO"
exit $fail
