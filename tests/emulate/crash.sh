#!/bin/bash
# qpt record --emulate --snapshot and qpt crash against the single-step
# ground truth (crash_vs_gt.py says how) and perf: a NULL dereference
# after main -> parse -> lookup (static and dynamic), abort(), SIGFPE, a
# stack overflow from unbounded recursion, a crash in the second thread of
# two; a snapshot smaller than the history (the window starts mid-stack,
# and for the recursion the stack is deeper than the window); the exit
# status is the program's own; a program that does not crash has no
# crash to report (exit 1).
# Args: GT_STEP PROG_DIR GROUP (signals: the NULL dereferences, abort,
# SIGFPE, no crash; others: the recursion, the thread, the small windows)
set -u
GT=$1 DIR=$2 GROUP=$3
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
here=$(dirname "$0")

# check NAME K SIGNAME CODE SYMS [RECORD OPTIONS] -- PROG ARGS
check() {
	local name=$1 k=$2 sig=$3 code=$4 syms=$5
	shift 5
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	env -i QPT_TEST=1 "$GT" "$tmp/gt.txt" -- "$@" >/dev/null 2>&1
	(env -i "$@" >/dev/null 2>&1)
	local want=$?
	env -i QPT_TEST=1 "$QPT" record -q --emulate "${opts[@]}" \
		-o "$tmp/$name.data" -- "$@" >/dev/null 2>"$tmp/rec.err"
	local got=$?
	[ "$got" = "$want" ] ||
		bad "$name: qpt record exits $got, the program alone $want"
	perf script -i "$tmp/$name.data" --itrace=i0ns -F tid,ip,insnlen,flags \
		-F sw: \
		>"$tmp/ilen.txt" 2>"$tmp/perf.err" ||
		bad "$name: perf script fails: $(head -1 "$tmp/perf.err")"
	if [ "${opts[*]}" = "${small[*]}" ]; then
		# perf's lengths and classes of the whole run, outside the
		# window too
		env -i QPT_TEST=1 "$QPT" record -q --emulate \
			-o "$tmp/full.data" -- "$@" >/dev/null 2>&1
		perf script -i "$tmp/full.data" --itrace=i0ns \
			-F tid,ip,insnlen,flags -F sw: >"$tmp/ilen.txt" 2>/dev/null
	fi
	if ! "$QPT" crash -i "$tmp/$name.data" --json --last 16 --insns 8 \
		>"$tmp/$name.json" 2>"$tmp/crash.err"; then
		bad "$name: qpt crash: $(cat "$tmp/crash.err")"
		return
	fi
	echo -n "$name: "
	(cd "$here" && python3 crash_vs_gt.py "$tmp/gt.txt" "$tmp/ilen.txt" \
		"$tmp/$name.json" "$k" "$sig" "$code" "$syms") || bad "$name"
}

C=$DIR/emu_crashy
S=$DIR/emu_crashy_static
small=(-e intel_pt/psb_period=0/u --snapshot=8K)
if [ "$GROUP" = signals ]; then
check segv 0 SIGSEGV SEGV_MAPERR lookup,parse,main,__libc_start_call_main \
	--snapshot -- "$C"
check segv_static 0 SIGSEGV SEGV_MAPERR \
	lookup,parse,main,__libc_start_call_main --snapshot -- "$S"
check abort 0 SIGABRT SI_TKILL "" --snapshot -- "$C" abort
check fpe 0 SIGFPE FPE_INTDIV lookup,parse,main --snapshot -- "$S" fpe

# a handler that re-raises: the crash is the re-raised signal, at the
# faulting instruction the handler returned to
env -i "$QPT" record -q --emulate --snapshot -o "$tmp/h.data" -- "$C" handled \
	>/dev/null 2>&1
rc=$?
[ $rc = 139 ] || bad "handled: exit $rc"
"$QPT" crash -i "$tmp/h.data" --json >"$tmp/h.json" || bad "handled: no crash"
python3 - "$tmp/h.json" <<'PY' || bad "handled"
import json, sys
j = json.load(open(sys.argv[1]))
syms = [f.get("sym", "").split("+")[0] for f in j["stack"][:3]]
assert (j["signame"], j["code_name"]) == ("SIGSEGV", "SI_TKILL"), j
assert syms == ["lookup", "parse", "main"], syms
assert j["ip"] == j["stack"][0]["ip"]
print("handled: ok: re-raised SIGSEGV at %s %s" % (j["ip"], j["sym"]))
PY

# no crash: a program that ends, one that survives its SIGSEGV (the
# handler jumps away), one whose signal is not in --on-signal: one line,
# exit 1
nocrash() {
	local name=$1 want=$2
	shift 2
	env -i "$QPT" record -q --emulate --snapshot -o "$tmp/$name.data" "$@" \
		>/dev/null 2>&1
	rc=$?
	[ $rc = "$want" ] || bad "$name: qpt record exits $rc, want $want"
	"$QPT" crash -i "$tmp/$name.data" >"$tmp/ok.out" 2>"$tmp/ok.err"
	rc=$?
	[ $rc = 1 ] && [ ! -s "$tmp/ok.out" ] &&
		[ "$(wc -l <"$tmp/ok.err")" = 1 ] ||
		bad "$name: exit $rc, $(cat "$tmp/ok.err")"
}
nocrash ok 0 -- "$C" ok
nocrash survive 0 -- "$C" survive
nocrash on_signal 139 --on-signal=ABRT,FPE -- "$C" segv
exit $fail
fi

check recurse 0 SIGSEGV SEGV_MAPERR lookup,lookup --snapshot -- "$C" recurse
check thread 1 SIGSEGV SEGV_MAPERR lookup,parse,thread_main \
	--snapshot -- "$C" thread
check segv_window 0 SIGSEGV SEGV_MAPERR lookup,parse "${small[@]}" \
	-- "$C" segv 1000
check recurse_window 0 SIGSEGV SEGV_MAPERR lookup,lookup "${small[@]}" \
	-- "$S" recurse

# --snapshot-on=lookup: one snapshot per call of lookup (the ground
# truth's count of its first instruction), recorded as a trigger at its
# address in the file's crash facts (read without qpt); perf decodes the
# snapshots into the ground truth's flow
lookup=$(printf '%x' "0x$(nm "$S" | awk '$3 == "lookup" { print $1 }')")
env -i QPT_TEST=1 "$GT" "$tmp/gt.txt" -- "$S" ok >/dev/null 2>&1
env -i QPT_TEST=1 "$QPT" record -q --emulate --snapshot --snapshot-on=lookup \
	-o "$tmp/trig.data" -- "$S" ok >/dev/null 2>"$tmp/rec.err" ||
	bad "--snapshot-on: $(cat "$tmp/rec.err")"
calls=$(awk -v a="$lookup" '$2 == a' "$tmp/gt.txt" | wc -l)
python3 "$here/crash_feature.py" "$tmp/trig.data" >"$tmp/trig.txt"
got=$(awk -v a="$lookup" '$1 == 2 && $7 == a' "$tmp/trig.txt" | wc -l)
bufs=$("$QPT" dump -i "$tmp/trig.data" | grep -c "PERF_RECORD_AUXTRACE ")
echo "--snapshot-on=lookup: $calls calls, $got triggers, $bufs snapshots"
[ "$calls" -ge 2 ] && [ "$got" = "$calls" ] &&
	[ "$(wc -l <"$tmp/trig.txt")" = "$calls" ] ||
	bad "--snapshot-on: $got triggers for $calls calls"
[ "$bufs" = $((calls + 1)) ] ||
	bad "--snapshot-on: $bufs snapshots, want one per call and the end"
perf script -i "$tmp/trig.data" --itrace=i0ns -F tid,ip -F sw: 2>/dev/null |
	awk '{ print $2 }' >"$tmp/trig.ips"
# each snapshot decodes to the path that led to its trigger: perf's flow
# is the ground truth's, but for a few instructions at each snapshot's
# ends (after its last packet; before the next one's first PSB)
python3 - "$tmp/gt.txt" "$tmp/trig.ips" "$lookup" <<'PY' || bad "--snapshot-on"
import sys
gt = [l.split()[1] for l in open(sys.argv[1])]
got = [l.strip() for l in open(sys.argv[2])]
trig = [i for i, a in enumerate(gt) if a == sys.argv[3]]
i = 0
missing = []
for k, a in enumerate(gt):
    if i < len(got) and got[i] == a:
        i += 1
    else:
        missing.append(k)
far = [k for k in missing if not any(-16 <= k - t <= 32 for t in trig)]
if i != len(got) or far:
    print("FAIL: perf's flow leaves the ground truth: %d of %d matched, "
          "missing far from a trigger: %s" % (i, len(got), far[:5]))
    sys.exit(1)
print("snapshots: %d of %d instructions, %d missing near the %d triggers"
      % (len(got), len(gt), len(missing), len(trig)))
PY

# the window that starts mid-stack says so; the recursion deeper than it
jq_() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$1)" "$2"; }
[ "$(jq_ '["window_mid_stack"]' "$tmp/segv_window.json")" = True ] ||
	bad "segv_window: the window does not begin mid-stack"
[ "$(jq_ '["deeper_than_window"]' "$tmp/recurse_window.json")" = True ] ||
	bad "recurse_window: not deeper than the window"
[ "$(jq_ '["deeper_than_window"]' "$tmp/recurse.json")" = False ] ||
	bad "recurse: the whole trace is deeper than the window?"
# the stack copy unwound (libdw): the same functions, at a stack overflow
# as far as the bytes kept go; past the start of a short window, the
# callers the trace has not
why_() { jq_ '.get("unwound_vs_trace", {}).get("why", "")' "$1"; }
[ "$(jq_ '["unwound_agrees"]' "$tmp/recurse.json")" = True ] &&
	why_ "$tmp/recurse.json" | grep -q "stack overflow" ||
	bad "recurse: the unwind does not tell a stack overflow"
[ "$(jq_ '["unwound_agrees"]' "$tmp/segv_window.json")" = True ] &&
	why_ "$tmp/segv_window.json" | grep -q "window is too short" &&
	[ "$(jq_ '["unwound"][-1]["sym"]' "$tmp/segv_window.json" |
		cut -d+ -f1)" = _start ] ||
	bad "segv_window: the unwind does not reach _start past the window"
"$QPT" crash -i "$tmp/recurse_window.data" >"$tmp/rw.txt"
grep -q "the stack is deeper than the window: lookup" "$tmp/rw.txt" ||
	bad "recurse_window: the text does not say the stack is deeper"
grep -q "window starts mid-flow" "$tmp/rw.txt" ||
	bad "recurse_window: the text does not say where the window starts"
# the thread crash names the other thread; --all-threads gives its stack,
# from main (where it waits for the thread) out
[ "$(jq_ '["threads"].__len__()' "$tmp/thread.json")" = 1 ] ||
	bad "thread: the other thread is not listed"
"$QPT" crash -i "$tmp/thread.data" --all-threads --json >"$tmp/all.json"
python3 - "$tmp/all.json" <<'PY' || bad "thread --all-threads"
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
syms = [f.get("sym", "").split("+")[0] for f in t["stack"]]
assert "main" in syms and syms[-1] == "_start", syms
print("other thread: %s" % " <- ".join(syms))
PY

exit $fail
