#!/usr/bin/env bash
# Corrupt input: truncations at many offsets, byte flips at many positions,
# sizes and offsets past the end, absurd counts.  qpt dump and qpt info must
# end with exit 0 (the damage left a valid file) or exit 1 and exactly one
# line "qpt: FILE: offset 0x...: ...", never a signal or a sanitizer report.
# File-mode truncations must always fail (the header's sections no longer
# fit).  Positions are deterministic; the count per file is bounded.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
export ASAN_OPTIONS="detect_leaks=1:exitcode=99"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=98:print_stacktrace=1"
runs=0

# run EXPECT FILE CMD...: EXPECT is "1" (must fail) or "01".  With
# STDIN=1 the file comes through a pipe (read incrementally).
run() {
	local expect=$1 f=$2 rc lines name
	shift 2
	if [ "${STDIN:-0}" = 1 ]; then
		cat "$f" | "$QPT" "$@" -i - >/dev/null 2>"$tmp/err"
		rc=${PIPESTATUS[1]}
		name=-
	else
		"$QPT" "$@" -i "$f" >/dev/null 2>"$tmp/err"
		rc=$?
		name=$f
	fi
	runs=$((runs + 1))
	lines=$(wc -l <"$tmp/err")
	case "$rc" in
	0)
		if [ "$expect" = 1 ] || [ "$lines" != 0 ]; then
			echo "FAIL: $* on $(basename "$f"): exit 0 (expected 1)"
			fail=1
		fi ;;
	1)
		if [ "$lines" != 1 ] ||
		   ! grep -qE "^qpt: $name: offset 0x[0-9a-f]+: .+" "$tmp/err"; then
			echo "FAIL: $* on $(basename "$f"): bad message:"
			head -5 "$tmp/err"
			fail=1
		fi ;;
	*)
		echo "FAIL: $* on $(basename "$f"): exit $rc"
		head -20 "$tmp/err"
		fail=1 ;;
	esac
}

# patch FILE OFFSET HEXBYTES: overwrite bytes in place.
patch() {
	printf "$(echo "$3" | sed 's/\(..\)/\\x\1/g')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

corrupt() {
	local src=$1 mode=$2 size n i off cut b
	size=$(stat -c %s "$src")
	cp "$src" "$tmp/orig"
	"$QPT" dump -i "$tmp/orig" >/dev/null || { bad "$src unreadable"; return; }
	# truncations: 32 spread over the file plus the first 24 bytes
	for i in $(seq 0 31) ; do
		cut=$(( (size * i) / 32 + (i * 7) % 13 ))
		[ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$tmp/orig" >"$tmp/t"
		if [ "$mode" = file ]; then
			run 1 "$tmp/t" dump --json
		else
			run 01 "$tmp/t" dump --json
			STDIN=1 run 01 "$tmp/t" dump --json
		fi
	done
	for cut in 1 7 8 15 16 17 23 103; do
		[ "$mode" = pipe ] && [ "$cut" -ge 16 ] && continue
		head -c "$cut" "$tmp/orig" >"$tmp/t"
		run 1 "$tmp/t" dump
	done
	# byte flips: 48 positions, denser in the first 256 bytes (headers)
	for i in $(seq 0 47); do
		if [ "$i" -lt 24 ]; then
			off=$(( i * 11 % 256 ))
		else
			off=$(( (size * (i - 24)) / 24 + i * 5 ))
		fi
		[ "$off" -lt "$size" ] || continue
		cp "$tmp/orig" "$tmp/f"
		b=$(od -An -tx1 -j "$off" -N1 "$tmp/f" | tr -d ' ')
		b=$(printf '%02x' $(( 0x$b ^ (1 << (i % 8)) ^ (i % 3 == 0 ? 0xf0 : 0) )))
		patch "$tmp/f" "$off" "$b"
		run 01 "$tmp/f" dump --json
		[ $((i % 4)) = 0 ] && run 01 "$tmp/f" info
		[ "$mode" = pipe ] && [ $((i % 2)) = 0 ] &&
			STDIN=1 run 01 "$tmp/f" dump --json
	done
}

# Sizes, offsets and counts past the end in a file-mode file.
past_end() {
	local src=$1
	cp "$src" "$tmp/p"
	patch "$tmp/p" 48 ffffffffffff0000	# data.size
	run 1 "$tmp/p" dump
	cp "$src" "$tmp/p"
	patch "$tmp/p" 40 00ffffffffffff00	# data.offset
	run 1 "$tmp/p" dump
	cp "$src" "$tmp/p"
	patch "$tmp/p" 24 0000ffff00000000	# attrs.offset
	run 1 "$tmp/p" info
	cp "$src" "$tmp/p"
	patch "$tmp/p" 16 0300000000000000	# attr_size
	run 1 "$tmp/p" dump
	cp "$src" "$tmp/p"
	patch "$tmp/p" 72 ffffffffffffffff	# feature bits: every one
	run 1 "$tmp/p" info
}

if command -v perf >/dev/null &&
   perf record -q -e task-clock -o "$tmp/sw.data" -- true 2>/dev/null; then
	perf record -q -z -e task-clock -o "$tmp/z.data" -- true 2>/dev/null
	perf record -q -e task-clock -o - -- true >"$tmp/pipe.data" 2>/dev/null
	corrupt "$tmp/sw.data" file
	past_end "$tmp/sw.data"
	corrupt "$tmp/z.data" file
	corrupt "$tmp/pipe.data" pipe
fi
if [ -d "$T" ]; then
	q=$T/quipper-intel-pt-4.14/perf.data.intel_pt-4.14
	corrupt "$q" file
	past_end "$q"
	# AUXTRACE payload size past the end (record at 0x29c0)
	cp "$q" "$tmp/a"
	patch "$tmp/a" $((0x29c0 + 8)) 00000000ffff0000
	run 1 "$tmp/a" dump --json
	# absurd callchain count in the first LBR sample
	l=$T/lbr-callstack-perfparser/perf.lbr.data
	corrupt "$l" file
	off=$("$QPT" dump --json -i "$l" | sed -n 's/^{"offset":\([0-9]*\),"type":"SAMPLE".*/\1/p' | head -1)
	cp "$l" "$tmp/c"
	# IP, TID, TIME, PERIOD precede CALLCHAIN: nr at +8+32
	patch "$tmp/c" $((off + 40)) ffffffffffffff0f
	run 1 "$tmp/c" dump --json
fi
echo "$runs runs"
[ "$runs" -gt 0 ] || exit 77
exit $fail
