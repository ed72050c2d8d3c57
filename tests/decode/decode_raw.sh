#!/bin/bash
# qpt decode --raw on the real ARCUS Intel PT traces, against the oracles:
# expected/insn-ips (libipt's ptxed and perf agree on it), perf script's
# branches (--itrace=be, byte for byte) and perf script -F ip,insn.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in arcus-hello arcus-ovf-01-poc; do
	d="$TRACES/$t"
	# shellcheck disable=SC2046
	"$QPT" decode --raw "$d/trace.pt" $(images "$d") --insn --json \
		>"$tmp/insn.json" || fail "$t: --insn --json exit $?"
	json_ips <"$tmp/insn.json" >"$tmp/ips"
	zcat "$d/expected/insn-ips.txt.gz" | cmp - "$tmp/ips" ||
		fail "$t: instruction addresses differ from expected/insn-ips"
	# shellcheck disable=SC2046
	"$QPT" decode --raw "$d/trace.pt" $(images "$d") --branches \
		>"$tmp/br" || fail "$t: --branches exit $?"
	zcat "$d/expected/perf-script-be.txt.gz" | cmp - "$tmp/br" ||
		fail "$t: --branches differs from perf script --itrace=be"
	# shellcheck disable=SC2046
	"$QPT" decode --raw "$d/trace.pt" $(images "$d") --insn --no-asm |
		grep -v '^  \[' >"$tmp/insn" || fail "$t: --insn"
	zcat "$d/expected/perf-script-i0ns-ip-insn.txt.gz" | cmp - "$tmp/insn" ||
		fail "$t: --insn text differs from perf script -F ip,insn"
	# the JSON branch pairs are the same as perf's (without tr strt/end)
	# shellcheck disable=SC2046
	"$QPT" decode --raw "$d/trace.pt" $(images "$d") --branches --json |
		grep -v 'trace_begin\|trace_end' |
		sed 's/^{"from":"0x\([0-9a-f]*\)","to":"0x\([0-9a-f]*\)".*/\1 \2/' \
		>"$tmp/pairs"
	zcat "$d/expected/perf-script-be.txt.gz" | grep -v 'tr strt\|tr end' |
		awk '{ print $(NF-2), $NF }' | cmp - "$tmp/pairs" ||
		fail "$t: --branches --json pairs differ from perf's"
	echo "ok: $t"
done
