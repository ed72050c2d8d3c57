#!/bin/bash
# qpt record --emulate timing packets (tsc, mtc, cyc), checked with perf:
# the decode equals the single-step ground truth with any of them on, perf
# reports no decode errors, perf's per-instruction times never decrease and
# lie between the first and last sideband record (COMM ... EXIT, stamped
# from the host clock), MTC and CYC give perf strictly more distinct times
# than TSC alone, and perf reads the attr config and AUXTRACE_INFO words
# (mtc bit, mtc_freq bits, TSC:CTC ratio, cyc bit, max non-turbo ratio) as
# the emulated CPU's.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
prog=$DIR/emu_flow

env -i "$GT" gt.txt -- "$prog" >/dev/null
awk '{ print $2 }' gt.txt >want.txt
n=$(wc -l <want.txt)

# record NAME TERMS: record, check the decode, times and errors; prints
# the number of distinct times perf gives the instructions
check() {
	local name=$1 terms=$2 lo hi
	env -i "$QPT" record --emulate -e "intel_pt/$terms/u" -o "$name.data" \
		-- "$prog" >/dev/null 2>rec.txt ||
		{ bad "$terms: $(cat rec.txt)"; return; }
	perf script -i "$name.data" --itrace=i0ns -F time,ip --ns \
		2>/dev/null >"$name.txt"
	awk '{ print $2 }' "$name.txt" | cmp -s want.txt - ||
		bad "$terms: perf decode != ground truth"
	perf script -i "$name.data" --itrace=e 2>&1 | grep -i "error" \
		>"$name.err"
	[ -s "$name.err" ] && bad "$terms: perf: $(head -1 "$name.err")"
	# the sideband's time range (COMM to EXIT), from perf
	perf script -i "$name.data" --show-task-events --show-mmap-events \
		--ns 2>/dev/null | grep PERF_RECORD |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			printf "%.9f\n", $i + 0; break } }' |
		sort -n >"$name.sb"
	lo=$(head -1 "$name.sb") hi=$(tail -1 "$name.sb")
	[ -n "$lo" ] || { bad "$terms: no sideband times"; return; }
	awk -v lo="$lo" -v hi="$hi" -v t="$terms" '
		{ x = $1 + 0
		  if (x < last) { print "FAIL: " t ": time goes back at " NR ": " $0; exit 1 }
		  if (x < lo || x > hi) { print "FAIL: " t ": time " $1 " outside sideband " lo " .. " hi; exit 1 }
		  last = x }' "$name.txt" || fail=1
	awk '{ print $1 }' "$name.txt" | sort -u | wc -l >"$name.distinct"
}

# (the default has mtc: mtc=0 leaves it out)
check tsc tsc,mtc=0
check mtc tsc,mtc
check mtc0 tsc,mtc,mtc_period=0
check mtc9 tsc,mtc,mtc_period=9
check cyc tsc,mtc=0,cyc
check cyc6 tsc,mtc=0,cyc,cyc_thresh=6
check all tsc,mtc,cyc

t=$(cat tsc.distinct)
for m in mtc mtc0 mtc9 cyc cyc6 all; do
	d=$(cat $m.distinct)
	[ "$d" -gt "$t" ] || bad "$m: $d distinct times, tsc alone $t"
done

# what perf reads of the configuration
cfg() { # the first event, intel_pt (qpt:crash follows)
	perf evlist -v -i "$1.data" 2>/dev/null | head -1 |
		grep -o "config: 0x[0-9a-f]*"
}
[ "$(cfg mtc)" = "config: 0x300e601" ] || bad "mtc: event $(cfg mtc)"
[ "$(cfg mtc9)" = "config: 0x3026601" ] || bad "mtc9: event $(cfg mtc9)"
[ "$(cfg cyc6)" = "config: 0x3302403" ] || bad "cyc6: event $(cfg cyc6)"
perf report -D -i all.data 2>/dev/null >info.txt
for want in "MTC bit *0x200" "MTC freq bits *0x3c000" \
	"TSC:CTC numerator *40" "TSC:CTC denominator *1" "CYC bit *0x2" \
	"Max non-turbo ratio *10" "Time Muliplier *1" "Cap Time Zero *1"; do
	grep -q "$want" info.txt || bad "AUXTRACE_INFO: no '$want'"
done
# the packets perf sees
for p in "MTC" "TMA" "CYC" "CBR"; do
	grep -q "^\. .*  $p " info.txt || bad "all: perf sees no $p packet"
done

# qpt decode (libipt set up from AUXTRACE_INFO and the event's mtc_period)
# times the instructions at MTC edges as perf does: every time it gives is
# one perf gives, and it gives most of them
for m in mtc mtc9; do
	"$QPT" decode -i $m.data --json 2>/dev/null | grep -v '"event"' |
		grep -o '"time":[0-9]*' | cut -d: -f2 | sort -u >$m.q
	awk '{ print $1 }' $m.txt | tr -d '.:' | sort -u >$m.p
	other=$(comm -23 $m.q $m.p | wc -l)
	[ "$other" -eq 0 ] || bad "qpt decode $m: $other times perf does not give"
	[ "$(wc -l <$m.q)" -ge $(($(wc -l <$m.p) * 9 / 10)) ] ||
		bad "qpt decode $m: $(wc -l <$m.q) distinct times, perf $(wc -l <$m.p)"
done

# bad values are usage errors
"$QPT" record --emulate -e intel_pt/mtc_period=16/u -- true 2>/dev/null
[ $? -eq 2 ] || bad "mtc_period=16 is not a usage error"

[ $fail -eq 0 ] && echo "ok: $n instructions; distinct times: tsc $t," \
	"mtc $(cat mtc.distinct), cyc $(cat cyc.distinct)"
exit $fail
