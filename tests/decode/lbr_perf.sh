#!/bin/bash
# qpt decode --lbr on a real Intel PT trace (arcus-hello) against perf's
# own branch list of it (expected/perf-script-be.txt.gz, and perf itself
# where installed): the end record's last 32 and 4096 taken branches
# (lbr_perf.py), with trace ends and starts joined as an LBR sees them.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
d=$TRACES/arcus-hello
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat "$d/expected/perf-script-be.txt.gz" >"$tmp/perf.txt"
for n in 32 1024; do
	"$QPT" decode --lbr=$n --json -i "$d/perf.data" --sysroot "$d" \
		>"$tmp/lbr.json" || fail "qpt decode --lbr=$n"
	python3 "$here/lbr_perf.py" "$tmp/perf.txt" "$tmp/lbr.json" $n ||
		fail "--lbr=$n differs from perf's branches"
done
# the raw stream with its images: the same record
# shellcheck disable=SC2046
"$QPT" decode --lbr=1024 --json --raw "$d/trace.pt" $(images "$d") \
	>"$tmp/raw.json" || fail "qpt decode --raw --lbr"
python3 "$here/lbr_perf.py" "$tmp/perf.txt" "$tmp/raw.json" 1024 ||
	fail "--raw --lbr differs from perf's branches"
# bad option values
for o in --lbr=0 --lbr=1025 --lbr=x "--lbr --lbr-period 0" \
	"--lbr --format=perfmon" "--lbr -o x" "--lbr-period 5" \
	"--lbr --format=ptxed -o x"; do
	# shellcheck disable=SC2086
	"$QPT" decode -i "$d/perf.data" $o >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "decode $o: exit $rc, want 2"
done
echo ok
