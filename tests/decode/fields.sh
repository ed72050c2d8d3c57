#!/bin/bash
# qpt decode -F and qpt lbr -F against perf script -F on the same emulated
# recording (and on the LBR samples qpt inject makes of it) of a
# dynamically linked test program.  Decode: for each field list (times
# too: an item takes the time of the last packet it, or one before it,
# read, as perf times its samples), --insn against --itrace=i0ns and
# --branches against --itrace=b must print the same lines, character for
# character.  Left out: lines at PLT stubs (perf 6.1 names them after the
# nearest symbol, _init+0x30, where qpt says nothing or NAME@plt) and a
# trace start's instruction bytes (perf shows there the last instruction
# before the trace stopped, qpt none).  With cycle-accurate timing
# (intel_pt/cyc/u) an item whose time comes from CYC packets after the
# last MTC may be off (libipt's cycles-to-TSC calibration is not perf's),
# but stays between the times of the items around it whose times agree.
# Bad field lists get one line and exit 2.
# Args: PROG
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a PSB every 2 KiB: many branches decided just before a PSB+, which
# keep the time before it
env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/psb_period=0/u \
	-o "$tmp/rec.data" -- "$1" >/dev/null 2>"$tmp/rec.err" ||
	fail "qpt record: $(cat "$tmp/rec.err")"

# compare MODE ITRACE FIELDS
compare() {
	perf script -i "$tmp/rec.data" --ns --itrace="$2" -F "$3" 2>/dev/null \
		>"$tmp/perf" || fail "perf script -F $3"
	"$QPT" decode "$1" -i "$tmp/rec.data" -F "$3" >"$tmp/qpt" ||
		fail "qpt decode $1 -F $3"
	n=$(wc -l <"$tmp/perf")
	[ "$n" -gt 1000 ] || fail "perf printed $n lines for -F $3"
	[ "$n" -eq "$(wc -l <"$tmp/qpt")" ] ||
		fail "-F $3: perf $n lines, qpt $(wc -l <"$tmp/qpt")"
	paste -d$'\001' "$tmp/perf" "$tmp/qpt" | awk -F'\001' -v f="$3" '
		$1 ~ / _init([+ ]|$)|@plt/ || $2 ~ /@plt/ { left++; next }
		f ~ /insn/ && $1 ~ /tr strt| 0 \[unknown\] =>/ { left++; next }
		$1 != $2 { if (bad < 3) print "-F " f ": perf \"" $1 "\" / qpt \"" $2 "\""; bad++ }
		END { printf "-F %s: %d lines equal, %d left out\n", f, NR - left - bad, left
		      exit bad > 0 }' || fail "-F $3 differs from perf"
}
for f in ip ip,sym ip,sym,symoff tid,ip pid,tid,cpu,ip,sym,symoff \
	ip,insn,insnlen pid,sym,insn tid,time,ip pid,tid,cpu,time,ip,sym,symoff; do
	compare --insn i0ns "$f"
done
for f in ip,addr flags,ip,addr tid,cpu,flags,ip,sym,symoff,addr \
	ip,sym,addr,insnlen,insn pid,tid,flags,sym,addr tid,time,ip,addr \
	time,flags,ip,sym,addr; do
	compare --branches b "$f"
done
# both engines give the same times (the fast decoder's ticks are libipt's)
"$QPT" decode --insn --engine=libipt -i "$tmp/rec.data" -F time,ip >"$tmp/a"
"$QPT" decode --insn --engine=fast -i "$tmp/rec.data" -F time,ip >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "-F time,ip: the engines differ"

# source lines: perf's layout, a line "  FILE:LINE" after the address
# (before the bytes), none where the line is unknown; the line numbers
# equal perf's (perf's "FILE:0", a file without a line, and "DSO[OFFSET]",
# no line table, count as unknown);
# file names are decode_srcline's to check
for m in "--insn i0ns ip,sym,srcline,insn" "--branches b ip,addr,srcline"; do
	read -r mode it fl <<<"$m"
	perf script -i "$tmp/rec.data" --itrace="$it" -F "$fl" 2>/dev/null |
		awk '/^  ([^ ]*:0|[^ :]*\[[0-9a-f]+\])( |$)/ {
			sub(/^  [^ ]*/, ""); prev = prev $0; next }
		     NR > 1 { print prev } { prev = $0 } END { print prev }' \
		>"$tmp/perf"
	"$QPT" decode "$mode" -i "$tmp/rec.data" -F "$fl" >"$tmp/qpt" ||
		fail "qpt decode $mode -F $fl"
	[ "$(wc -l <"$tmp/perf")" -eq "$(wc -l <"$tmp/qpt")" ] ||
		fail "-F $fl: perf $(wc -l <"$tmp/perf") lines, qpt $(wc -l <"$tmp/qpt")"
	paste -d$'\001' "$tmp/perf" "$tmp/qpt" | awk -F'\001' -v f="$fl" '
		function num(s) { sub(/^ +/, "", s); sub(/ .*/, "", s); sub(/.*:/, "", s); return s + 0 }
		$1 !~ /^  [^ ]/ { if ($1 != $2 && $1 !~ / _init([+ ]|$)|@plt/ && $2 !~ /@plt/) {
					if (bad < 3) print f ": perf \"" $1 "\" / qpt \"" $2 "\""; bad++ }
				  next }
		$1 !~ /^  [^ ]*:[0-9]/ { bad++; next }
		$1 ~ /^  [^ ]/ { n++; p = num($1); q = num($2)
			if (p == 0 || q == 0) { unk++; next }
			if (p != q) { if (bad < 3) print f ": perf \"" $1 "\" / qpt \"" $2 "\""; bad++ }
			next }
		END { printf "-F %s: %d source lines, %d equal, %d unknown\n", f, n, n - unk - bad, unk
		      exit bad > 0 || n - unk < 1000 }' || fail "-F $fl: source lines differ from perf"
done

# times: perf's form, SEC.NSEC: with 9 digits after the point
"$QPT" decode --branches -i "$tmp/rec.data" -F tid,time,ip | head -100 |
	grep -vcE '^ *[0-9]+ +[0-9]+\.[0-9]{9}: +[0-9a-f]+$' | grep -qx 0 ||
	fail "-F tid,time,ip: not perf's form"
# cycle-accurate timing: the same items, and the same times but where a
# time comes from CYC packets after the last MTC (libipt's cycles-to-TSC
# calibration is not perf's, which looks ahead to the next MTC): there,
# at most 1 in 1000 items, qpt's time stays between the times of the
# items around it whose times agree
env -i QPT_TEST=1 "$QPT" record -q --emulate -e intel_pt/cyc/u \
	-o "$tmp/cyc.data" -- "$1" >/dev/null 2>"$tmp/rec.err" ||
	fail "qpt record -e intel_pt/cyc/u: $(cat "$tmp/rec.err")"
# near MODE ITRACE FIELDS: the time first in FIELDS
near() {
	perf script -i "$tmp/cyc.data" --ns --itrace="$2" -F "$3" 2>/dev/null \
		>"$tmp/perf" || fail "perf script -F $3 on the cyc recording"
	"$QPT" decode "$1" -i "$tmp/cyc.data" -F "$3" >"$tmp/qpt" ||
		fail "qpt decode $1 -F $3 on the cyc recording"
	paste -d$'\001' "$tmp/perf" "$tmp/qpt" | awk -F'\001' -v f="$3" '
		{ p = $1; q = $2; tp[NR] = p; tq[NR] = q
		  sub(/:.*/, "", tp[NR]); sub(/:.*/, "", tq[NR])
		  tp[NR] += 0; tq[NR] += 0
		  sub(/^[^:]*:/, "", p); sub(/^[^:]*:/, "", q)
		  if (p != q) { print "cyc -F " f ": perf " $1 " / qpt " $2; exit 1 }
		  line[NR] = $1 }
		END { for (k = 1; k <= NR; k++) {
			if (tp[k] == tq[k]) continue
			off++
			for (a = k - 1; a > 0 && tp[a] != tq[a]; a--) ;
			for (b = k + 1; b <= NR && tp[b] != tq[b]; b++) ;
			if ((a > 0 && tq[k] < tp[a]) || (b <= NR && tq[k] > tp[b])) {
				print "cyc -F " f ": qpt " tq[k] " outside perf " tp[a] ".." tp[b] ": " line[k]
				exit 1 } }
		      printf "cyc -F %s: %d lines, %d times off (between their neighbours)\n", f, NR, off
		      exit NR < 5000 || off * 1000 > NR }' ||
		fail "cyc -F $3: times not as perf's"
}
near --insn i0ns time,ip
near --branches b time,ip,addr
# +F and -F change the default fields
"$QPT" decode --branches -i "$tmp/rec.data" -F -time,-cpu,-tid,+insn | head -3 |
	grep -qE '^  call  .* => .* insn: e8( [0-9a-f]{2}){4}$' ||
	fail "-F -time,-cpu,-tid,+insn: no call with its bytes"
# qpt lbr -F on the call-stack LBR samples qpt inject makes of the same
# recording, against perf script -F on them: every line (PLT stubs' aside,
# and samples with an empty call stack: perf 6.1 prints for one, at a
# program's entry, the frame of another sample where qpt prints its ip).

# no_lone: the samples' lines less those of a sample of one frame (one
# line that starts with a tab)
no_lone() { awk 'BEGIN { RS = ""; ORS = "\n\n" }
		 { n = 0; k = split($0, l, "\n")
		   for (i = 1; i <= k; i++) n += l[i] ~ /^\t/
		   if (n != 1) print }'; }
"$QPT" inject --lbr-callstack=500 -i "$tmp/rec.data" -o "$tmp/lbr.data" ||
	fail "qpt inject"
# perf 6.1 does not name the slots of .plt.got (qpt does, as objdump, gdb
# and later perf do: NAME@plt): "ADDR (DSO)" of each, as perf prints a
# frame there, to be left out as the other PLT stubs are
perf script -i "$tmp/lbr.data" -F ip,dso 2>/dev/null |
	sed -n 's/.*(\(\/.*\))$/\1/p' | sort -u | while read -r dso; do
	objdump -d --section=.plt.got "$dso" 2>/dev/null |
		sed -n "s|^0*\([0-9a-f]*\) <.*@plt>:\$|\1 ($dso)|p"
done >"$tmp/got"
# plt_got FIELDS: perf's frames at those slots named NAME@plt where
# FIELDS name symbols (as the default ones, which +F and -F change, do;
# by their address alone where they have no dso)
plt_got() {
	case ",$1," in
	*,-sym,*) cat; return ;;
	*,sym,* | *,+sym,* | ,+* | ,-*) ;;
	*) cat; return ;;
	esac
	awk 'FILENAME != "-" { got[$0]; at[$1]; next }
		 { if ($NF ~ /^\(/ ? $1 " " $NF in got : $1 in at)
			$0 = $0 " @plt"
		   print }' "$tmp/got" -
}
for f in comm,tid,time,period,event,ip,sym,symoff,dso tid,ip,sym \
	pid,tid,period,event comm,tid ip,dso +pid -comm,-dso,-period; do
	perf script -i "$tmp/lbr.data" -F "$f" 2>/dev/null | plt_got "$f" |
		grep -vE '@plt| _init([+ ]|$)' | no_lone >"$tmp/perf" ||
		fail "perf script -F $f on LBR samples"
	"$QPT" lbr -i "$tmp/lbr.data" -F "$f" | grep -vE '@plt| _init([+ ]|$)' |
		no_lone >"$tmp/qpt" || fail "qpt lbr -F $f"
	[ "$(grep -c . "$tmp/perf")" -gt 100 ] || fail "perf -F $f: too few lines"
	cmp -s "$tmp/perf" "$tmp/qpt" ||
		fail "qpt lbr -F $f differs from perf: $(diff "$tmp/perf" "$tmp/qpt" | head -3)"
	echo "qpt lbr -F $f: $(wc -l <"$tmp/qpt") lines equal"
done
for bad in ip,symoff dso,bogus; do
	rc=0
	"$QPT" lbr -i "$tmp/lbr.data" -F "$bad" >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 2 ] || fail "qpt lbr -F '$bad': exit $rc"
done
# bad lists
for bad in dso ip,, +ip,sym ip,+sym ip,flags ip,symoff 'branches:ip' ''; do
	rc=0
	"$QPT" decode -i "$tmp/rec.data" -F "$bad" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -le 2 ] ||
		fail "-F '$bad': exit $rc, $(cat "$tmp/err")"
done
echo "ok"
