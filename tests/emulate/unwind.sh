#!/bin/bash
# qpt crash's stack against gdb where control leaves frames without
# returning (progs/unwind.c, progs/unwind_cxx.cc say each mode's path):
# each program at -O0, -O1 and -O2 dies of a SIGSEGV, once under gdb
# (gdb -batch -ex run -ex bt; at -O2 also gcore, and bt on the core
# dump) and
# once under qpt record --emulate; unwind_vs_gdb.py compares the
# program's own functions on the stacks.  The smashed stack is checked
# against its known call path (gdb's unwind stops inside it).
# Args: GT_STEP PROG_DIR c|cxx
set -u
GT=$1 DIR=$2 LANG_=$3
# shellcheck source=tests/emulate/common.sh
. "$(dirname "$0")/common.sh"
here=$(dirname "$0")
command -v gdb >/dev/null || { echo "no gdb: skip"; exit 77; }

# check PROG MODE [KNOWN [EXPECT]] (the core dump's backtrace too with
# $core set)
check() {
	local prog=$1 mode=$2 known=${3:--} expect=${4:-}
	local name core_txt=-
	name="$(basename "$prog") $mode"
	gdb -nx -batch -ex 'set print demangle off' \
		-ex 'handle SIGUSR1 SIGILL nostop noprint pass' \
		-ex run -ex bt ${core:+-ex "gcore $tmp/core"} \
		--args "$prog" "$mode" >"$tmp/gdb.txt" 2>&1 </dev/null
	grep -q "SIGSEGV" "$tmp/gdb.txt" ||
		{ bad "$name: no SIGSEGV under gdb"; return; }
	if [ -n "${core:-}" ]; then
		gdb -nx -batch -ex 'set print demangle off' -ex bt "$prog" \
			"$tmp/core" >"$tmp/core.txt" 2>&1 </dev/null
		rm -f "$tmp/core"
		core_txt=$tmp/core.txt
	fi
	env -i "$QPT" record -q --emulate -o "$tmp/u.data" -- "$prog" "$mode" \
		>/dev/null 2>"$tmp/rec.err"
	local rc=$?
	[ $rc = 139 ] || { bad "$name: qpt record exits $rc"; return; }
	"$QPT" crash -i "$tmp/u.data" --json --no-demangle >"$tmp/u.json" \
		2>"$tmp/crash.err" ||
		{ bad "$name: qpt crash: $(cat "$tmp/crash.err")"; return; }
	nm --defined-only "$prog" | awk '$2 ~ /^[tT]$/ && \
		($3 !~ /^_/ || $3 ~ /^_Z/) { print $3 }' >"$tmp/names.txt"
	python3 "$here/unwind_vs_gdb.py" "$name" "$tmp/names.txt" \
		"$tmp/gdb.txt" "$core_txt" "$tmp/u.json" "$known" \
		"$expect" || bad "$name"
}

for o in 0 1 2; do
	core= # the core dumps at -O2 only: gdb takes its time
	[ $o = 2 ] && core=1
	if [ "$LANG_" = c ]; then
		p=$DIR/emu_unwind_O$o
		for m in after_handler skip coroutine_main recurse \
			recurse_crash thread; do
			check "$p" "$m"
		done
		check "$p" longjmp - longjmp:f2:main
		check "$p" siglongjmp - longjmp:on_usr1_jump:main
		check "$p" in_handler - signal
		check "$p" coroutine - switched
		tail=
		[ $o = 2 ] && tail=tail:c
		check "$p" tailcall - "$tail"
		check "$p" smash crash_here,smash,s1,main
	else
		p=$DIR/emu_unwind_cxx_O$o
		rte=throw:_Z5checki:_ZTISt13runtime_error
		check "$p" caught - $rte
		check "$p" cleanup - $rte
		check "$p" in_catch - $rte
		check "$p" rethrow - rethrow:_Z3midR6Parseri:
		check "$p" lib - throw:_Z9lib_parsei:_ZTISt16invalid_argument
	fi
done
exit $fail
