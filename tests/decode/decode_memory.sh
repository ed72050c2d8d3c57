#!/bin/bash
# qpt decode reads a queue's trace from the file as it decodes it, a part
# at a time: its peak RSS stays far below the trace's size (a 96 MB
# recording of AUXTRACE records of 64 KiB, mostly PT padding, from
# bench/mkbig.py: 24 copies of the arcus-hello trace), and its branches
# are those of perf script on one copy (expected/), 24 times, and its
# --lbr's last record each thread's last branches; with -j2, the lines of
# the parts in flight only are held (48 copies).
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
src=$(cd "$(dirname "$0")/../.." && pwd)
d="$TRACES/arcus-hello"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$tmp/big.data" 24 \
	--pad $((4 << 20)) --split 65536
# peak_kib OUT ARGS...: the peak RSS (KiB) of qpt ARGS (its output into
# OUT), from the kernel's accounting (under ASan, with a small
# quarantine: freed memory it keeps is no leak of ours)
peak_kib() {
	local out=$1
	shift
	# (the script an argument: qpt reads this function's standard input)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=4" python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=3, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$QPT" "$@" 3>"$out"
}
# the serial decode (-j1; the default is the cpus)
kib=$(peak_kib "$tmp/qpt.txt" decode -j1 --branches --no-sym --sysroot "$d" \
	-i "$tmp/big.data") || fail "qpt decode failed"
size=$(stat -c %s "$tmp/big.data")
echo "peak RSS ${kib} KiB decoding $((size >> 20)) MiB"
# (64 MiB: the issue's bound; the decode's tables, on huge pages, are
# resident whole: 45-51 MiB under ASan, where a queue held would take 96)
[ "$kib" -lt $((64 << 10)) ] || fail "peak RSS $kib KiB: grows with the trace"
# piped FILE WHAT: FILE through a pipe into qpt decode -i -, its peak RSS
# under 64 MiB and its lines the named file's; and with no temporary file
# to be made (TMPDIR a missing directory: the bytes held in memory) the
# same lines
piped() {
	kib=$(cat "$1" | peak_kib "$tmp/pipe.txt" decode -j1 --branches \
		--no-sym --sysroot "$d" -i -) || fail "qpt decode -i - ($2) failed"
	echo "peak RSS ${kib} KiB decoding $((size >> 20)) MiB, $2"
	[ "$kib" -lt $((64 << 10)) ] || fail "$2: peak RSS $kib KiB: holds the trace"
	cmp -s "$tmp/qpt.txt" "$tmp/pipe.txt" || fail "$2: the lines differ"
	cat "$1" | TMPDIR=$tmp/none "$QPT" decode -j1 --branches --no-sym \
		--sysroot "$d" -i - | cmp -s "$tmp/qpt.txt" - ||
		fail "$2 without a temporary file: the lines differ"
}
# a pipe-mode stream (perf record -o - | qpt decode -i -): the AUX bytes
# go to a spill file, read back as a file's (they were held in memory:
# 158 MiB)
"$QPT" convert -i "$tmp/big.data" -o - >"$tmp/pipe.data" ||
	fail "qpt convert -o - failed"
piped "$tmp/pipe.data" "a pipe-mode stream"
rm "$tmp/pipe.data"
# the file-mode file on a pipe: copied into a temporary file as far as
# its sections go, and mapped (it was read into memory whole: 120 MiB)
piped "$tmp/big.data" "a file-mode file on a pipe"
# the file on standard input: read with pread, as a named file is (its
# mapped pages took 59 MiB when read through them)
kib=$(peak_kib "$tmp/pipe.txt" decode -j1 --branches --no-sym --sysroot "$d" \
	-i - <"$tmp/big.data") || fail "qpt decode -i - <FILE failed"
echo "peak RSS ${kib} KiB decoding $((size >> 20)) MiB from standard input"
[ "$kib" -lt $((64 << 10)) ] || fail "standard input peak RSS $kib KiB: holds the file"
cmp -s "$tmp/qpt.txt" "$tmp/pipe.txt" || fail "standard input's lines differ"
# --lbr's flows count cycles, carried from part to part like the rest,
# and its pass over the file for samples lets the pages go: its memory is
# a part's too (it held the queue whole, and the input's pages, before)
kib=$(peak_kib "$tmp/lbr.json" decode --lbr=32 --json --sysroot "$d" \
	-i "$tmp/big.data") || fail "qpt decode --lbr failed"
echo "peak RSS ${kib} KiB decoding $((size >> 20)) MiB, --lbr=32"
[ "$kib" -lt $((64 << 10)) ] || fail "--lbr peak RSS $kib KiB: grows with the trace"
# one pass over the file (qpt dump: the reader lets the mapped input's
# pages go behind it) and qpt split (its PSBs found a window at a time, the
# trace read as the decode reads it) take no more either: 100 and 200 MiB
# when they held the pages
kib=$(peak_kib /dev/null dump -i "$tmp/big.data") || fail "qpt dump failed"
echo "peak RSS ${kib} KiB: qpt dump"
[ "$kib" -lt $((64 << 10)) ] || fail "dump peak RSS $kib KiB: holds the input"
mkdir "$tmp/shards"
kib=$(peak_kib /dev/null split -n 4 -o "$tmp/shards" -i "$tmp/big.data") ||
	fail "qpt split failed"
echo "peak RSS ${kib} KiB: qpt split"
[ "$kib" -lt $((64 << 10)) ] || fail "split peak RSS $kib KiB: holds the input"
rm -rf "$tmp/shards"
# -j2 holds the lines of the parts in flight, not the decode's: on 48
# copies with little padding, 7M instructions (345 MB of text), in less
# than 160 MiB under ASan (about 100 MiB, 120 on a busy machine, where
# the writer falls behind the workers; about 65 MB in a release build):
# holding them all would take over 345.  (On big.data, whose parts carry
# 4 MiB of padding each, the same decode took 115-132 MiB under ASan,
# too near the 166 of all its parts handed out at once.)
python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$tmp/lines.data" 48 \
	--pad 65536 --split 65536
kib=$(peak_kib /dev/null decode -j2 --insn --no-asm --sysroot "$d" \
	-i "$tmp/lines.data") || fail "qpt decode -j2 failed"
echo "peak RSS ${kib} KiB decoding 48 copies, --insn -j2"
[ "$kib" -lt $((160 << 10)) ] ||
	fail "-j2 peak RSS $kib KiB: holds the decode's lines"
# from => to of each branch
ends() { awk '{ for (i = 1; i < NF; i++) if ($i == "=>") print $(i-1), $(i+1) }'; }
zcat "$d/expected/perf-script-be.txt.gz" | ends >"$tmp/one.txt"
for _ in $(seq 24); do cat "$tmp/one.txt"; done >"$tmp/perf.txt"
ends <"$tmp/qpt.txt" | cmp -s "$tmp/perf.txt" - ||
	fail "branches differ from perf script's (24 copies of its output)"
echo "ok: $(wc -l <"$tmp/perf.txt") branches as perf script gives them"
# the thread's last 32 branches, newest first: perf's last (not the trace's
# ends, which are no branch)
zcat "$d/expected/perf-script-be.txt.gz" | python3 -c '
import json, sys
want = []
for line in sys.stdin:
    f = line.split()
    if "=>" in f and "tr" not in f:
        i = f.index("=>")
        want.append(("0x" + f[i - 1], "0x" + f[i + 1]))
ends = [r for r in map(json.loads, open(sys.argv[1])) if r["point"] == "end"]
got = [(e["from"], e["to"]) for e in ends[-1]["entries"]] if ends else []
sys.exit(0 if len(ends) == 1 and got == want[::-1][:32] else 1)
' "$tmp/lbr.json" || fail "--lbr=32's last record is not perf's last 32 branches"
echo "ok: --lbr=32's last record holds perf's last 32 branches"
