#!/usr/bin/env bash
# qpt record's one-line errors: the missing PMU, a bad command (127), bad
# options (usage, 2), an event this machine lacks.
set -uo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
one_line() { test "$(wc -l <"$1")" -eq 1 || { cat "$1"; fail "$2: not one line"; }; }

# The default event is intel_pt: without the PMU, one line naming it and
# --emulate, at once, and no child left behind.
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
	"$QPT" record -- true 2>err.txt; rc=$?
	test $rc -eq 1 || fail "missing PMU: exit $rc"
	one_line err.txt "missing PMU"
	grep -q "^qpt: .*intel_pt.*--emulate" err.txt || fail "missing PMU message: $(cat err.txt)"
	test ! -e perf.data || fail "left a perf.data"
fi
# A fake sysfs without the PMU gives the same line.
mkdir -p sys
"$QPT" record --sysfs "$PWD/sys" -e intel_bts// -- true 2>err.txt; rc=$?
test $rc -eq 1 || fail "fake sysfs: exit $rc"
one_line err.txt "fake sysfs"
grep -q "intel_bts" err.txt || fail "PMU not named"

# A command that does not exist: one line, exit 127.
"$QPT" record -e task-clock:u -o x.data -- /nonexistent/cmd 2>err.txt; rc=$?
test $rc -eq 127 || fail "bad command: exit $rc"
one_line err.txt "bad command"
grep -q "/nonexistent/cmd" err.txt || fail "bad command not named"

# Usage errors exit 2.
"$QPT" record -m 3 -- true 2>err.txt; rc=$?
test $rc -eq 2 || fail "-m 3: exit $rc"
grep -q "power of two" err.txt || fail "-m 3 message"
"$QPT" record -e task-clock 2>err.txt; rc=$?
test $rc -eq 2 || fail "no target: exit $rc"
"$QPT" record -e 'intel_pt/tsc' -- true 2>err.txt; rc=$?
test $rc -eq 2 || fail "bad event: exit $rc"
grep -q "missing closing" err.txt || fail "bad event message: $(cat err.txt)"

# Event terms the PMU does not have, values too large for their bits, and
# a snapshot smaller than two PSB periods are usage errors (a fake intel_pt
# PMU with the Linux driver's format; --emulate describes the same one).
mkdir -p fsys/intel_pt/format
echo 8 >fsys/intel_pt/type
for f in pt:config:0 tsc:config:10 branch:config:13 \
	psb_period:config:24-27; do
	echo "${f#*:}" >"fsys/intel_pt/format/${f%%:*}"
done
for em in "" --emulate; do
	for ev in intel_pt/tsc=2/u intel_pt/nosuch/u intel_pt/psb_period=16/u; do
		"$QPT" record $em --sysfs "$PWD/fsys" -e "$ev" -- true \
			2>err.txt; rc=$?
		test $rc -eq 2 || fail "$em $ev: exit $rc"
		grep -q "^qpt record: .*\(too large\|unknown term\)" err.txt ||
			fail "$em $ev: $(cat err.txt)"
	done
	"$QPT" record $em --sysfs "$PWD/fsys" -S8K \
		-e intel_pt/psb_period=2/u -- true 2>err.txt; rc=$?
	test $rc -eq 2 || fail "$em -S8K psb_period=2: exit $rc"
	grep -q "^qpt record: -S of 8192 bytes cannot hold" err.txt ||
		fail "$em -S8K: $(cat err.txt)"
done

# An event this machine lacks (no hardware PMU in a VM) or has: either a
# clean recording or one line.
"$QPT" record -q -e cycles:u -o c.data -- true 2>err.txt; rc=$?
if [ $rc -ne 0 ]; then
	test $rc -eq 1 || fail "cycles: exit $rc"
	one_line err.txt "cycles"
	grep -q "cycles" err.txt || fail "cycles not named"
fi

# Snapshot options: --control needs -S (usage); -S needs an AUX event.
"$QPT" record --control /tmp/x -e task-clock -- true 2>err.txt; rc=$?
test $rc -eq 2 || fail "--control without -S: exit $rc"
"$QPT" record -S -e task-clock -o s.data -- true 2>err.txt; rc=$?
test $rc -eq 1 || fail "-S task-clock: exit $rc"
one_line err.txt "-S task-clock"
grep -q "snapshot mode needs an AUX-area event" err.txt || fail "-S message"
"$QPT" record -e intel_bts// -e intel_pt// --sysfs "$QPT_SRC/nonexistent" \
	-- true 2>err.txt; rc=$?
test $rc -eq 1 || fail "two AUX events: exit $rc"
one_line err.txt "two AUX events"

# The command's exit status comes back, as with perf (where this kernel
# lets us open a software event at all).
if "$QPT" record -q -e task-clock:u -o probe.data -- true 2>/dev/null; then
	"$QPT" record -q -e task-clock:u -o st.data -- sh -c 'exit 3' \
		2>err.txt; rc=$?
	test $rc -eq 3 || fail "exit status: $rc"
	if command -v perf >/dev/null; then
		perf report -D -i st.data >/dev/null 2>&1 ||
			fail "st.data unreadable"
	fi
fi

# A process that does not exist.
"$QPT" record -e task-clock -p 999999999 2>err.txt; rc=$?
test $rc -ne 0 || fail "-p bad pid succeeded"
one_line err.txt "bad pid"
echo ok
