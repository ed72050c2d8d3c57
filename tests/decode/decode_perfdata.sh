#!/bin/bash
# qpt decode -i perf.data on the real ARCUS traces (every variant: split
# AUXTRACE records, no index), against expected/insn-ips and perf script's
# branches; perf inject's rewrites (file and pipe); standard input; and the
# quipper recording whose binaries are absent (a clean account, no crash).
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip_prefix() { sed 's/^ *[0-9][0-9]* //'; }
check_file() { # folder file label
	local d=$1 f=$2
	"$QPT" decode --insn --json --sysroot "$d" -i "$f" >"$tmp/insn.json" ||
		fail "$3: --insn exit $?"
	json_ips <"$tmp/insn.json" >"$tmp/ips"
	zcat "$d/expected/insn-ips.txt.gz" | cmp - "$tmp/ips" ||
		fail "$3: instruction addresses differ from expected/insn-ips"
	grep -q '"tid":' "$tmp/insn.json" || fail "$3: no tid in --json"
	"$QPT" decode --branches --no-sym --sysroot "$d" -i "$f" | strip_prefix >"$tmp/br" ||
		fail "$3: --branches exit $?"
	zcat "$d/expected/perf-script-be.txt.gz" | cmp - "$tmp/br" ||
		fail "$3: --branches differ from perf script --itrace=be"
	echo "ok: $3"
}
for f in "$TRACES"/arcus-hello/perf*.data; do
	check_file "$TRACES/arcus-hello" "$f" "$(basename "$f")"
done
check_file "$TRACES/arcus-ovf-01-poc" "$TRACES/arcus-ovf-01-poc/perf.data" ovf
# snapshots: the stream as overlapping AUXTRACE records with unrelated
# offsets (as snapshot mode writes them); the overlap must be dropped
for v in "3 1000" "4 500" "9 200"; do
	# shellcheck disable=SC2086
	python3 "$(dirname "$0")/mksnap.py" "$TRACES/arcus-hello/perf-noindex.data" \
		"$tmp/snap.data" $v || fail "mksnap $v"
	check_file "$TRACES/arcus-hello" "$tmp/snap.data" "snapshots $v"
done
# what qpt's own writer writes: plain, zstd-compressed, pipe mode
if "$QPT" convert --help >/dev/null 2>&1; then
	d="$TRACES/arcus-hello"
	"$QPT" convert -i "$d/perf-split3.data" -o "$tmp/conv.data" ||
		fail "qpt convert"
	check_file "$d" "$tmp/conv.data" "qpt convert"
	"$QPT" convert -i "$d/perf-split3.data" -o "$tmp/convz.data" -z ||
		fail "qpt convert -z"
	check_file "$d" "$tmp/convz.data" "qpt convert -z"
	"$QPT" convert -i "$d/perf.data" -o - -z >"$tmp/convp.data" ||
		fail "qpt convert -o - -z"
	check_file "$d" "$tmp/convp.data" "qpt convert -o - -z"
fi
# --image by hand instead of the sysroot
d="$TRACES/arcus-hello"
# shellcheck disable=SC2046
"$QPT" decode --insn --json $(images "$d") -i "$d/perf.data" 2>/dev/null |
	json_ips | cmp - <(zcat "$d/expected/insn-ips.txt.gz") ||
	fail "--image with perf.data"
# standard input (the reader's pipe path over a file-mode stream)
"$QPT" decode --insn --json --sysroot "$TRACES/arcus-hello" -i - \
	<"$TRACES/arcus-hello/perf.data" | json_ips >"$tmp/ips" ||
	fail "stdin: exit $?"
zcat "$TRACES/arcus-hello/expected/insn-ips.txt.gz" | cmp - "$tmp/ips" ||
	fail "stdin: addresses differ"
# what perf itself writes: perf inject to a file and to a pipe
if command -v perf >/dev/null 2>&1; then
	perf inject -i "$TRACES/arcus-hello/perf.data" -o "$tmp/inj.data" 2>/dev/null ||
		fail "perf inject failed"
	check_file "$TRACES/arcus-hello" "$tmp/inj.data" "perf inject -o file"
	perf inject -i "$TRACES/arcus-hello/perf.data" -o - >"$tmp/inj-pipe.data" 2>/dev/null ||
		fail "perf inject -o - failed"
	check_file "$TRACES/arcus-hello" "$tmp/inj-pipe.data" "perf inject -o -"
else
	echo "note: no perf: perf inject checks skipped"
fi
# binaries absent: exit 0 or 1, messages only "qpt: ...", the missing
# images named with what was lost
q="$TRACES/quipper-intel-pt-4.14"
for f in "$q/perf.data.intel_pt-4.14" "$q/perf.data.piped.intel_pt-4.14"; do
	for m in --insn --branches --calls; do
		"$QPT" decode $m --json -i "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 0 ] || [ $rc = 1 ] || fail "$f $m: exit $rc"
		if grep -v '^qpt: ' "$tmp/err" | grep -q .; then
			fail "$f $m: stray stderr: $(head -3 "$tmp/err")"
		fi
		grep -q 'ld-2.23.so not found: [1-9][0-9]* decode gap' "$tmp/err" ||
			fail "$f $m: ld.so not reported: $(cat "$tmp/err")"
	done
	grep -q '"event":"lost"' "$tmp/out" || fail "$f: no lost record"
	echo "ok: $(basename "$f")"
done
# the trace starts qpt decodes there (it skips to the next PSB where an
# image is missing, perf to the next TIP), with their times: each among
# perf 6.1's --itrace=be lines (times in microseconds, cut as perf cuts)
"$QPT" decode --branches -i "$q/perf.data.intel_pt-4.14" -F tid,time,ip,addr \
	2>/dev/null | awk '$3 == "0" { print $1, substr($2, 1, length($2) - 4), $5 }' \
	>"$tmp/starts"
gzip -dc "$q/expected/perf.data.intel_pt-4.14.perf-script-itrace-be.txt.gz" |
	awk '$5 == "tr" && $6 == "strt" { sub(":", "", $4); print $2, $4, $9 }' \
	>"$tmp/perf.starts"
[ "$(wc -l <"$tmp/starts")" -ge 3 ] || fail "quipper: $(wc -l <"$tmp/starts") trace starts"
missing=$(grep -vxFf "$tmp/perf.starts" "$tmp/starts")
[ -z "$missing" ] || fail "quipper: trace starts not perf's: $missing"
echo "ok: quipper: $(wc -l <"$tmp/starts") trace starts at perf's times"
