#!/usr/bin/env bash
# Permission and memory-lock errors, as an unprivileged user: one line that
# names kernel.perf_event_paranoid (with what to do), or
# kernel.perf_event_mlock_kb.  Skips unless root with setpriv.
set -uo pipefail
[ "$(id -u)" = 0 ] || exit 77
command -v setpriv >/dev/null || exit 77
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
cd "$tmp" || exit 1
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody test -x "$QPT" || exit 77
fail() { echo "FAIL: $*"; cat err.txt; exit 1; }

if [ "$paranoid" -ge 2 ]; then
	as_nobody "$QPT" record -e task-clock -o "$tmp/k.data" -- true 2>err.txt
	rc=$?
	test $rc -eq 1 || fail "kernel event as nobody: exit $rc"
	test "$(wc -l <err.txt)" -eq 1 || fail "not one line"
	grep -q "perf_event_paranoid is $paranoid" err.txt ||
		fail "paranoid not named"
	grep -q 'sysctl -w kernel.perf_event_paranoid=1' err.txt ||
		fail "no advice"
	if [ "$paranoid" = 2 ]; then
		grep -q 'add :u' err.txt || fail "no :u advice"
	fi
fi
# User-space only is allowed at paranoid <= 2.
if [ "$paranoid" -le 2 ]; then
	as_nobody "$QPT" record -q -e task-clock:u -o "$tmp/u.data" -- true \
		2>err.txt || fail "user-space event as nobody"
	# Far over the locked-memory limits: 64 MiB data rings.
	as_nobody "$QPT" record -m 16384 -e task-clock:u -o "$tmp/m.data" \
		-- true 2>err.txt
	rc=$?
	test $rc -eq 1 || fail "huge -m: exit $rc"
	test "$(wc -l <err.txt)" -eq 1 || fail "not one line"
	grep -q 'perf_event_mlock_kb' err.txt || fail "mlock limit not named"
fi
echo ok
