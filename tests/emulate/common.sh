# shellcheck shell=bash
# Shared by the emulate shell tests (set GT, the ground-truth stepper,
# before sourcing): skip (77) where perf or ptrace is missing, a scratch
# directory $tmp removed at exit, and failure bookkeeping (bad, $fail).
set -u
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
[ -x "$QPT" ] || { echo "no qpt"; exit 1; }
"$GT" -p /dev/null -- /bin/true >/dev/null 2>&1
[ $? -eq 77 ] && { echo "ptrace not allowed here: skip"; exit 77; }
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "${BASH_SOURCE[0]}")/../shell/by_thread.sh"
# shellcheck source=tests/shell/perf_in.sh
. "$(dirname "${BASH_SOURCE[0]}")/../shell/perf_in.sh"
# shellcheck source=tests/shell/qpt_insns.sh
. "$(dirname "${BASH_SOURCE[0]}")/../shell/qpt_insns.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# qpt ($qpid, started in the background with the command $cmd reporting
# through fd 3) ends within 15 s, exits WANT_RC and leaves nothing behind
# shellcheck disable=SC2154 # qpid and cmd are the caller's
await_qpt() { # WHAT WANT_RC
	local rc
	for _ in $(seq 300); do # 15 s at most
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$qpid" 2>/dev/null; then
		bad "$1: qpt still runs after 15 s"
		kill -KILL "$qpid" "$cmd" 2>/dev/null
	fi
	wait "$qpid"
	rc=$?
	exec 3<&-
	[ -e "/proc/$cmd" ] && bad "$1: the command ($cmd) was left behind"
	[ $rc -eq "$2" ] || bad "$1: qpt exits $rc, want $2: $(cat rec.err)"
}
