#!/usr/bin/env bash
# qpt record --snapshot on real Intel PT (skips, 77, where the PMU is
# absent): a NULL dereference after main -> parse -> lookup, in the first
# thread and in the second; the exit status is the program's alone, the
# faulting ip the single-stepper's (crash_common.sh), and qpt crash
# rebuilds lookup <- parse <- main (thread_main) from the hardware's
# trace up to the fault;
# perf decodes the file.
# Args: GT_STEP PROG_DIR
set -u
GT=$1 DIR=$2
here=$(dirname "$0")
[ -e /sys/bus/event_source/devices/intel_pt ] || exit 77
command -v perf >/dev/null || exit 77
# shellcheck source=tests/capture/crash_common.sh
. "$here/crash_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
S=$DIR/emu_crashy_static
for c in "segv 0 main" "thread 1 thread_main"; do
	set -- $c
	name=$1 k=$2 caller=$3
	arg=$([ "$name" = thread ] && echo thread)
	{ (setarch -R "$S" $arg >/dev/null 2>&1); } 2>/dev/null
	want=$?
	setarch -R "$QPT" record -q --snapshot -e intel_pt//u \
		-o "$tmp/$name.data" -- "$S" $arg >/dev/null 2>"$tmp/rec.err"
	got=$?
	[ "$got" = "$want" ] || { echo "FAIL: $name: exit $got, alone $want"; fail=1; }
	perf script -i "$tmp/$name.data" --itrace=i0ns -F ip >/dev/null \
		2>"$tmp/perf.err" || { echo "FAIL: $name: perf script"; fail=1; }
	ip=$(fault_ip "$GT" "$k" "$S" $arg)
	"$QPT" crash -i "$tmp/$name.data" --json >"$tmp/c.json" ||
		{ echo "FAIL: $name: qpt crash"; fail=1; continue; }
	python3 - "$tmp/c.json" "$ip" "$caller" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
syms = [f.get("sym", "").split("+")[0] for f in j["stack"][:3]]
assert j["signal"] == 11 and int(j["ip"], 16) == int(sys.argv[2], 16), j
assert syms == ["lookup", "parse", sys.argv[3]], syms
assert j["insns"], "no instructions before the fault"
print("ok: SIGSEGV at %s, %s" % (j["ip"], " <- ".join(syms)))
PY
done
exit $fail
