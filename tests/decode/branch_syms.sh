#!/bin/bash
# The symbols of both ends of every branch against perf's: an emulated
# recording of a dynamically linked test program decoded by
# `qpt decode --branches --json` (sym, to_sym) and by
# `perf script --itrace=b -F ip,sym,symoff,addr` (which names the target
# too), trace starts and ends included ([unknown] at address 0).  Branches
# into or out of a PLT stub are left out: perf 6.1 names the stubs after
# the nearest symbol (_init+0x30) where qpt, objdump and gdb say NAME@plt.
# The stubs of .plt.got (__cxa_finalize's, called at exit) are checked
# against objdump's names instead.
# The text output shows the same names (the target's after "=>").
# Args: PROG
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
	-- "$1" >/dev/null 2>"$tmp/rec.err" || fail "qpt record: $(cat "$tmp/rec.err")"
perf script -i "$tmp/rec.data" --itrace=b -F ip,sym,symoff,addr 2>/dev/null |
	awk '{ $1 = $1; print }' >"$tmp/perf"
"$QPT" decode --branches --json -i "$tmp/rec.data" | awk '
	function field(k,   m) {
		if (match($0, "\"" k "\":\"[^\"]*\"") == 0) return "";
		return substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5);
	}
	{ f = field("from"); t = field("to"); s = field("sym");
	  ts = field("to_sym"); sub("^0x", "", f); sub("^0x", "", t)
	  print f, (s == "" ? "[unknown]" : s), "=>", t,
		(ts == "" ? "[unknown]" : ts) }' >"$tmp/qpt"
n=$(wc -l <"$tmp/perf")
[ "$n" -gt 1000 ] || fail "perf printed $n branches"
[ "$n" -eq "$(wc -l <"$tmp/qpt")" ] || fail "branch counts: perf $n, qpt $(wc -l <"$tmp/qpt")"
paste -d'|' "$tmp/perf" "$tmp/qpt" | awk -F'|' '
	$2 ~ /@plt\+/ || $1 ~ / _init\+/ { plt++; next }
	$1 != $2 { if (bad < 5) print "differs: perf " $1 " / qpt " $2; bad++ }
	END { printf "%d branches compared, %d at PLT stubs left out\n", NR - plt, plt
	      exit bad > 0 }' || fail "branch symbols differ from perf's"
# the text: the target's name after "=>"
"$QPT" decode --branches -i "$tmp/rec.data" | grep -m1 ' call .*=> *[0-9a-f]* main+0x0$' >/dev/null ||
	fail "no call of main+0x0 in the text output"
# .plt.got's stubs as objdump names them, where the trace calls them
bias=$("$QPT" dump -i "$tmp/rec.data" | sed -n \
	"s|.*: \[0x\([0-9a-f]*\)(0x[0-9a-f]*) @ \([0-9a-fx]*\) .*r-xp $1\$|\1 \2|p" |
	head -1 | { read -r a o && printf '%x' $((0x$a - o)); })
[ -n "$bias" ] || fail "no executable mapping of $1"
"$QPT" decode --branches -i "$tmp/rec.data" >"$tmp/text"
stubs=0
while read -r addr name; do
	at=$(printf '%x' $((0x$bias + 0x$addr)))
	grep -q "=> *$at " "$tmp/text" || continue
	grep -q "=> *$at $name+0x0\$" "$tmp/text" ||
		fail "$name at $at: qpt says $(grep -m1 -o "=> *$at .*" "$tmp/text")"
	stubs=$((stubs + 1))
done < <(objdump -d --section=.plt.got "$1" | sed -n 's/^0*\([0-9a-f]*\) <\(.*\)>:$/\1 \2/p')
[ "$stubs" -gt 0 ] || fail "no call of a .plt.got stub in the trace"
echo "$stubs .plt.got stubs named as objdump names them"
echo "ok"
