#!/bin/bash
# A file with 200,000 AUXTRACE queues (tests/decode/mkqueues.py: distinct
# idx, one short stream each over a code file it writes) decodes in
# bounded time to 3 instructions per queue, as its construction says (also
# through a pipe); on 2,000 queues perf script decodes the same.  One
# queue after 70,000 execs decodes against the last image, in bounded time.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # $1: N [EXECS]
mk() { python3 "$(dirname "$0")/mkqueues.py" "$tmp/q.data" "$tmp/code" $1; }
ips() { grep ' insn: ' | awk '{ print $1, $2 }'; }
# every queue: its thread at 0x1000, 0x1001, 0x1002
expect() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
	printf "4242 1000\n4242 1001\n4242 1002\n" }'; }

n=200000
mk $n || fail "mkqueues.py"
timeout 120 "$QPT" decode --no-sym -i "$tmp/q.data" >"$tmp/out" ||
	fail "$n queues: exit $? (124: more than 120 s)"
ips <"$tmp/out" | cmp - <(expect $n) ||
	fail "$n queues: not 3 instructions at 0x1000 in each"
echo "ok: $n queues"
# through a pipe: every payload is a copy
# shellcheck disable=SC2002 # a real pipe, not a file on stdin
cat "$tmp/q.data" | timeout 120 "$QPT" decode --no-sym -i - | ips |
	cmp - <(expect $n) || fail "$n queues through a pipe"
echo "ok: $n queues through a pipe"
# one queue after 70,000 execs, each mapping the same (non-ELF) file:
# more images than libipt lets share a section (65535)
mk "1 70000" || fail "mkqueues.py"
timeout 120 "$QPT" decode --no-sym -i "$tmp/q.data" | ips |
	cmp - <(expect 1) || fail "70000 execs: not the last image's code"
echo "ok: 70000 execs"
if command -v perf >/dev/null 2>&1; then
	mk 2000 || fail "mkqueues.py"
	"$QPT" decode --no-sym -i "$tmp/q.data" | ips >"$tmp/qpt"
	perf script -i "$tmp/q.data" --itrace=i0ns -F tid,ip 2>/dev/null |
		awk '{ print $1, $2 }' | cmp - "$tmp/qpt" ||
		fail "2000 queues: qpt decode differs from perf script"
	echo "ok: 2000 queues, as perf"
fi
