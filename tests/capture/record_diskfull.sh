#!/usr/bin/env bash
# The disk fills up during a recording: qpt says so in one line and exits
# 1, and the file left behind reads whole in perf (no warnings) and qpt,
# up to the last drain.  Needs root to mount a small tmpfs (else skip).
set -uo pipefail
spin=$1
command -v perf >/dev/null || exit 77
[ "$(id -u)" = 0 ] || exit 77
perf stat -e task-clock:u true >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
mount -t tmpfs -o size=256k tmpfs "$tmp" 2>/dev/null || { rmdir "$tmp"; exit 77; }
trap 'umount "$tmp"; rmdir "$tmp"' EXIT
"$QPT" record -e task-clock:u -c 100000 -o "$tmp/full.data" -- "$spin" 5000 \
	2>"$tmp/../qpt-diskfull-err.$$"
rc=$?
err=$(cat "$tmp/../qpt-diskfull-err.$$"); rm -f "$tmp/../qpt-diskfull-err.$$"
echo "$err"
test $rc -eq 1 || { echo "exit $rc"; exit 1; }
test "$(printf '%s\n' "$err" | wc -l)" -eq 1
printf '%s\n' "$err" | grep -q 'No space left on device'
perf report -D -i "$tmp/full.data" >/dev/null 2>"$tmp/../qpt-perr.$$"
perr=$(cat "$tmp/../qpt-perr.$$"); rm -f "$tmp/../qpt-perr.$$"
if printf '%s\n' "$perr" | grep -i -E 'warn|error'; then exit 1; fi
n=$(perf report -D -i "$tmp/full.data" 2>/dev/null | grep -c PERF_RECORD_SAMPLE)
echo "$n samples kept"
test "$n" -gt 100
"$QPT" dump -i "$tmp/full.data" >/dev/null
