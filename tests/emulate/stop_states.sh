#!/bin/bash
# A stop or snapshot request is served at once, whatever the engine is
# doing.  emu_forever runs for ever in four states: a counted loop the
# breakpoint engine runs natively, its trips told every slice ("count":
# the tracer is either waiting on the loop or telling its trips), long
# stretches of code with no branch ("clear": rep stosb of 64 MiB), blocked
# in pause() ("block"), and code that stops at every branch ("spin").  In
# each state, SIGINT, SIGTERM, SIGHUP and --control stop end qpt (the
# command gets the signal and dies of it), and SIGUSR2 and --control
# snapshot write a snapshot; the test measures from the request to qpt's
# exit, to the file's growth (a snapshot where the command makes trace),
# or to the ack on the control's ack FIFO (a snapshot served; after a
# SIGUSR2 where there is no new trace to show it, the ack of a snapshot
# asked next through the FIFO).  Bound: each kind's median within 100 ms,
# none over a second, on a machine with a CPU free for each runnable task;
# on a busier one both bounds grow with the load per CPU (a run queue of
# 20 on 2 CPUs gives each task a tenth of a CPU): the larger of the load
# average and the mean run queue seen at the requests (the load average
# trails a load that came within the last minute).  The test waits for
# qpt's end or an ack without taking a CPU from it.  Every file left
# decodes in perf and qpt without an error, and the command is gone.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
mkfifo out.fifo ctl.fifo ack.fifo
exec 4<>ack.fifo
prog=$DIR/emu_forever_static

# the clock in milliseconds, in $now (no process: the test must not take
# the CPU qpt needs to serve a request)
clock() { now=${EPOCHREALTIME/./}; now=$((now / 1000)); }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# qpt on the command in state $1 with options $2...; waits until the
# command runs in that state
start() { # STATE OPTS...
	local state=$1
	shift
	env -i "$QPT" record --emulate "$@" -o s.data -- "$prog" "$state" \
		>out.fifo 2>rec.err &
	qpid=$!
	exec 3<out.fifo
	read -r _ cmd <&3
	case $state in
	block) # until it sleeps in pause()
		while [ "$(awk '{ print $3 }' "/proc/$cmd/stat" 2>/dev/null)" \
			!= S ]; do :; done ;;
	count) # until it ran natively more than a slice (30 ms of user time)
		while [ "$(awk '{ print $14 }' "/proc/$cmd/stat")" -lt 3 ]; do
			:
		done ;;
	esac
}

# a request is made now: $t, the clock; the run queue counted for the
# bounds' scale (/proc/loadavg's runnable tasks, this shell among them
# standing for the woken qpt)
request() {
	local _ r
	read -r _ _ _ r _ </proc/loadavg
	runq=$((runq + ${r%/*})) nreq=$((nreq + 1))
	clock
	t=$now
}
runq=0 nreq=0

# $ms: milliseconds from T0 until qpt ends (waited for where qpt's
# stdout, the FIFO, closes: its end, not a poll; at most 15 s)
ends_in() { # T0
	local rc
	while :; do # (a while loop's status is its body's, not read's)
		read -r -t 15 _ <&3 || { rc=$?; break; }
	done
	[ "$rc" -gt 128 ] || wait "$qpid" # > 128: timed out, qpt runs on
	clock
	ms=$((now - $1))
}

# $ms: milliseconds until qpt acks a control command (at most 15 s)
acked_in() { # T0
	read -r -t 15 _ <&4
	clock
	ms=$((now - $1))
}

# $ms: milliseconds until s.data grows past SIZE (at most 15 s)
grows_in() { # T0 SIZE
	clock
	while [ "$(size s.data)" -le "$2" ] && [ $((now - $1)) -lt 15000 ]; do
		clock
	done
	ms=$((now - $1))
}

# (an overflow is no error: where a stop request cut the telling short)
checked() { # WHAT
	local e
	e=$(perf script -i s.data --itrace=e 2>&1 | grep 'error type' |
		grep -vc 'Overflow packet')
	[ "$e" -eq 0 ] || bad "$1: perf reports $e decode errors"
	"$QPT" decode -i s.data --branches >dec.txt 2>dec.err ||
		bad "$1: qpt decode: $(head -1 dec.err)"
	grep -q '\[error' dec.txt && bad "$1: qpt: $(grep -m1 '\[error' dec.txt)"
}

stops="" snaps=""
for state in count clear block spin; do
	for sig in INT TERM HUP; do
		start $state
		request
		kill -s $sig "$qpid"
		ends_in "$t"
		stops="$stops $ms"
		echo "$state: SIG$sig served in $ms ms"
		await_qpt "$state, SIG$sig" $((128 + $(kill -l $sig)))
		checked "$state, SIG$sig"
	done
	start $state -S -m ,256K --control ctl.fifo,ack.fifo
	n=$(size s.data)
	request
	kill -s USR2 "$qpid"
	case $state in
	count | spin) grows_in "$t" "$n" ;;
	*)
		echo snapshot >ctl.fifo
		acked_in "$t"
		;;
	esac
	snaps="$snaps $ms"
	echo "$state: snapshot (SIGUSR2) served in $ms ms"
	request
	echo snapshot >ctl.fifo
	acked_in "$t"
	snaps="$snaps $ms"
	echo "$state: snapshot (--control) served in $ms ms"
	request
	echo stop >ctl.fifo
	ends_in "$t"
	stops="$stops $ms"
	echo "$state: --control stop served in $ms ms"
	await_qpt "$state, --control stop" 143
	# the stop is acked too (as perf's): read, or the next state's first
	# ack would be this one
	read -r -t 1 _ <&4 || bad "$state: --control stop not acked"
	checked "$state, snapshots"
	if [ "$state" = count ] &&
		! perf script -i s.data --itrace=b -F ip,sym 2>/dev/null |
		grep -q ' count$'; then
		bad "count: the snapshots hold no trip of the loop"
	fi
done

# the bounds' scale: the load per CPU, at least 1
scale=$(awk -v n="$(nproc)" -v q="$runq" -v k="$nreq" '{
	s = $1 / n; r = q / k / n
	if (r > s) s = r
	printf "%.2f", (s > 1 ? s : 1) }' /proc/loadavg)
judge() { # WHAT TIMES...
	local what=$1 med max lim1 lim2
	shift
	med=$(printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	max=$(printf '%s\n' "$@" | sort -n | tail -1)
	lim1=$(awk -v s="$scale" 'BEGIN { printf "%d", 100 * s }')
	lim2=$(awk -v s="$scale" 'BEGIN { printf "%d", 1000 * s }')
	echo "$what: median $med ms, most $max ms ($*); bounds $lim1 and" \
		"$lim2 ms (load per CPU $scale)"
	[ "$med" -le "$lim1" ] || bad "$what: median $med ms, over $lim1"
	[ "$max" -le "$lim2" ] || bad "$what: one took $max ms, over $lim2"
}
# shellcheck disable=SC2086
judge stops $stops
# shellcheck disable=SC2086
judge snapshots $snaps

[ $fail -eq 0 ] && echo "ok: every request served at once in every state"
exit $fail
