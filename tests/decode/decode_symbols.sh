#!/bin/bash
# Symbols (libelf: .symtab/.dynsym, aliases, IFUNCs, NAME@plt) against
# perf script -F ip,sym,symoff run on the same files: the libc image of the
# ARCUS traces is an ELF memory dump with its dynamic symbols.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
need_traces
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in arcus-hello arcus-ovf-01-poc; do
	d="$TRACES/$t"
	perf script -i "$d/perf.data" --symfs="$d" --itrace=i0ns \
		-F ip,sym,symoff 2>/dev/null | awk '{ print $1, $2 }' >"$tmp/perf"
	[ -s "$tmp/perf" ] || fail "$t: perf script gave nothing"
	"$QPT" decode --insn --sysroot "$d" -i "$d/perf.data" |
		awk '$NF != "]" && / insn:/ {
			if ($3 == "insn:") print $2, "[unknown]"; else print $2, $3 }' \
		>"$tmp/qpt"
	cmp "$tmp/perf" "$tmp/qpt" || fail "$t: symbols differ from perf's"
	grep -q '@plt+0x' "$tmp/qpt" || [ $t != arcus-hello ] ||
		fail "$t: no @plt symbol"
	echo "ok: $t"
done
