#!/bin/bash
# qpt decode merges the threads of a recording by time, as perf script
# does: on emulated recordings with timestamps (-e intel_pt/tsc,mtc/u) of
# emu_threads (a thread runs while main waits) and of zstd -T2 (two
# threads at once), each thread's branches are perf script's, in perf
# script's order: no pair of branches of different threads in another
# order (a thread's step stops before an item of a new time, a disable's
# or an enable's too, as perf's queue stops before the sample whose time
# passes the next queue's), and so are emu_threads' instructions;
# --no-sort gives each thread whole, in turn.  Skips
# where this build has no emulated source or there is no perf.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
E="${QPT_BUILD:-}/tests/emulate"
[ -x "$E/emu_threads" ] || { echo "skip: no emulate test programs"; exit 77; }
"$QPT" record --help 2>&1 | grep -q -- --emulate ||
	{ echo "skip: no qpt record --emulate"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "tid from to" of each branch of qpt decode --branches's text
branches() {
	awk '{ for (i = 1; i < NF; i++) if ($i == "=>") {
		print $1, $(i - 1), $(i + 1); break } }'
}
check() { # NAME: the recording $tmp/NAME.data
	local f="$tmp/$1.data"
	perf script -i "$f" --itrace=b -F tid,ip,addr 2>/dev/null |
		awk '{ print $1, $2, $NF }' >"$tmp/perf.txt"
	[ -s "$tmp/perf.txt" ] || fail "$1: no branches from perf"
	"$QPT" decode --branches --no-sym -i "$f" | branches >"$tmp/qpt.txt"
	echo "$1, by time:"
	python3 "$here/order_vs_perf.py" "$tmp/perf.txt" "$tmp/qpt.txt" 0 ||
		fail "$1: not in perf script's order"
	"$QPT" decode --branches --no-sym --no-sort -i "$f" |
		branches >"$tmp/qpt.txt"
	echo "$1, --no-sort:"
	python3 "$here/order_vs_perf.py" "$tmp/perf.txt" "$tmp/qpt.txt" ||
		fail "$1 --no-sort: the threads' branches differ from perf's"
	awk '{ print $1 }' "$tmp/qpt.txt" | uniq | sort | uniq -d | grep -q . &&
		fail "$1 --no-sort: a thread's branches are not whole"
	return 0
}
env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/tsc,mtc/u \
	-o "$tmp/threads.data" -- "$E/emu_threads" >/dev/null 2>&1
check threads
# and its instructions, in perf script's order too
perf script -i "$tmp/threads.data" --itrace=i0ns -F tid,ip 2>/dev/null |
	awk '{ print $1, $2 }' >"$tmp/perf.txt"
"$QPT" decode --insn --no-sym --no-asm -i "$tmp/threads.data" |
	awk '$3 !~ /^\[/ { print $1, $3 }' >"$tmp/qpt.txt"
echo "threads, instructions by time:"
python3 "$here/order_vs_perf.py" "$tmp/perf.txt" "$tmp/qpt.txt" 0 ||
	fail "threads: instructions not in perf script's order"
if command -v zstd >/dev/null; then
	seq 1 6000 >"$tmp/in.txt"
	env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/tsc,mtc/u \
		-o "$tmp/zstd.data" -- "$(command -v zstd)" -T2 -q -f \
		"$tmp/in.txt" -o /dev/null >/dev/null 2>&1
	check zstd
fi
echo ok
