# shellcheck shell=bash
# Sourced by the bench scripts (bash): the qpt to measure and the timer.
#
# After sourcing: $src is the source tree and $QPT an optimised qpt: the
# caller's QPT, else build-release/cli/qpt (configured and built here
# without sanitizers or tests when missing).  perf must be on PATH.

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v perf >/dev/null || { echo "perf is needed" >&2; exit 1; }
if [ -z "${QPT:-}" ]; then
	QPT=$src/build-release/cli/qpt
	if [ ! -x "$QPT" ]; then
		cmake -S "$src" -B "$src/build-release" -DCMAKE_BUILD_TYPE=Release \
			-DQPT_BUILD_TESTS=OFF >/dev/null
		cmake --build "$src/build-release" -j2 >/dev/null
	fi
fi

# best_secs CMD...: the best wall time of three runs of CMD, in seconds
# (its output and errors are dropped).
best_secs() {
	local best='' t0 t1
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 ${best:-1e9}" |
			awk '{ d = $2 - $1; printf "%.6f\n", (d < $3 ? d : $3) }')
	done
	echo "$best"
}
