#!/bin/bash
# qpt decode --calls under --sym and --last: names on every line and the
# depth of the whole flow.  Emulated recordings of a program with deep
# recursion and a return that skips a frame (emu_flow) and of one with
# two threads (emu_threads), ASLR off.  Oracles:
#  - perf script --itrace=cr on the same file: the calls and returns of
#    --calls, one for one, at the same addresses and with the same
#    symbols (but calls into PLT stubs, which perf 6.1 names after the
#    nearest symbol: decode_call_syms.sh);
#  - the depth of --calls recomputed from its arrows by a script, per
#    thread (a call goes one deeper, a return one up, never above 0);
#  - --sym FUNC is the lines of --calls (text and JSON) whose function
#    is FUNC, as a script picks them, each at its depth there (not 0 at
#    the first line printed); --last N the last N lines of each thread.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
E="${QPT_BUILD:-}/tests/emulate"
[ -x "$E/emu_flow" ] || { echo "skip: no emulate test programs"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
no() { echo "FAIL: $*"; bad=1; }

# depth_of: "TID DEPTH" of each --calls text line (4 spaces a level)
depth_of() {
	awk '{ match($0, /: +(->|<-) /); print $1, (RLENGTH - 5) / 4 }'
}
# fn_of: "TID FUNC" of each --calls text line: the caller's for a call,
# the returning function's for a return (--sym's function)
fn_of() {
	awk '{ f = $5 }
	     / -> / { f = $NF; sub(/\)$/, "", f) }
	     { sub(/\+0x[0-9a-f]+$/, "", f); print $1, f }'
}
# calls: "TID KIND FROM FROM_SYM TO" of each --calls text line, as
# perf_calls has perf's ([unknown] where there is no symbol)
calls() {
	awk '{ t = $1; k = / -> / ? "call" : "return"
	       s = substr($0, index($0, k == "call" ? "-> " : "<- ") + 3)
	       gsub(/[()]/, "", s); n = split(s, a, " ")
	       w = k == "call" ? "from" : "to"
	       for (i = 1; i < n && a[i] != w; i++) ;
	       if (k == "call")
		       print t, k, a[i + 1], (i + 2 <= n ? a[i + 2] : "[unknown]"), a[1]
	       else
		       print t, k, a[1], (i > 2 ? a[2] : "[unknown]"), a[i + 1] }'
}
perf_calls() {
	perf script -i "$1" --itrace=cr -F tid,ip,sym,symoff,addr,flags \
		2>/dev/null |
		awk '$2 == "call" || $2 == "return" { print $1, $2, $3, $4, $6 }'
}

for p in emu_flow emu_threads; do
	d=$tmp/$p.data
	env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$d" -- "$E/$p" \
		>/dev/null 2>&1 || no "$p: qpt record --emulate"
	"$QPT" decode --calls -i "$d" >"$tmp/full" || no "$p: --calls"
	"$QPT" decode --calls --json -i "$d" >"$tmp/full.json" ||
		no "$p: --calls --json"
	[ "$(wc -l <"$tmp/full")" -gt 100 ] || no "$p: too few calls"

	# the depth, per thread, from the arrows
	depth_of <"$tmp/full" >"$tmp/depth"
	awk '{ a = $0 ~ /: +-> / ? 1 : -1; t = $1
	       if (a < 0 && d[t] > 0) d[t]--
	       print t, d[t] + 0
	       if (a > 0) d[t]++ }' "$tmp/full" | cmp -s - "$tmp/depth" ||
		no "$p: --calls indents other than the calls and returns go"
	sed -n 's/.*"depth":\([0-9]*\),"tid":\([0-9]*\).*/\2 \1/p' \
		"$tmp/full.json" | cmp -s - "$tmp/depth" ||
		no "$p: --json's depth is not the text's"

	# the names and addresses, against perf's calls and returns
	perf_calls "$d" | sort -s -k1,1n >"$tmp/perf"
	calls <"$tmp/full" | sort -s -k1,1n >"$tmp/qpt"
	[ -s "$tmp/perf" ] || no "$p: perf shows no calls"
	paste -d'|' "$tmp/perf" "$tmp/qpt" | awk -F'|' '
		{ split($1, w, " "); split($2, g, " ") }
		w[2] != g[2] || w[3] != g[3] || w[5] != g[5] { bad++; next }
		g[4] ~ /@plt\+/ { next }
		# of two versions of a symbol at one address perf may name
		# either (pthread_create@GLIBC_2.2.5, @@GLIBC_2.34)
		{ sub(/@[^+]*/, "", w[4]); sub(/@[^+]*/, "", g[4]) }
		w[4] != g[4] { print "  perf " $1 "; qpt " $2; bad++ }
		END { exit bad > 0 }' | head -5
	if [ "${PIPESTATUS[1]}" != 0 ] ||
		[ "$(wc -l <"$tmp/perf")" != "$(wc -l <"$tmp/qpt")" ]; then
		no "$p: calls and returns differ from perf's"
	fi

	# --sym FUNC: the lines of FUNC, at their depth
	fn_of <"$tmp/full" >"$tmp/fn"
	for f in main depth fib run _IO_file_setbuf; do
		awk -v f="$f" 'NR == FNR { fn[FNR] = $2; next }
			{ s = fn[FNR]; sub(/@.*/, "", s) }
			s == f' "$tmp/fn" "$tmp/full" >"$tmp/want"
		[ -s "$tmp/want" ] || continue
		"$QPT" decode --calls --sym "$f" -i "$d" >"$tmp/got" ||
			no "$p: --sym $f"
		cmp -s "$tmp/want" "$tmp/got" ||
			no "$p: --sym $f: $(diff "$tmp/want" "$tmp/got" | sed -n 2p)"
		depth_of <"$tmp/got" | awk '$2 > 0 { n++ } END { exit !n }' ||
			no "$p: --sym $f: every line at depth 0"
		grep -E "\"sym\":\"$f(@[^\"]*)?\+0x" "$tmp/full.json" >"$tmp/want"
		"$QPT" decode --calls --json --sym "$f" -i "$d" | cmp -s - \
			"$tmp/want" || no "$p: --json --sym $f"
		echo "$p: --sym $f: $(wc -l <"$tmp/got") lines"
	done

	# --last N: the last N lines of each thread, thread by thread
	for n in 1 7 50; do
		awk -v n="$n" '!($1 in seen) { seen[$1] = 1; order[++k] = $1 }
			{ c[$1]++; line[$1, c[$1]] = $0 }
			END { for (i = 1; i <= k; i++) { t = order[i]
				for (j = c[t] > n ? c[t] - n + 1 : 1; j <= c[t]; j++)
					print line[t, j] } }' "$tmp/full" >"$tmp/want"
		"$QPT" decode --calls --last "$n" -i "$d" >"$tmp/got" ||
			no "$p: --last $n"
		cmp -s "$tmp/want" "$tmp/got" ||
			no "$p: --last $n: $(diff "$tmp/want" "$tmp/got" | sed -n 2p)"
	done
	echo "$p: $(wc -l <"$tmp/full") calls and returns, $(cut -d' ' -f1 \
		"$tmp/depth" | sort -u | wc -l) threads"
done
[ $bad = 0 ] && echo ok
exit $bad
