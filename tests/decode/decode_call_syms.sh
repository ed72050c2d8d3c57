#!/bin/bash
# Symbols of both ends of every call against perf's: an emulated recording
# of a dynamically linked test program (ld.so, libc, the program; libc's
# and ld.so's .symtab come from their separate debug files where
# libc6-dbg is installed, for perf and qpt alike) decoded by
# `qpt decode --branches --json` (sym, to_sym) and by
# `perf script --itrace=c -F ip,sym,symoff,addr`.  Calls into a PLT stub
# are left out: perf 6.1 names some of them after the nearest symbol
# (_init+0x30) where qpt, objdump and gdb say NAME@plt.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
E="${QPT_BUILD:-}/tests/emulate"
[ -x "$E/emu_flow" ] || { echo "skip: no emulate test programs"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
	-- "$E/emu_flow" >/dev/null 2>&1 || fail "qpt record --emulate"
# from from_sym to to_sym, [unknown] where there is no symbol
perf script -i "$tmp/rec.data" --itrace=c -F ip,sym,symoff,addr \
	2>/dev/null | awk '$4 != "0" { print $1, $2, $4, $5 }' >"$tmp/perf"
"$QPT" decode --branches --json -i "$tmp/rec.data" |
	grep '"kind":"\(call\|ind_call\)"' | awk '
	function field(k,   m) {
		if (match($0, "\"" k "\":\"[^\"]*\"") == 0) return "";
		m = substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5);
		return m;
	}
	{ f = field("from"); t = field("to"); s = field("sym");
	  ts = field("to_sym");
	  sub("^0x", "", f); sub("^0x", "", t);
	  print f, (s == "" ? "[unknown]" : s), t,
		(ts == "" ? "[unknown]" : ts) }' >"$tmp/qpt"
[ -s "$tmp/perf" ] || fail "perf printed no calls"
n=$(wc -l <"$tmp/perf")
[ "$n" -eq "$(wc -l <"$tmp/qpt")" ] || fail "call counts: perf $n, qpt $(wc -l <"$tmp/qpt")"
paste -d'|' "$tmp/perf" "$tmp/qpt" | awk -F'|' '
	{ split($2, q, " ") }
	q[4] ~ /@plt\+/ { plt++; next }
	$1 != $2 { print "differs: perf " $1 " qpt " $2; bad++ }
	END { printf "%d calls compared, %d into PLT stubs left out\n", NR - plt, plt
	      exit bad > 0 }' || fail "call symbols differ from perf's"
grep -q ' main+0x0$' "$tmp/qpt" || fail "no call of main resolved"
echo "ok"
