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
# got_stubs DIR: each slot of .plt.got in the images of DIR/perf.data as
# objdump names it, "ADDR NAME@plt" at its address in the recording
got_stubs() {
	"$QPT" dump -i "$1/perf.data" | sed -n \
		's|.*: \[0x\([0-9a-f]*\)(0x[0-9a-f]*) @ \([0-9a-fx]*\) .*r-xp /\(.*\)$|\1 \2 \3|p' |
		while read -r start off path; do
			objdump -d --section=.plt.got "$1/$path" 2>/dev/null |
				sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' |
				while read -r a n; do
					printf '%x %s\n' $((0x$start - off + 0x$a)) "$n"
				done
		done
}
for t in arcus-hello arcus-ovf-01-poc; do
	d="$TRACES/$t"
	# perf 6.1 does not name .plt.got's slots (later perf, objdump, gdb
	# and qpt do: NAME@plt); objdump's names stand in for its answer
	got_stubs "$d" >"$tmp/got"
	perf script -i "$d/perf.data" --symfs="$d" --itrace=i0ns \
		-F ip,sym,symoff 2>/dev/null | awk '
		FILENAME != "-" { got[$1] = $2; next }
		{ n = $1
		  if (n in got) $2 = got[n] "+0x0"
		  print $1, $2 }' "$tmp/got" - >"$tmp/perf"
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
