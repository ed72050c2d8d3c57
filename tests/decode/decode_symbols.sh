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
# plt_stubs DIR: every address of the PLT stubs (.plt, .plt.sec,
# .plt.got) in the images of DIR/perf.data, "ADDR NAME@plt+0xOFF", by the
# names objdump gives the stubs, at their addresses in the recording
plt_stubs() {
	"$QPT" dump -i "$1/perf.data" | sed -n \
		's|.*: \[0x\([0-9a-f]*\)(0x[0-9a-f]*) @ \([0-9a-fx]*\) .*r-xp /\(.*\)$|\1 \2 \3|p' |
		while read -r start off path; do
			for sec in .plt .plt.sec .plt.got; do
				objdump -d --section=$sec "$1/$path" 2>/dev/null |
					sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' |
					while read -r a n; do
						size=16
						[ $sec = .plt.got ] && size=8
						for ((k = 0; k < size; k++)); do
							printf '%x %s+0x%x\n' \
								$((0x$start - off + 0x$a + k)) "$n" $k
						done
					done
			done
		done
}
for t in arcus-hello arcus-ovf-01-poc; do
	d="$TRACES/$t"
	# perf 6.1 names .plt's stubs by .rela.plt's order, wrong where it is
	# not theirs (libc's IRELATIVE ones), and not .plt.got's; qpt names
	# them as objdump, gdb and later perf do: objdump's names stand in for
	# perf's answer there
	plt_stubs "$d" >"$tmp/plt"
	[ -s "$tmp/plt" ] || [ $t != arcus-hello ] || fail "$t: no PLT stubs"
	perf script -i "$d/perf.data" --symfs="$d" --itrace=i0ns \
		-F ip,sym,symoff 2>/dev/null | awk '
		FILENAME != "-" { plt[$1] = $2; next }
		{ if ($1 in plt) $2 = plt[$1]
		  print $1, $2 }' "$tmp/plt" - >"$tmp/perf"
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
