#!/bin/bash
# No trace lost where nothing forces a loss: the breakpoint engine runs
# emu_burst's counted loop natively and retires its trips at once, a burst
# of trace many times a small AUX area (-m ,8K).  The emulator can wait for
# its reader, so in full-trace mode the file holds no loss (no TRUNCATED
# AUX record, no error in perf's decode) and perf counts every trip of the
# loop; the summary says 0 bytes lost.  In snapshot mode the area is
# (-m ,32K) overwritten as designed, and the summary counts what was.
# Args: GT_STEP PROG_DIR
GT=$1 DIR=$2
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
trips=1000000

"$QPT" record --emulate -m ,8K -o "$tmp/full.data" -- "$DIR/emu_burst" \
	$trips 0 >/dev/null 2>"$tmp/err" || bad "record: $(cat "$tmp/err")"
grep -q '^\[ qpt record: captured .* buffers, 0 bytes lost;' "$tmp/err" ||
	bad "the summary tells of a loss: $(cat "$tmp/err")"
grep -q 'truncated' "$tmp/err" && bad "truncations: $(cat "$tmp/err")"
n=$(perf report -D -i "$tmp/full.data" 2>/dev/null |
	grep -c 'PERF_RECORD_AUX .*flags: 0x[0-9a-f]*[13579bdf] ')
[ "$n" -eq 0 ] || bad "$n TRUNCATED AUX records"
perf script -i "$tmp/full.data" --itrace=e 2>/dev/null | grep -q 'error' &&
	bad "perf: $(perf script -i "$tmp/full.data" --itrace=e 2>&1 | head -2)"
# the loop's jump back is taken once a trip but the last
top=$(perf script -i "$tmp/full.data" --itrace=b -F ip 2>/dev/null |
	sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
[ "$top" = $((trips - 1)) ] ||
	bad "perf sees the loop's jump taken $top times, not $((trips - 1))"

"$QPT" record --emulate -S -m ,32K -o "$tmp/snap.data" -- "$DIR/emu_burst" \
	$trips 0 >/dev/null 2>"$tmp/err" || bad "record -S: $(cat "$tmp/err")"
grep -q '^\[ qpt record: captured [0-9]* bytes of trace in 1 buffers, [1-9][0-9]* bytes lost;' \
	"$tmp/err" || bad "-S: the summary: $(cat "$tmp/err")"
perf script -i "$tmp/snap.data" --itrace=i0ns -F ip 2>/dev/null | grep -q . ||
	bad "-S: perf decodes nothing"

[ $fail -eq 0 ] && echo "ok: $trips trips through an 8K area, none lost"
exit $fail
