#!/bin/bash
# The README's main-job command (scripts/demo.sh) ends with a crash report
# on the bundled example (scripts/demo_crash.sh, traces/demo/crash.c):
# its text is checked against the source's marked lines (file:line from
# the debug info), objdump's bytes of the faulting instruction, and the
# exit status of the program alone.
# Args: GT_STEP (for common.sh's checks)
set -u
GT=$1
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/traces/demo/crash.c

bash "$root/scripts/demo_crash.sh" "$QPT" "$tmp" >"$tmp/out.txt" 2>&1
cat "$tmp/out.txt"
line() { grep -n "demo: $1" "$src" | cut -d: -f1; }
has() { grep -Eq -- "$1" "$tmp/out.txt" || bad "no line matching: $1"; }
"$tmp/demo_crash" >/dev/null 2>&1
want=$?
has "^\(exit status $want, as without qpt\)$"
has "^crash: demo_crash pid [0-9]+ tid [0-9]+ killed by SIGSEGV \(11\), SEGV_MAPERR: address not mapped to object$"
has "^fault address: 0x0$"
has "^faulting instruction: 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.c:$(line 'the fault')$"
has "^  #0 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.c:$(line 'the fault')$"
has "^  #1 0x[0-9a-f]+ parse\+0x[0-9a-f]+ .*crash\.c:$(line 'the call')$"
has "^  #2 0x[0-9a-f]+ main\+0x[0-9a-f]+ .*crash\.c:$(line 'main')$"
has "^  #3 0x[0-9a-f]+ __libc_start_call_main\+"
has "\(the thread's whole trace\)$"
has "^last 8 taken branches \(newest first\):$"
has "^last 6 instructions "
# the faulting instruction's bytes, as objdump has them (PIE, ASLR off:
# loaded at 0x555555554000)
ip=$(sed -n 's/^faulting instruction: 0x\([0-9a-f]*\) .*/\1/p' "$tmp/out.txt")
bytes=$(sed -n 's/^  bytes \([0-9a-f]*\)$/\1/p' "$tmp/out.txt")
off=$(printf '%#x' $((0x$ip - 0x555555554000)))
od=$(objdump -d --start-address="$off" --stop-address=$((off + 15)) \
	"$tmp/demo_crash" | awk -F'\t' -v a="${off#0x}:" '$1 ~ a { print $2; exit }' |
	tr -d ' ')
[ -n "$od" ] && [ "${bytes#"$od"}" != "$bytes" ] ||
	bad "faulting bytes $bytes do not start with objdump's '$od' at $off"
# its text: the mnemonic objdump -M intel gives
asm=$(sed -n 's/^  asm   \([a-z0-9]*\).*/\1/p' "$tmp/out.txt")
om=$(objdump -d -M intel --start-address="$off" --stop-address=$((off + 15)) \
	"$tmp/demo_crash" | awk -F'\t' -v a="${off#0x}:" '$1 ~ a {
		split($3, w, " "); print w[1]; exit }')
[ -n "$om" ] && [ "$asm" = "$om" ] ||
	bad "faulting instruction's text '$asm', objdump says '$om'"
exit $fail
