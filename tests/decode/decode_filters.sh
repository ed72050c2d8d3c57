#!/bin/bash
# Filters against the unfiltered output (the oracle for a filter is the
# same output filtered by grep/tail): --sym, --last, --tid, --cpu, --time.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d="$TRACES/arcus-hello"
run() { "$QPT" decode --sysroot "$d" -i "$d/perf.data" "$@"; }
run --insn >"$tmp/all" || fail "--insn"
# --sym: exactly the instructions inside malloc
run --insn --sym malloc >"$tmp/sym" || fail "--sym"
grep ' malloc+0x' "$tmp/all" | cmp - "$tmp/sym" || fail "--sym malloc"
[ -s "$tmp/sym" ] || fail "--sym: nothing"
# ... and its PLT stub (libc's, in .plt.got) only when asked for by name
run --insn --sym malloc@plt >"$tmp/sym" || fail "--sym malloc@plt"
grep ' malloc@plt+0x' "$tmp/all" | cmp - "$tmp/sym" || fail "--sym malloc@plt"
[ -s "$tmp/sym" ] || fail "--sym malloc@plt: nothing"
# --last N: the last N records of the (single) thread
run --insn --last 1000 >"$tmp/last" || fail "--last"
tail -n 1000 "$tmp/all" | cmp - "$tmp/last" || fail "--last 1000 != tail"
run --branches >"$tmp/ball" || fail "--branches"
run --branches --last 7 | cmp - <(tail -n 7 "$tmp/ball") || fail "--branches --last"
# --last keeps events whose messages outlive the decoder's callback: a
# raw trace without its images is all errors; under ASan a kept pointer to
# a message in a returned frame is a stack-use-after-return
r="$TRACES/arcus-hello/trace.pt"
"$QPT" decode --raw "$r" >"$tmp/rall" 2>/dev/null
grep -q 'error at offset .*: no memory image' "$tmp/rall" || fail "--raw: no error"
ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=1 \
	"$QPT" decode --raw "$r" --last 3 >"$tmp/rlast" 2>"$tmp/rerr"
tail -n 3 "$tmp/rall" | cmp - "$tmp/rlast" || fail "--raw --last 3 != tail"
grep -q Sanitizer "$tmp/rerr" && fail "--raw --last 3: $(head -3 "$tmp/rerr")"
# --tid: the recorded thread, and one that does not exist
run --insn --tid 26338 | cmp - "$tmp/all" || fail "--tid 26338"
[ -z "$(run --insn --tid 1)" ] || fail "--tid 1 not empty"
# per-thread recording: no cpu, so a --cpu filter keeps nothing
[ -z "$(run --insn --cpu 0)" ] || fail "--cpu 0 not empty"
# no timestamps in this trace: --time keeps what has no time
run --insn --time 0,1 | cmp - "$tmp/all" || fail "--time without time"
# timestamps (quipper: TSC/MTC, TIME_CONV): --time bounds hold
q="$TRACES/quipper-intel-pt-4.14/perf.data.intel_pt-4.14"
"$QPT" decode --branches --events --json -i "$q" >"$tmp/q" 2>/dev/null
grep -q '"time":' "$tmp/q" || fail "quipper: no time"
"$QPT" decode --branches --events --json --time 641.257,641.2572 -i "$q" \
	2>/dev/null | grep -o '"time":[0-9]*' | cut -d: -f2 >"$tmp/times"
[ -s "$tmp/times" ] || fail "--time: nothing kept"
awk '$1 < 641257000000 || $1 > 641257200000 { bad = 1 } END { exit bad }' \
	"$tmp/times" || fail "--time: out of range"
# usage errors
"$QPT" decode --time 5 -i x >/dev/null 2>&1; [ $? = 2 ] || fail "--time 5"
"$QPT" decode --last 0 -i x >/dev/null 2>&1; [ $? = 2 ] || fail "--last 0"
"$QPT" decode --tid abc -i x >/dev/null 2>&1; [ $? = 2 ] || fail "--tid abc"
echo ok
