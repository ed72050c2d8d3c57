#!/bin/bash
# qpt decode -j N (parts of the queues decoded on N threads, stitched at
# the cuts) prints what -j1 prints, byte for byte, in every mode (--insn,
# --branches, --calls, JSON, --events, --no-sort), on every real trace
# (whose -j1 decodes the other tests hold to perf, ptxed and libipt) and
# on multi-thread emulated recordings (emu_threads and zstd -T2, which
# decode_emulated and decode_order hold to the ground truth and perf).
# Recordings with timestamps are left out (the emulated ones are recorded
# without timing packets; decode_loss compares -j2 without the times): the time of an item is read
# after libipt's block, whose end depends on its block cache (what was
# decoded before), so it may differ by a timing packet between runs.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
same() { # DIR FILE ARGS...: -j1, -j2 and -j3 agree in every mode
	local d=$1 f=$2 m j
	shift 2
	for m in "--insn" "--insn --no-asm" "--branches" "--calls" \
		"--insn --json" "--branches --json" "--branches --events" \
		"--insn --no-sort" "--branches --json --no-sort"; do
		# shellcheck disable=SC2086 # $m: several options
		(cd "$d" && "$QPT" decode $m "$@" -j1 -i "$f") >"$tmp/j1" 2>&1
		for j in 2 3; do
			# shellcheck disable=SC2086
			(cd "$d" && "$QPT" decode $m "$@" -j$j -i "$f") \
				>"$tmp/jn" 2>&1
			cmp -s "$tmp/j1" "$tmp/jn" ||
				fail "$f $m: -j$j differs from -j1"
		done
		n=$((n + 1))
	done
	echo "ok: $f ($(wc -l <"$tmp/j1") lines of the last mode)"
}
for f in perf.data perf-split3.data perf-noindex.data \
	perf-split7-noindex.data; do
	same "$TRACES/arcus-hello" $f --sysroot .
done
same "$TRACES/arcus-ovf-01-poc" perf.data --sysroot .
same "$TRACES/quipper-intel-pt-4.14" perf.data.intel_pt-4.14
same "$TRACES/quipper-intel-pt-4.14" perf.data.piped.intel_pt-4.14
# many parts: 20 copies of arcus-hello, in AUXTRACE records of 16 KiB
python3 "$(dirname "$0")/../../bench/mkbig.py" \
	"$TRACES/arcus-hello/perf-noindex.data" "$tmp/big.data" 20 --split 16384
same "$tmp" big.data --sysroot "$TRACES/arcus-hello"
# a trace that ends in a PSB cut short, the first PSB 16 KiB after the
# last cut (3 copies): no part starts there (no flow starts at a PSB+
# without its end), the instructions are perf's, no error item
python3 "$(dirname "$0")/../../bench/mkbig.py" \
	"$TRACES/arcus-hello/perf-noindex.data" "$tmp/tail.data" 3 \
	--tail 02820282028202820282028202820282
"$QPT" decode --no-sym --no-asm --sysroot "$TRACES/arcus-hello" \
	-i "$tmp/tail.data" >"$tmp/tail.out" 2>&1
! grep -q '\[error' "$tmp/tail.out" ||
	fail "tail.data: $(grep '\[error' "$tmp/tail.out" | head -1)"
if command -v perf >/dev/null; then
	perf script -i "$tmp/tail.data" --symfs "$TRACES/arcus-hello" \
		--itrace=i0ns -F ip 2>/dev/null | awk '{ print $1 }' >"$tmp/want"
	awk '{ for (i = 2; i <= NF; i++) if ($i == "insn:") {
		print $(i - 1); next } }' "$tmp/tail.out" >"$tmp/got"
	[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" ||
		fail "tail.data: qpt's instructions are not perf's"
fi
same "$tmp" tail.data --sysroot "$TRACES/arcus-hello"
E="${QPT_BUILD:-}/tests/emulate"
if [ -x "$E/emu_threads" ] && "$QPT" record --help 2>&1 | grep -q -- --emulate; then
	env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/tsc=0,mtc=0/u \
		-o "$tmp/threads.data" -- "$E/emu_threads" >/dev/null 2>&1
	same "$tmp" threads.data
	if command -v zstd >/dev/null; then
		seq 1 6000 >"$tmp/in.txt"
		env -i QPT_TEST=1 "$QPT" record -q --emulate \
			-e intel_pt/tsc=0,mtc=0/u -o "$tmp/zstd.data" \
			-- "$(command -v zstd)" -T2 -q -f "$tmp/in.txt" \
			-o /dev/null >/dev/null 2>&1
		same "$tmp" zstd.data
	fi
fi
echo "ok: $n decodes the same with -j2 and -j3 as with -j1"
