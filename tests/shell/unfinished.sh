#!/usr/bin/env bash
# Unfinished perf.data files: what perf record leaves when it is killed
# before it finishes the header (data size 0, the feature bits it meant to
# write but no feature table).  perf 6.1 warns ("data size field is 0")
# and then reads no record at all; qpt reads the records that are whole,
# as perf reads the same bytes once the header is finished, with a
# warning, and a warning naming a last record cut short.
#
# 1. A real perf record -e task-clock, killed by pid while it writes: qpt
#    dump, info and convert (file and pipe) against perf report -D on a copy
#    whose header is finished (data size = the whole records, found here by
#    walking the record headers; no features).
# 2. A finished recording made unfinished and cut inside records: qpt's
#    records are perf's records of the original that end before the cut.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need perf python3
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1:exitcode=99"

# records: "offset size TYPE" (decimal) of each record perf report -D or
# qpt dump prints on stdin, by offset (perf prints FINISHED_ROUND when it
# flushes).
records() {
	local o s t
	grep -oE '^([0-9]+ )?0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_[A-Z0-9_]+' |
		sed 's/^[0-9]* //; s/\[//; s/\]://' |
		while read -r o s t; do echo "$((o)) $((s)) $t"; done | sort -n
}

# unfinish IN OUT CUT: IN with data size 0 (its feature bits kept), cut to
# CUT bytes.
unfinish() {
	python3 - "$@" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read()[:int(sys.argv[3])])
struct.pack_into('<Q', b, 48, 0)
open(sys.argv[2], 'wb').write(b)
EOF
}

# finish IN OUT: IN's header finished as perf record would: data size up
# to the last whole record, no features; prints that end.
finish_hdr() {
	python3 - "$@" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', b, 40)[0]
pos = off
while pos + 8 <= len(b):
    size = struct.unpack_from('<H', b, pos + 6)[0]
    if size < 8 or pos + size > len(b):
        break
    pos += size
struct.pack_into('<Q', b, 48, pos - off)
struct.pack_into('<4Q', b, 72, 0, 0, 0, 0)
open(sys.argv[2], 'wb').write(b[:pos])
print(pos)
EOF
}

# qpt_warns FILE CUT: qpt's stderr (in $tmp/err) holds the warning that
# FILE is unfinished and, when CUT is not empty, the one that a record at
# offset CUT is cut short; nothing else.
qpt_warns() {
	local want
	want="qpt: warning: $1: data size 0 in the header: its writer did not finish (killed?); reading the records up to the end of the input"
	if [ -n "$2" ]; then
		want="$want
qpt: warning: $1: offset $(printf '0x%x' "$2"): the last record is cut short"
	fi
	if [ "$(cut -c1-${#want} <"$tmp/err" | head -c ${#want})" != "$want" ] ||
	   [ "$(wc -l <"$tmp/err")" != "$(echo "$want" | wc -l)" ]; then
		bad "$1: qpt's warnings:"
		cat "$tmp/err"
	fi
}

# 1. perf record killed mid-run
# shellcheck disable=SC2016 # the loop is the shell's
perf record -q -m 2 -c 20000 -e task-clock -o "$tmp/k.data" -- \
	sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1 &
pid=$!
# wait for the state: records on disk past the first 64 KiB
for _ in $(seq 2000); do
	[ "$(stat -c %s "$tmp/k.data" 2>/dev/null || echo 0)" -gt 65536 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
child=$(cat /proc/$pid/task/*/children 2>/dev/null)
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
# shellcheck disable=SC2086 # the workload's pid, if it still runs
[ -n "$child" ] && kill -KILL $child 2>/dev/null
k=$tmp/k.data
size=$(stat -c %s "$k")
[ "$size" -gt 65536 ] || { echo "perf record wrote $size bytes"; exit 77; }
perf report -D -i "$k" 2>&1 >/dev/null | grep -q "data size field is 0" ||
	bad "perf does not take $k for unfinished"
end=$(finish_hdr "$k" "$tmp/fixed.data")
want=$(perf_counts "$tmp/fixed.data")
"$QPT" dump -i "$k" >/dev/null 2>"$tmp/err" || bad "qpt dump exit $?"
qpt_warns "$k" "$([ "$end" != "$size" ] && echo "$end")"
got=$(qpt_counts "$k" 2>/dev/null)
check_view "killed perf record" "$want" "$got" types
# shellcheck disable=SC2002 # a pipe on standard input, not a file
got=$(cat "$k" | qpt_counts - 2>/dev/null)
check_view "killed perf record on a pipe" "$want" "$got" types
"$QPT" info -i "$k" >"$tmp/info" 2>"$tmp/err" || bad "qpt info exit $?"
qpt_warns "$k" ""
grep -q '^# data size *: 0$' "$tmp/info" || bad "qpt info: data size"
"$QPT" convert -i "$k" -o "$tmp/conv.data" 2>"$tmp/err" ||
	bad "qpt convert exit $?"
got=$(perf_counts "$tmp/conv.data")
check_view "qpt convert of the killed perf record" "$want" "$got" types

# 2. cut inside records: against perf's records of the finished file
perf record -q -c 20000 -e task-clock -o "$tmp/fin.data" -- sh -c "$busy" \
	>/dev/null 2>&1 || bad "perf record"
perf report -D -i "$tmp/fin.data" 2>/dev/null | records >"$tmp/all"
read -r off dsize < <(python3 -c 'import struct, sys
print(*struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(), 40))' \
	"$tmp/fin.data")
for cut in $((off + dsize - 1)) $((off + dsize / 2)) $((off + 3)) "$off"; do
	unfinish "$tmp/fin.data" "$tmp/cut.data" "$cut"
	want=$(awk -v cut="$cut" '$1 + $2 <= cut' "$tmp/all")
	"$QPT" dump -i "$tmp/cut.data" >"$tmp/out" 2>"$tmp/err" ||
		bad "cut at $cut: qpt dump exit $?"
	got=$(records <"$tmp/out")
	if [ "$want" != "$got" ]; then
		bad "cut at $cut: records differ from perf's"
		diff <(echo "$want") <(echo "$got") | head -5
	fi
	checked=$((checked + 1))
	# the record the cut goes through, if any
	first=$(awk -v cut="$cut" '$1 < cut && $1 + $2 > cut { print $1 }' \
		"$tmp/all")
	qpt_warns "$tmp/cut.data" "$first"
done
finish
