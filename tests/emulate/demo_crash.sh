#!/bin/bash
# The README's main-job command (scripts/demo.sh) ends with a crash report
# on the bundled example (scripts/demo_crash.sh, traces/demo/crash.cc):
# its text is checked against the source's marked lines (file:line from
# the debug info), objdump's bytes of the faulting instruction, and the
# exit status of the program alone; the stack after the caught exception
# is gdb's (the frames the unwinder left are gone), the throw is named at
# its line with its type (the typeinfo objdump's relocations name,
# demangled as c++filt does), names are demangled as perf's, and
# the stack unwound from the bytes kept agrees.
# Args: GT_STEP (for common.sh's checks)
set -u
GT=$1
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/traces/demo/crash.cc

bash "$root/scripts/demo_crash.sh" "$QPT" "$tmp" >"$tmp/out.txt" 2>&1
cat "$tmp/out.txt"
line() { grep -n "demo: $1" "$src" | cut -d: -f1; }
has() { grep -Eq -- "$1" "$tmp/out.txt" || bad "no line matching: $1"; }
"$tmp/demo_crash" >/dev/null 2>&1
want=$?
has "^\(exit status $want, as without qpt\)$"
has "^crash: demo_crash pid [0-9]+ tid [0-9]+ killed by SIGSEGV \(11\), SEGV_MAPERR: address not mapped to object$"
has "^fault address: 0x0$"
has "^faulting instruction: 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.cc:$(line 'the fault')$"
has "^  #0 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.cc:$(line 'the fault')$"
has "^  #1 0x[0-9a-f]+ parse\+0x[0-9a-f]+ .*crash\.cc:$(line 'the call')$"
has "^  #2 0x[0-9a-f]+ main\+0x[0-9a-f]+ .*crash\.cc:$(line 'main')$"
has "^  #3 0x[0-9a-f]+ __libc_start_call_main\+"
has "^stack unwound from the stack bytes kept \(libdw, CFI\): 6 frames, the same functions$"
has "^last exception thrown: 0x[0-9a-f]+ lookup\+0x[0-9a-f]+ .*crash\.cc:$(line 'the throw'), type std::out_of_range$"
has "^  caught at 0x[0-9a-f]+ main\+0x[0-9a-f]+ .*crash\.cc:[0-9]+ \(4 frames unwound\)$"
has "\(the thread's whole trace\)$"
# gdb's backtrace of the same crash: the program's functions on it are
# the report's
if command -v gdb >/dev/null; then
	gdb -nx -batch -ex run -ex bt "$tmp/demo_crash" </dev/null 2>&1 |
		sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([a-z_]*\) (.*/\2/p' |
		grep -E '^(lookup|parse|main)$' | xargs >"$tmp/gdb.txt"
	sed -n '/^call stack/,/^stack unwound/p' "$tmp/out.txt" |
		sed -n 's/^  #[0-9]* 0x[0-9a-f]* \(lookup\|parse\|main\)+.*/\1/p' |
		xargs >"$tmp/qpt.txt"
	[ "$(cat "$tmp/gdb.txt")" = "lookup parse main" ] &&
		cmp -s "$tmp/gdb.txt" "$tmp/qpt.txt" ||
		bad "stack: qpt $(cat "$tmp/qpt.txt"), gdb $(cat "$tmp/gdb.txt")"
fi
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
