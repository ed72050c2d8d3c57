# shellcheck shell=bash
# Sourced by the shell tests (bash), first thing:
#	. "$QPT_SRC/tests/shell/lib.sh"
# It sets -u and gives a scratch directory $tmp (removed on exit), $T (the
# real traces; may not exist), $busy (a shell loop for perf to sample),
# fail=0 and checked=0 with bad and finish, need (skip when a command is
# missing), and the views of perf.data files the tests compare: per-type record counts from perf report -D and from
# qpt dump --json, and one view against another with check_view.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
checked=0
# shellcheck disable=SC2034 # for the tests
T=${QPT_SHARED:-/nonexistent}/traces
# shellcheck disable=SC2016,SC2034 # a few ms of work for sh -c "$busy"
busy='i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'

# need CMD...: skip the test (exit 77) when a command is missing.
need() {
	local c
	for c; do
		command -v "$c" >/dev/null || { echo "$c missing"; exit 77; }
	done
}

# bad MSG...: a failed check.
bad() {
	echo "FAIL: $*"
	fail=1
}

# finish: the test's end: skipped (77) when nothing was checked, else 1
# when a check failed.
finish() {
	[ "$checked" -gt 0 ] || exit 77
	exit "$fail"
}

# check_view FILE WANT GOT UNIT: qpt's view GOT of FILE against the
# oracle's view WANT, line for line; "ok: FILE (N UNIT)" or the first
# differences.  An empty WANT fails (the oracle saw nothing).
check_view() {
	local f=$1 want=$2 got=$3 unit=$4
	if [ -z "$want" ]; then
		bad "perf printed nothing for $f"; return
	fi
	if [ "$want" != "$got" ]; then
		bad "$f"
		diff <(echo "$want") <(echo "$got") | head -10
	else
		echo "ok: $f ($(echo "$want" | wc -l) $unit)"
	fi
	checked=$((checked + 1))
}

# perf_counts FILE: perf's aggregated per-type counts, without TOTAL and
# COMPRESSED (perf counts the inner records of COMPRESSED ones too).
perf_counts() {
	perf report -D -i "$1" 2>/dev/null |
		sed -n '/^Aggregated stats/,/^[^ A]/p' |
		awk '$2 == "events:" && $1 != "TOTAL" && $1 != "COMPRESSED" &&
		     $1 != "COMPRESSED2" && $3 > 0 { print $1, $3 }' | sort
}

# qpt_counts FILE: the same from qpt dump --json (FILE - is stdin).
qpt_counts() {
	"$QPT" dump --json -i "$1" |
		sed -n 's/.*"type":"\([A-Z0-9_]*\)".*/\1/p' |
		grep -v -x -e COMPRESSED -e COMPRESSED2 | sort | uniq -c |
		awk '{ print $2, $1 }' | sort
}
