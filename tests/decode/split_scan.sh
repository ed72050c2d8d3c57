#!/bin/bash
# qpt split finds a queue's PSBs a window of trace at a time (1 MiB from
# the first packet at or past the last window's end, and 64 KiB to
# spare), its memory a window's whatever the trace: a made trace of 4 MiB
# in AUXTRACE records of 64 KiB (arcus-hello's recording around it) has
# traced PSB+s at offsets chosen around the windows' ends: one straddles
# the first window's end (the second starts after its PSB+, at 1048595),
# one starts right at the second's end; and 1.1 MiB
# of bytes libipt does not know, over the third's end (on at the next
# PSB, in the fourth).  Each PSB starts a unit but one 48 bytes after
# the one before (a unit is at least a sixteenth of a shard's share: with
# 64 shards asked, 4 KiB), and with more shards asked than units each
# unit is a shard, whose first AUXTRACE record starts at its PSB (or up
# to 7 bytes before: records of whole 8-byte words).
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the PSB offsets, then the trace: each PSB+ says tracing is on (a FUP),
# a TNT tells what it bound, PADs up to the next PSB; garbage (02 ff: no
# such packet) in between
psbs="0 200000 1048568 1048616 2097171 3300003 3800000"
cuts="0 200000 1048568 2097171 3300003 3800000"
python3 - "$tmp/trace.bin" $psbs <<'PY'
import struct, sys
out, psbs = sys.argv[1], [int(x) for x in sys.argv[2:]]
size, junk = 4 << 20, (2200000, 3300000)
b = bytearray(size)  # zeros: PADs
assert (junk[1] - junk[0]) % 2 == 0
b[junk[0]:junk[1]] = b'\x02\xff' * ((junk[1] - junk[0]) // 2)
for at in psbs:
    plus = (b'\x02\x82' * 8 + b'\x99\x01' +  # PSB, MODE.Exec 64-bit
            b'\x7d' + struct.pack('<Q', 0x7ffff7a00000 + at)[:6] +  # FUP
            b'\x02\x23' + b'\x06')  # PSBEND, TNT
    b[at:at + len(plus)] = plus
open(out, 'wb').write(bytes(b))
PY
python3 "$src/bench/mkbig.py" "$TRACES/arcus-hello/perf-noindex.data" \
	"$tmp/t.data" 1 --payload "$tmp/trace.bin" --split 65536
mkdir "$tmp/o"
"$QPT" split -n 64 -i "$tmp/t.data" -o "$tmp/o" >"$tmp/list" \
	2>"$tmp/err" || fail "split: $(cat "$tmp/err")"
n=$(wc -l <"$tmp/list")
want=$(echo $cuts | wc -w)
[ "$n" = "$want" ] || fail "$n shards, want $want (one per cut): $(cat "$tmp/err")"
# each shard's first AUXTRACE record starts at its PSB, or less than 8
# bytes before
i=0
for p in $cuts; do
	s=$(sed -n "$((i + 1))p" "$tmp/list")
	off=$("$QPT" dump -i "$s" | awk '/PERF_RECORD_AUXTRACE / {
		for (i = 1; i < NF; i++) if ($i == "offset:") { print $(i + 1); exit } }')
	case $off in 0x[0-9a-f]*|[0-9]*) ;; *) fail "shard $i: no AUXTRACE offset" ;; esac
	off=$(printf '%d' "$off")
	[ "$off" -le "$p" ] && [ $((p - off)) -lt 8 ] ||
		fail "shard $i starts at $off, not at the PSB at $p"
	i=$((i + 1))
done
echo "ok: $n units, each at its PSB"
