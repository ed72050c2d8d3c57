#!/bin/bash
# qpt decode against perf script on the same Intel PT files, in one run:
# --insn --no-asm vs perf script --itrace=i0ns -F ip,sym, --branches vs
# --itrace=b.  Prints wall times, the speed ratio (goal >= 10x) and peak
# memory (RSS); and qpt's --insn with each instruction's text (perf 6.1
# has no disassembler of its own: no ratio).
#
#   bench/decode.sh [N]     N = copies of the arcus-hello trace (default 40)
#
# At the end, ratios in alternating pairs (PAIRS, default 9; medians):
# --insn, --branches and --insn --json against perf script on one copy
# and on N copies (goal 20x), --insn and --branches on MANY (default
# 400; 0 leaves them out) copies, /bin/true and qpt --version against perf
# script on one copy (the ceiling of a one-copy ratio on this machine:
# exec and exit alone), and --stats and --coverage against
# libipt's block decoder alone (bench/blk_loop.c, built here) on the
# same raw stream (with BENCH_IR=1 also by callgrind's counts); then
# --insn and --branches against perf script and --stats against qpt's
# libipt engine on an emulated recording with perf's default timing
# packets (TSC, TMA, MTC; the arcus traces have none), with qpt's peak
# RSS there at -j1 and the default -j.
#
# With BENCH_IR=1 (needs valgrind) it also counts the instructions each
# side executes (callgrind) on 1 and 4 copies and prints the ratio of the
# marginal work per copy: a measure that machine load does not disturb.
#
# With BASE=path/to/qpt (an optimised build of another commit, e.g. the
# one before a change) it also compares qpt with that baseline in the same
# run: best-of-three wall times of --insn without instruction text and of
# --branches and their ratio, whether the outputs are the same, and with
# BENCH_IR=1 the instructions each executes on 1 copy and per extra copy.
# A baseline without --no-asm (from before the disassembler) is run with
# --insn alone, which printed no text then.
#
# It then decodes a trace of at least 1 GiB (BIG_MB, default 1100 MB: the
# arcus-hello trace copied, each copy padded with PT PADs to ~460 KB, in
# AUXTRACE records of 64 KiB as perf record writes them) and prints qpt's
# peak RSS (goal: <= 64 MiB besides the mapped images, whatever the trace
# size) with the file's size; BIG_MB=0 leaves it out.  Last, the -j
# scaling (JOBS, default 2 threads, against -j1) on JOBS_COPIES (default
# 400) copies of the arcus-hello trace: JOBS_COPIES=0 leaves it out.
#
# qpt decodes with its default -j (the online cpus; perf script uses one)
# except where a line says -j1.
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing, without sanitizers).  Not a ctest.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-40}
shared=${QPT_SHARED:-$src/../shared}
d="$shared/traces/arcus-hello"
[ -d "$d" ] || { echo "no $d" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$src/bench/lib.sh" # perf, and an optimised $QPT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
big="$tmp/big.data"
python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$big" "$n"
echo "input: arcus-hello trace x$n ($(stat -c %s "$big") bytes perf.data)"

# run NAME CMD...: wall seconds and peak RSS (KiB) into $tmp/NAME
run() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/$name" "$@" >"$tmp/$name.out" 2>/dev/null
	echo "$(cat "$tmp/$name") $(wc -l <"$tmp/$name.out")" >"$tmp/$name"
}
run qpt_insn "$QPT" decode --insn --no-asm --sysroot "$d" -i "$big"
run qpt_asm "$QPT" decode --insn --sysroot "$d" -i "$big"
run perf_insn perf script -i "$big" --symfs="$d" --itrace=i0ns -F ip,sym
run qpt_br "$QPT" decode --branches --sysroot "$d" -i "$big"
run perf_br perf script -i "$big" --symfs="$d" --itrace=b

report() { # label qpt perf
	read -r qt qm ql <"$tmp/$2"
	read -r pt pm pl <"$tmp/$3"
	awk -v l="$1" -v qt="$qt" -v pt="$pt" -v qm="$qm" -v pm="$pm" \
		-v ql="$ql" -v pl="$pl" 'BEGIN {
		r = (qt > 0) ? pt / qt : 0
		printf "%-9s qpt %7.3f s %8d KiB %9d lines | perf %7.3f s %8d KiB %9d lines | %6.1fx faster%s\n",
			l, qt, qm, ql, pt, pm, pl, r, (r >= 10 ? "" : "  (goal 10x)")
	}'
}
report --insn qpt_insn perf_insn
report --branches qpt_br perf_br
read -r at am al <"$tmp/qpt_asm"
printf '%-9s qpt %7.3f s %8d KiB %9d lines (with the text of each instruction)\n' \
	+asm "$at" "$am" "$al"

# the arguments of --insn without text for qpt binary $1
insn_args() {
	if "$1" decode --help 2>&1 | grep -q -- --no-asm; then
		echo --insn --no-asm
	else
		echo --insn
	fi
}

if [ -n "${BASE:-}" ]; then
	echo "baseline: $BASE"
	for mode in insn branches; do
		if [ $mode = insn ]; then
			read -ra qargs <<<"$(insn_args "$QPT")"
			read -ra bargs <<<"$(insn_args "$BASE")"
		else
			qargs=(--branches)
			bargs=(--branches)
		fi
		"$QPT" decode "${qargs[@]}" --sysroot "$d" -i "$big" >"$tmp/q.out" 2>&1
		"$BASE" decode "${bargs[@]}" --sysroot "$d" -i "$big" >"$tmp/b.out" 2>&1
		same="same output"
		cmp -s "$tmp/q.out" "$tmp/b.out" || same="OUTPUT DIFFERS"
		qt=$(best_secs "$QPT" decode "${qargs[@]}" --sysroot "$d" -i "$big")
		bt=$(best_secs "$BASE" decode "${bargs[@]}" --sysroot "$d" -i "$big")
		awk -v m="--$mode" -v qt="$qt" -v bt="$bt" -v s="$same" 'BEGIN {
			printf "%-10s qpt %7.3f s | baseline %7.3f s | %.2fx the baseline'"'"'s speed (%s)\n",
				m, qt, bt, (qt > 0 ? bt / qt : 0), s
		}'
	done
fi

if [ "${BENCH_IR:-0}" = 1 ] && command -v valgrind >/dev/null; then
	python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$tmp/b1.data" 1
	python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$tmp/b4.data" 4
	ir() { # instructions executed by "$@"
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
			2>&1 >/dev/null | sed -n 's/.*Collected : //p'
	}
	for mode in insn branches; do
		if [ $mode = insn ]; then
			pargs=(--itrace=i0ns -F "ip,sym")
			qargs=(--insn --no-asm)
		else
			pargs=(--itrace=b)
			qargs=(--branches)
		fi
		q1=$(ir "$QPT" decode "${qargs[@]}" --sysroot "$d" -i "$tmp/b1.data")
		q4=$(ir "$QPT" decode "${qargs[@]}" --sysroot "$d" -i "$tmp/b4.data")
		p1=$(ir perf script -i "$tmp/b1.data" --symfs="$d" "${pargs[@]}")
		p4=$(ir perf script -i "$tmp/b4.data" --symfs="$d" "${pargs[@]}")
		awk -v m="--$mode" -v q1="$q1" -v q4="$q4" -v p1="$p1" -v p4="$p4" 'BEGIN {
			qm = (q4 - q1) / 3; pm = (p4 - p1) / 3
			printf "%-10s instructions per trace copy: qpt %.1fM, perf %.1fM: %.1fx (totals at 4 copies: %.1fx)\n",
				m, qm / 1e6, pm / 1e6, pm / qm, p4 / q4
		}'
		[ -n "${BASE:-}" ] || continue
		bargs=(--branches)
		[ $mode = branches ] || read -ra bargs <<<"$(insn_args "$BASE")"
		b1=$(ir "$BASE" decode "${bargs[@]}" --sysroot "$d" -i "$tmp/b1.data")
		b4=$(ir "$BASE" decode "${bargs[@]}" --sysroot "$d" -i "$tmp/b4.data")
		awk -v m="--$mode" -v q1="$q1" -v q4="$q4" -v b1="$b1" -v b4="$b4" 'BEGIN {
			qm = (q4 - q1) / 3; bm = (b4 - b1) / 3
			printf "%-10s vs baseline: 1 copy qpt %.1fM, baseline %.1fM (%.3fx); per copy qpt %.1fM, baseline %.1fM (%.3fx)\n",
				m, q1 / 1e6, b1 / 1e6, b1 / q1, qm / 1e6, bm / 1e6, bm / qm
		}'
	done
fi

# ---- ratios in alternating pairs (issue 21) ----
# Each figure runs the two commands one after the other PAIRS times
# (default 9), alternating which goes first, and prints the median of
# the ratios of their wall times: the machine's load moves both sides of
# a pair alike.

# secs and pair_ratio: bench/lib.sh

# The raw stream of the arcus-hello trace N times (each copy from a PSB)
# and the image arguments of qpt and of the libipt loop.
raw_copies() { # N OUT
	local i
	: >"$2"
	for ((i = 0; i < $1; i++)); do cat "$d/trace.pt" >>"$2"; done
}
qpt_images() { for f in "$d"/mem/*.bin; do printf -- '--image\n%s@0x%s\n' "$f" "$(basename "$f" .bin)"; done; }
blk_images() { for f in "$d"/mem/*.bin; do printf '%s@0x%s\n' "$f" "$(basename "$f" .bin)"; done; }

# text_pairs FILE LABEL: --insn and --branches against perf script on
# $tmp/FILE.data
text_pairs() {
	pair_ratio "--insn --no-asm vs perf script ($2)" 20 \
		"$QPT" decode --insn --no-asm --sysroot "$d" -i "$tmp/$1.data" -- \
		perf script -i "$tmp/$1.data" --symfs="$d" --itrace=i0ns -F ip,sym
	# perf's fields as qpt prints them (hw: its synthesized branches; -F
	# without it also asks the PT event for addr, and perf refuses that
	# on these files)
	pair_ratio "--branches vs perf script ($2)" 20 \
		"$QPT" decode --branches --sysroot "$d" -i "$tmp/$1.data" -- \
		perf script -i "$tmp/$1.data" --symfs="$d" --itrace=b -F hw:tid,ip,addr,flags
}

# Text and JSON against perf script, on one copy and on $n copies.
fig_text() {
	local f label
	python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$tmp/one.data" 1
	for f in one big; do
		label="1 copy"
		[ $f = big ] && label="$n copies"
		text_pairs $f "$label"
		pair_ratio "--insn --json vs perf script ($label)" 0 \
			"$QPT" decode --insn --json --no-asm --sysroot "$d" -i "$tmp/$f.data" -- \
			perf script -i "$tmp/$f.data" --symfs="$d" --itrace=i0ns -F ip,sym
	done
	# a larger trace still: MANY (default 400; 0 leaves it out) copies,
	# 2.8 MB of trace and 59M instructions, where start-up is no part
	if [ "${MANY:-400}" != 0 ]; then
		python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" \
			"$tmp/many.data" "${MANY:-400}"
		text_pairs many "${MANY:-400} copies"
		rm -f "$tmp/many.data"
	fi
	# what no decoder passes on one copy here: a process that does
	# nothing (its exec and exit alone), and qpt's own start
	pair_ratio "/bin/true vs perf script --branches (1 copy)" 0 \
		/bin/true -- \
		perf script -i "$tmp/one.data" --symfs="$d" --itrace=b -F hw:tid,ip,addr,flags
	pair_ratio "qpt --version vs perf script --branches (1 copy)" 0 \
		"$QPT" --version -- \
		perf script -i "$tmp/one.data" --symfs="$d" --itrace=b -F hw:tid,ip,addr,flags
}

# Count-only against libipt's block decoder alone (bench/blk_loop.c, built
# here) on the same raw stream, one copy and $n copies; and the fast
# decoder against libipt inside qpt (--engine=libipt).
fig_stats() {
	local qi=() bi=() c
	mapfile -t qi < <(qpt_images)
	mapfile -t bi < <(blk_images)
	cc -O2 -o "$tmp/blk_loop" "$src/bench/blk_loop.c" -lipt ||
		{ echo "no libipt loop (cc, libipt-dev)"; return; }
	for c in 1 "$n"; do
		raw_copies "$c" "$tmp/raw$c.pt"
		pair_ratio "--stats vs libipt block loop ($c cop$([ "$c" = 1 ] && echo y || echo ies))" 1 \
			"$QPT" decode --stats --raw "$tmp/raw$c.pt" "${qi[@]}" -- \
			"$tmp/blk_loop" "$tmp/raw$c.pt" "${bi[@]}"
	done
	pair_ratio "--coverage vs libipt block loop ($n copies)" 1 \
		"$QPT" decode --coverage -o /dev/null --raw "$tmp/raw$n.pt" "${qi[@]}" -- \
		"$tmp/blk_loop" "$tmp/raw$n.pt" "${bi[@]}"
	pair_ratio "--stats vs --stats --engine=libipt ($n copies)" 0 \
		"$QPT" decode --stats --raw "$tmp/raw$n.pt" "${qi[@]}" -- \
		"$QPT" decode --stats --engine=libipt --raw "$tmp/raw$n.pt" "${qi[@]}"
	[ "${BENCH_IR:-0}" = 1 ] && command -v valgrind >/dev/null || return 0
	# instructions executed (callgrind): load-independent
	for c in 1 "$n"; do
		for m in "--stats" "--coverage -o /dev/null"; do
			# shellcheck disable=SC2086
			q=$(ir_count "$QPT" decode $m --raw "$tmp/raw$c.pt" "${qi[@]}")
			p=$(ir_count "$tmp/blk_loop" "$tmp/raw$c.pt" "${bi[@]}")
			awk -v l="${m%% *} vs libipt block loop ($c cop$([ "$c" = 1 ] && echo y || echo ies))" \
				-v q="$q" -v p="$p" 'BEGIN {
				printf "%-44s %7.1fx  (instructions: qpt %.1fM, peer %.1fM)\n",
					l, (q > 0 ? p / q : 0), q / 1e6, p / 1e6 }'
		done
	done
}

# ir_count CMD...: the instructions CMD executes (callgrind)
ir_count() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
		>/dev/null | sed -n 's/.*Collected : //p'
}

# The same on a recording with perf's default timing packets (TSC, TMA,
# MTC): an emulated bench_branchy (the build's, BRANCHY_ARG, default 20).
fig_timed() {
	local b=$(dirname "$QPT")/../bench/bench_branchy eng=fast
	[ -x "$b" ] || { echo "no bench_branchy beside $QPT: no timed figures"; return 0; }
	command -v qemu-x86_64 >/dev/null && eng=qemu
	"$QPT" record -q --emulate=$eng -o "$tmp/timed.data" -- "$b" \
		"${BRANCHY_ARG:-20}" >/dev/null
	echo "timed input: bench_branchy ${BRANCHY_ARG:-20} under --emulate=$eng" \
		"($(stat -c %s "$tmp/timed.data") bytes)"
	pair_ratio "--insn --no-asm vs perf script (timed)" 20 \
		"$QPT" decode --insn --no-asm -i "$tmp/timed.data" -- \
		perf script -i "$tmp/timed.data" --itrace=i0ns -F ip,sym
	# perf prints the lines qpt does: nanoseconds, both ends' symbols
	# (hw: perf's synthesized branches refuse fields without it)
	pair_ratio "--branches vs perf script (timed)" 20 \
		"$QPT" decode --branches -i "$tmp/timed.data" -- \
		perf script -i "$tmp/timed.data" --ns --itrace=b \
		-F hw:tid,time,flags,ip,sym,symoff,addr
	pair_ratio "--stats vs --stats --engine=libipt (timed)" 0 \
		"$QPT" decode --stats -i "$tmp/timed.data" -- \
		"$QPT" decode --stats --engine=libipt -i "$tmp/timed.data"
	# a loop's parts print hundreds of MiB each: what the workers hold
	# until their turn is bounded (goal: 64 MiB)
	local m jobs
	for m in "--insn --no-asm" --branches; do
		for jobs in -j1 ""; do
			# shellcheck disable=SC2086 # $m: options; $jobs: none or one
			/usr/bin/time -f '%M' -o "$tmp/timed.kib" "$QPT" decode \
				$jobs $m -i "$tmp/timed.data" >/dev/null 2>&1
			printf '%-44s %7.1f MiB\n' \
				"peak RSS $m ${jobs:--j$(nproc)} (timed)" \
				"$(awk '{ print $1 / 1024 }' "$tmp/timed.kib")"
		done
	done
}

echo "ratios (peer time / qpt time):"
fig_text
fig_stats
fig_timed

# Peak RSS of qpt decode --branches on a trace of $1 MB made by mkbig.py
# (its memory must not grow with the trace: AUX bytes are read as decoded).
big_rss() {
	local mb=$1 copy=460000 n f="$tmp/huge.data" secs kib
	n=$(((mb * 1000000 + copy - 1) / copy))
	python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$f" "$n" \
		--pad $((copy - $(stat -c %s "$d/trace.pt"))) --split 65536
	/usr/bin/time -f '%e %M' -o "$tmp/huge.time" "$QPT" decode --branches \
		--sysroot "$d" -i "$f" >/dev/null 2>&1
	read -r secs kib <"$tmp/huge.time"
	awk -v s="$(stat -c %s "$f")" -v t="$secs" -v k="$kib" -v n="$n" 'BEGIN {
		printf "big trace %.2f GiB (%d copies, padded): --branches %.1f s, peak RSS %.1f MiB%s\n",
			s / 2^30, n, t, k / 1024, (k <= 65536 ? "" : "  (goal <= 64 MiB)")
	}'
	rm -f "$f"
}
[ "${BIG_MB:-1100}" = 0 ] || big_rss "${BIG_MB:-1100}"

# -j scaling: qpt decode --insn --no-asm -jJOBS (default 2) against -j1
# on $1 copies of the arcus-hello trace (a PSB at each copy: many parts),
# in alternating pairs (the ratio: -j1's time / -jJOBS's); and what JOBS
# separate -j1 processes gain on this machine, the most -jJOBS could.
jobs_scaling() {
	local f="$tmp/jobs.data" j=${JOBS:-2}
	python3 "$src/bench/mkbig.py" "$d/perf-noindex.data" "$f" "$1" \
		--split 65536
	pair_ratio "-j$j vs -j1, --insn --no-asm ($1 copies)" 1.8 \
		"$QPT" decode --insn --no-asm -j"$j" --sysroot "$d" -i "$f" -- \
		"$QPT" decode --insn --no-asm -j1 --sysroot "$d" -i "$f"
	# this machine's ceiling: JOBS -j1 runs at once against one after
	# the other (cores a host shares, memory bandwidth)
	local one="\"\$0\" decode --insn --no-asm -j1 --sysroot \"\$1\" -i \"\$2\" >/dev/null"
	pair_ratio "$j -j1 runs at once vs in turn (the ceiling)" 0 \
		bash -c "for ((k = 0; k < $j; k++)); do $one & done; wait" \
		"$QPT" "$d" "$f" -- \
		bash -c "for ((k = 0; k < $j; k++)); do $one; done" \
		"$QPT" "$d" "$f"
	echo "  (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	rm -f "$f"
}
[ "${JOBS_COPIES:-400}" = 0 ] || jobs_scaling "${JOBS_COPIES:-400}"
