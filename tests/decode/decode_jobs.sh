#!/bin/bash
# qpt decode -j N (parts of the queues decoded on N threads, stitched at
# the cuts) prints what -j1 prints, byte for byte, times and all: on every
# real trace (whose -j1 decodes the other tests hold to perf, ptxed and
# libipt) and on multi-thread emulated recordings with and without
# timestamps (emu_threads and zstd -T2, which decode_emulated and
# decode_order hold to the ground truth and perf) and a one-thread one
# with them (emu_loops).  Every mode (--insn,
# --branches, --calls, JSON, --events, --no-sort) with -j2, some with
# -j3, on a file of three parts (3 copies of arcus-hello), and a few
# modes on the others (most of them one part per queue), all of them
# on one at least, and files of many short queues; instructions without
# their text where there are many; and again with every part's thread
# waiting for its turn after each step
# (the -j printers are -j1's: the checks are the parts' stitching).
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
FEW=("--insn" "--branches --events" "--insn --json --no-sort")
LIGHT=("--insn --no-asm" "--branches --json")
BIG3=("--insn --no-asm" "--branches")
BIG2=("--calls" "--branches --json --no-sort" "--branches --events")
# same DIR FILE JOBS MODES ARGS...: -j1 and -jN for each N in JOBS agree
# in each mode of the array named MODES
same() {
	local d=$1 f=$2 jobs=$3 m j
	local -n modes=$4
	shift 4
	for m in "${modes[@]}"; do
		# shellcheck disable=SC2086 # $m: several options
		(cd "$d" && "$QPT" decode $m "$@" -j1 -i "$f") >"$tmp/j1" 2>&1
		for j in $jobs; do
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
same "$TRACES/arcus-hello" perf.data 2 FEW --sysroot .
# the same trace in other containers (AUXTRACE records, no index)
for f in perf-split3.data perf-noindex.data perf-split7-noindex.data; do
	same "$TRACES/arcus-hello" $f 2 LIGHT --sysroot .
done
same "$TRACES/arcus-ovf-01-poc" perf.data 2 FEW --sysroot .
same "$TRACES/quipper-intel-pt-4.14" perf.data.intel_pt-4.14 2 FEW
same "$TRACES/quipper-intel-pt-4.14" perf.data.piped.intel_pt-4.14 2 FEW
# three parts (of 4 KiB or more, cut at a copy's first PSB): 3 copies of
# arcus-hello, in AUXTRACE records of 4 KiB
python3 "$(dirname "$0")/../../bench/mkbig.py" \
	"$TRACES/arcus-hello/perf-noindex.data" "$tmp/big.data" 3 --split 4096
same "$tmp" big.data "2 3" BIG3 --sysroot "$TRACES/arcus-hello"
same "$tmp" big.data 2 BIG2 --sysroot "$TRACES/arcus-hello"
# a trace that ends in a PSB cut short, the first PSB 4 KiB or more
# after the last cut (3 copies): no part starts there (no flow starts at a PSB+
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
same "$tmp" tail.data 2 LIGHT --sysroot "$TRACES/arcus-hello"
# many short queues (tests/decode/mkqueues.py: one stream of a few bytes
# each): 12, each first part decoded by the calling thread, and 40 (more
# than 16 and two for each thread), the whole file decoded there
for q in 12 40; do
	python3 "$(dirname "$0")/mkqueues.py" "$tmp/q$q.data" "$tmp/code" $q ||
		fail "mkqueues.py $q"
	same "$tmp" q$q.data "2 3" FEW --no-sym
done
E="${QPT_BUILD:-}/tests/emulate"
if [ -x "$E/emu_threads" ] && "$QPT" record --help 2>&1 | grep -q -- --emulate; then
	# without timing packets (the queues in turn) and with them (TSC and
	# MTC, the emulated default: merged by time)
	env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/tsc=0,mtc=0/u \
		-o "$tmp/threads.data" -- "$E/emu_threads" >/dev/null 2>&1
	same "$tmp" threads.data 2 LIGHT
	env -i QPT_TEST=1 "$QPT" record -q --emulate \
		-o "$tmp/tthreads.data" -- "$E/emu_threads" >/dev/null 2>&1
	same "$tmp" tthreads.data 2 FEW
	# one queue with timing packets (an MTC between most TNTs), in ~10
	# parts: times order nothing there, so a part's steps are one
	# mark past its first few
	env -i QPT_TEST=1 "$QPT" record -q --emulate \
		-o "$tmp/loops.data" -- "$E/emu_loops_static" >/dev/null 2>&1
	LOOPS=("--insn --no-asm" "--branches" "--branches --json")
	same "$tmp" loops.data "2 3" LOOPS
	if command -v zstd >/dev/null; then
		seq 1 2000 >"$tmp/in.txt"
		env -i QPT_TEST=1 "$QPT" record -q --emulate \
			-o "$tmp/zstd.data" -- "$(command -v zstd)" -T2 -q -f \
			"$tmp/in.txt" -o /dev/null >/dev/null 2>&1
		# 1M instructions, 40 parts: their text once, without
		# disassembly
		ZSTD=("--insn --no-asm" "--branches --events"
			"--branches --json --no-sort")
		same "$tmp" zstd.data 2 ZSTD
	fi
fi
# every part's thread waits for its turn after each step (QPT_JOBS_HOLD:
# the lines a part holds before; 8 MiB otherwise, which a loop's trace
# passes): queues in turn, merged by time, and one queue in parts
export QPT_JOBS_HOLD=1
same "$tmp" big.data "2 3" BIG3 --sysroot "$TRACES/arcus-hello"
for f in threads.data tthreads.data zstd.data loops.data; do
	[ -e "$tmp/$f" ] && same "$tmp" $f "2 3" LIGHT
done
unset QPT_JOBS_HOLD
echo "ok: $n decodes the same with -j2 (and -j3) as with -j1"
