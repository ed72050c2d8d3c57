#!/usr/bin/env bash
# The PMU source's crash path: real programs under the recorder's ptrace
# watch, the AUX area on the simulated kernel (sim_crash.c says what it
# prints).  Oracles:
#  - the exit status: the program run alone (the kernel's);
#  - the faulting ip: the single-stepper's (gt_step, ASLR off as here with
#    setarch -R) last retired instruction of the crashing thread, and the
#    next one in objdump's listing; the code bytes: objdump's at that ip;
#  - the facts read from the file without qpt (crash_feature.py): signal,
#    si_code, tid, pid; the thread was held in its ptrace stop when the AUX
#    area was snapshotted (the simulator saw it so at the disable);
#  - perf report -D: the crash's AUXTRACE holds the newest units the
#    simulated Intel PT wrote before the snapshot (its TSC packets number
#    them), as many as the snapshot's size; the last snapshot goes on from
#    there; perf script reads the file;
#  - qpt crash --json agrees with the file's facts;
#  - the stack kept holds the caller's return address (objdump's).
# A handled signal is no crash unless re-raised; a signal outside
# --on-signal is none; a group-stop (SIGSTOP) waits for SIGCONT.
# --snapshot-on (-u): the uprobe at objdump -F's file offset of the
# symbol; each uprobe sample written into the ring is one trigger (the
# facts, without qpt) and one snapshot, holding the newest units (the
# AUXTRACE buffers follow each other, each ending at the last unit
# written before its snapshot).
# Args: SIM_CRASH GT_STEP PROG_DIR UPROBE_PROG
set -u
SIM=$1 GT=$2 DIR=$3 UPROG=$4
QPT=${QPT:?}
here=$(dirname "$0")
command -v perf >/dev/null || exit 77
command -v objdump >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

AREA_UNITS=$((16 * $(getconf PAGESIZE) / 32))
# shellcheck source=tests/capture/crash_common.sh
. "$here/crash_common.sh"
fake_sysfs "$tmp/sys" 8 7

# record NAME [SIM OPTIONS] -- PROG ARGS: sim.txt, the file, the status
# against the program alone ($ALONE when it cannot run alone)
record() {
	local name=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	if [ -n "${ALONE:-}" ]; then
		want=$ALONE
	else
		{ (setarch -R "$@" >/dev/null 2>&1); } 2>/dev/null
		want=$?
	fi
	setarch -R "$SIM" "${opts[@]}" "$tmp/$name.data" "$tmp/sys" -- "$@" \
		>"$tmp/sim.txt" 2>"$tmp/sim.err" ||
		bad "$name: sim_crash: $(cat "$tmp/sim.err")"
	got=$(shell_status "$(awk '$1 == "status" { print $2 }' "$tmp/sim.txt")")
	[ "$got" = "$want" ] ||
		bad "$name: exit $got under the watch, $want alone"
	perf script -i "$tmp/$name.data" >/dev/null 2>"$tmp/perf.err" ||
		bad "$name: perf script: $(head -1 "$tmp/perf.err")"
	python3 "$here/../emulate/crash_feature.py" "$tmp/$name.data" \
		>"$tmp/facts.txt"
}

# check_crash NAME K SIGNO CODE [SIM OPTIONS] -- PROG ARGS (K: the
# crashing thread's rank among the program's threads, in the order they
# ran; the single-stepper runs PROG $GT_ARGS when set, else PROG ARGS)
check_crash() {
	local name=$1 k=$2 signo=$3 code=$4 was=$fail
	shift 4
	local args=("$@")
	while [ "$1" != -- ]; do shift; done
	shift
	record "$name" "${args[@]}"
	local ip held end size
	if [ -n "${GT_ARGS+set}" ]; then
		# shellcheck disable=SC2086
		ip=$(fault_ip "$GT" "$k" "$1" $GT_ARGS)
	else
		ip=$(fault_ip "$GT" "$k" "$@")
	fi
	read -r kind fsig fcode fpid ftid faddr fip <"$tmp/facts.txt"
	[ "$(wc -l <"$tmp/facts.txt")" = 1 ] ||
		bad "$name: $(wc -l <"$tmp/facts.txt") crash entries"
	[ "$kind $fsig $fcode" = "1 $signo $code" ] ||
		bad "$name: facts $kind $fsig $fcode, want 1 $signo $code"
	[ "$fpid" = "$(awk '$1 == "pid" { print $2 }' "$tmp/sim.txt")" ] ||
		bad "$name: pid $fpid"
	[ "$fip" = "$ip" ] || bad "$name: ip $fip, the single-stepper's $ip"
	read -r _ _ end held < <(grep '^snapshot running' "$tmp/sim.txt")
	[ "$(grep -c '^snapshot running' "$tmp/sim.txt")" = 1 ] ||
		bad "$name: not one snapshot at the crash"
	[ "$held" = "$ftid" ] ||
		bad "$name: threads held at the snapshot '$held', crash in $ftid"
	# the crash's snapshot: the newest units before it, the snapshot's
	# size of them; the last one goes on from there
	size=$AREA_UNITS
	[ "${args[0]}" = -S ] && size=$((args[1] / 32))
	units "$tmp/$name.data" >"$tmp/units.txt"
	read -r first lastu n <"$tmp/units.txt"
	[ "$first $lastu $n" = "$((end - size)) $((end - 1)) $size" ] ||
		bad "$name: crash snapshot units $first..$lastu ($n), want" \
			"$((end - size))..$((end - 1))"
	read -r first _ < <(sed -n 2p "$tmp/units.txt")
	[ "$first" = "$end" ] || bad "$name: last snapshot from $first, want $end"
	# qpt crash: the same facts; objdump's bytes at the ip
	"$QPT" crash -i "$tmp/$name.data" --json >"$tmp/c.json" 2>"$tmp/c.err" ||
		bad "$name: qpt crash: $(cat "$tmp/c.err")"
	local bytes
	bytes=$(insn_bytes "$1" "$ip")
	python3 - "$tmp/c.json" "$fsig" "$ftid" "$ip" "$bytes" <<'PY' ||
import json, sys
j = json.load(open(sys.argv[1]))
sig, tid, ip, b = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4], 16), sys.argv[5]
assert (j["signal"], j["tid"], int(j["ip"], 16)) == (sig, tid, ip), j
assert b and j["bytes"].startswith(b), (j["bytes"], b)
PY
		bad "$name: qpt crash disagrees"
	# the stack kept from rsp up holds parse's return address from
	# lookup (objdump's: the instruction after the call; PIE at ld.so's
	# base with ASLR off) where lookup crashed
	if [ -n "${CALLER:-}" ]; then
		local ret
		ret=$(objdump -d --no-show-raw-insn "$1" | awk -v c="$CALLER" '
			/^[0-9a-f]+ <.*>:$/ { f = $2 }
			f == "<" c ">:" && next_ { print $1; exit }
			f == "<" c ">:" && /call.*<lookup>/ { next_ = 1 }' |
			tr -d :)
		[ "$(od -An -c -j16 -N1 "$1" | tr -d ' ')" = 003 ] &&
			ret=$(printf '%x' $((0x555555554000 + 0x$ret)))
		python3 "$here/../emulate/crash_feature.py" --stack \
			"$tmp/$name.data" >"$tmp/stack.txt"
		grep -qx "$ret" "$tmp/stack.txt" ||
			bad "$name: $CALLER's return address $ret is not in the" \
				"stack kept ($(sed -n 2p "$tmp/stack.txt"))"
	fi
	[ "$fail" = "$was" ] || return
	echo "$name: ok: signal $fsig code $fcode in $ftid at 0x$ip (held);" \
		"snapshot of units $((end - size))..$((end - 1))"
}

# no_crash NAME [SIM OPTIONS] -- PROG ARGS: no facts, no crash snapshot
no_crash() {
	local name=$1 was=$fail
	shift
	record "$name" "$@"
	[ ! -s "$tmp/facts.txt" ] || bad "$name: crash facts: $(cat "$tmp/facts.txt")"
	! grep -q '^snapshot running' "$tmp/sim.txt" ||
		bad "$name: a snapshot while running"
	[ "$fail" = "$was" ] || return
	echo "$name: ok: exit $got, no crash"
}

S=$DIR/emu_crashy_static
C=$DIR/emu_crashy
CALLER=parse check_crash segv_static 0 11 1 -- "$S"
CALLER=parse check_crash segv 0 11 1 -- "$C"
check_crash abort 0 6 -6 -- "$S" abort
CALLER=parse check_crash fpe 0 8 1 -- "$C" fpe
CALLER=parse check_crash thread 1 11 1 -- "$S" thread
# a handler that re-raises: the crash is the re-raised signal (SI_TKILL),
# delivered as the handler returns to the faulting instruction
GT_ARGS= check_crash handled 0 11 -6 -- "$S" handled
check_crash window 0 11 1 -S 8192 -- "$S"
no_crash ok -- "$S" ok
no_crash survive -- "$S" survive
# SIGSEGV outside --on-signal=ABRT (bit 6 - 1)
no_crash on_signal -s 32 -- "$S"

# --snapshot-on: one trigger and one snapshot per uprobe sample (four:
# one after each of three polls, two after the second)
was=$fail
ALONE=0 record uprobe -u target -- "$UPROG" 3 wait
off=$(objdump -dF "$UPROG" |
	sed -n 's/^[0-9a-f]* <target> (File Offset: 0x\([0-9a-f]*\)):$/\1/p')
read -r _ path poff < <(grep '^uprobe ' "$tmp/sim.txt")
[ "$path $poff" = "$(realpath "$UPROG") $((0x${off:-0}))" ] ||
	bad "uprobe: opened on $path at $poff, objdump's 0x$off"
awk '$1 == "hit" { print $3 }' "$tmp/sim.txt" >"$tmp/hits.txt"
awk '{ print $7 }' "$tmp/facts.txt" | cmp -s - "$tmp/hits.txt" ||
	bad "uprobe: triggers $(awk '{ print $7 }' "$tmp/facts.txt" | xargs)," \
		"hits $(xargs <"$tmp/hits.txt")"
units "$tmp/uprobe.data" >"$tmp/units.txt"
python3 - "$tmp/sim.txt" "$tmp/units.txt" "$AREA_UNITS" <<'PY' ||
import sys
hits, snaps = [], []
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "hit":
        hits.append(int(f[1]))
    elif f[:2] == ["snapshot", "running"]:
        snaps.append(int(f[2]))
assert len(hits) == 4 and len(snaps) == len(hits), (hits, snaps)
assert all(s >= h for h, s in zip(hits, snaps)), (hits, snaps)
bufs = [l.split() for l in open(sys.argv[2])]
first = snaps[0] - int(sys.argv[3])
for s, b in zip(snaps, bufs):
    assert b == [str(first), str(s - 1), str(s - first)], (s, b, bufs)
    first = s
PY
	bad "uprobe: snapshots $(grep -c '^snapshot running' "$tmp/sim.txt")" \
		"for $(wc -l <"$tmp/hits.txt") hits: $(xargs <"$tmp/units.txt")"
[ "$fail" = "$was" ] &&
	echo "uprobe: ok: $(wc -l <"$tmp/hits.txt") hits, as many triggers" \
		"and snapshots of the newest units"

# a group-stop: the command stays stopped (seen at two polls) until
# SIGCONT, then goes on
ALONE=0 record stop -c -- /bin/sh -c 'kill -STOP $$; echo resumed >&2'
grep -qx 'cont 1' "$tmp/sim.txt" || bad "stop: never seen stopped"
[ "$got" = 0 ] || bad "stop: exit $got"
grep -qx resumed "$tmp/sim.err" || bad "stop: did not go on after SIGCONT"
[ ! -s "$tmp/facts.txt" ] || bad "stop: crash facts"
echo "stop: ok: stopped until SIGCONT, exit $got"
exit $fail
