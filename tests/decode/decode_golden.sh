#!/bin/bash
# The small golden outputs in traces/ (qpt decode of arcus-hello, first
# lines) checked byte for byte against qpt, AND against the oracles: the
# instruction (bytes only: --no-asm) and branch goldens are the first lines
# of perf script's own output; the call golden is perf's branches turned
# into calls by awk.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
g="$QPT_SRC/traces/arcus-hello"
d="$TRACES/arcus-hello"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=400
# shellcheck disable=SC2046
"$QPT" decode --raw "$d/trace.pt" $(images "$d") --insn --no-asm |
	head -n $n >"$tmp/insn"
cmp "$g/insn-head.txt" "$tmp/insn" || fail "--insn differs from golden"
# shellcheck disable=SC2046
"$QPT" decode --raw "$d/trace.pt" $(images "$d") --branches | head -n $n >"$tmp/br"
cmp "$g/branches-head.txt" "$tmp/br" || fail "--branches differs from golden"
# shellcheck disable=SC2046
"$QPT" decode --raw "$d/trace.pt" $(images "$d") --calls | head -n $n >"$tmp/calls"
cmp "$g/calls-head.txt" "$tmp/calls" || fail "--calls differs from golden"

# the goldens against the oracles
zcat "$d/expected/perf-script-i0ns-ip-insn.txt.gz" >"$tmp/perf-insn"
grep -v '^  \[' "$g/insn-head.txt" >"$tmp/gi"
head -n "$(wc -l <"$tmp/gi")" "$tmp/perf-insn" | cmp - "$tmp/gi" ||
	fail "golden insn-head.txt differs from perf script"
zcat "$d/expected/perf-script-be.txt.gz" >"$tmp/perf-br"
head -n $n "$tmp/perf-br" | cmp - "$g/branches-head.txt" ||
	fail "golden branches-head.txt differs from perf script"
awk '
function indent(d,  s) { s = ""; while (d-- > 0) s = s "    "; return s }
$1 == "call"   { printf "%s-> %s (from %s)\n", indent(depth), $4, $2; depth++ }
$1 == "return" { if (depth > 0) depth--; printf "%s<- %s (to %s)\n", indent(depth), $2, $4 }
' "$tmp/perf-br" | head -n $n | cmp - "$g/calls-head.txt" ||
	fail "golden calls-head.txt differs from perf's calls and returns"
echo ok
