#!/bin/bash
# Fuchsia perfmon buffers: qpt decode --lbr --format=perfmon on a real
# Intel PT trace writes the LBR records (TIME and LAST_BRANCH, 32 newest
# entries, cycles in the info); qpt dump reads every record type and
# field (a buffer re-encoded from qpt dump --json by perfmon.py, from the
# published layout, is the same bytes: write -> dump -> write is
# lossless; so is qpt convert --format=perfmon); qpt convert makes
# perf.data branch-stack samples that perf reads (perf script's brstack
# and perf report -D's lines against the buffer); corrupt buffers get
# one line naming the file, exit 1.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
d=$TRACES/arcus-hello
py="python3 $(dirname "$0")/perfmon.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lbr="--lbr=40 --lbr-period 997 -i $d/perf.data --sysroot $d"

# shellcheck disable=SC2086
"$QPT" decode $lbr --format=perfmon -o "$tmp/a.pm" || fail "decode -> perfmon"
# shellcheck disable=SC2086
"$QPT" decode $lbr --json >"$tmp/lbr.json" || fail "decode --lbr --json"
"$QPT" dump --json -i "$tmp/a.pm" >"$tmp/a.json" || fail "dump --json"
$py check-lbr "$tmp/a.json" "$tmp/lbr.json" || fail "LAST_BRANCH records"
$py build "$tmp/a.json" "$tmp/b.pm" || fail "re-encoding"
cmp "$tmp/a.pm" "$tmp/b.pm" ||
	fail "the buffer re-encoded from qpt dump --json differs"
"$QPT" convert -i "$tmp/a.pm" -o "$tmp/c.pm" --format=perfmon ||
	fail "convert --format=perfmon"
cmp "$tmp/a.pm" "$tmp/c.pm" || fail "convert --format=perfmon differs"
"$QPT" dump -i "$tmp/a.pm" | grep -q '^0x24 \[0x[0-9a-f]*\]: LAST_BRANCH' ||
	fail "dump text"

# every record type
$py every "$tmp/every.pm"
"$QPT" dump --json -i "$tmp/every.pm" >"$tmp/every.json" || fail "dump every"
$py check-every "$tmp/every.json" || fail "every record type"
$py build "$tmp/every.json" "$tmp/every2.pm" || fail "every: re-encoding"
cmp "$tmp/every.pm" "$tmp/every2.pm" || fail "every: not lossless"
[ "$("$QPT" dump -i "$tmp/every.pm" | wc -l)" -eq 9 ] || fail "every: text"

# perf.data for perf
"$QPT" convert -i "$tmp/a.pm" -o "$tmp/a.data" || fail "convert"
"$QPT" convert -i "$tmp/every.pm" -o "$tmp/every.data" 2>"$tmp/err" ||
	fail "convert every"
grep -q "4 records besides TIME and LAST_BRANCH" "$tmp/err" || fail "skipped"
if command -v perf >/dev/null; then
	perf script -i "$tmp/a.data" -F brstack 2>/dev/null |
		tr ' ' '\n' | grep / | cut -d/ -f1,2 >"$tmp/perf-br"
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    for b in r.get("branches", []):
        print("%s/%s" % (b["from"], b["to"]))' "$tmp/a.json" >"$tmp/want-br"
	[ -s "$tmp/want-br" ] || fail "no branches in the buffer"
	cmp "$tmp/want-br" "$tmp/perf-br" ||
		fail "perf script brstack differs from the buffer"
	for f in a every; do
		diff <(perf report -D -i "$tmp/$f.data" 2>/dev/null |
			grep '^\.\.\.') <("$QPT" dump -i "$tmp/$f.data" |
			grep '^\.\.\.') || fail "$f: qpt dump's lines differ from perf -D"
	done
fi

# corrupt buffers: one line naming the file, exit 1, for dump and convert
for k in capture_end type branches version cut; do
	$py corrupt "$tmp/a.pm" "$tmp/bad.pm" $k
	for c in dump "convert -o $tmp/out.data"; do
		# shellcheck disable=SC2086
		"$QPT" $c -i "$tmp/bad.pm" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
			! grep -q "^qpt: $tmp/bad.pm: " "$tmp/err"; then
			fail "$k, $c: exit $rc: $(cat "$tmp/err")"
		fi
	done
done
echo ok
