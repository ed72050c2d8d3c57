# shellcheck shell=bash
# Shared by the emulate shell tests (set GT, the ground-truth stepper,
# before sourcing): skip (77) where perf or ptrace is missing, a scratch
# directory $tmp removed at exit, and failure bookkeeping (bad, $fail).
set -u
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
[ -x "$QPT" ] || { echo "no qpt"; exit 1; }
"$GT" /dev/null -- /bin/true >/dev/null 2>&1
[ $? -eq 77 ] && { echo "ptrace not allowed here: skip"; exit 77; }
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "${BASH_SOURCE[0]}")/../shell/by_thread.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
