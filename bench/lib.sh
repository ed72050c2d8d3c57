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

# The clock in microseconds, in $now: bash's own, so that a time taken
# holds no process of the timer's (a date(1) after the command would add
# its own exec, milliseconds here, to every side).
clock_us() { now=${EPOCHREALTIME/./}; }

# best_secs CMD...: the best wall time of three runs of CMD, in seconds
# (its output and errors are dropped).
best_secs() {
	local best='' t0
	for _ in 1 2 3; do
		clock_us
		t0=$now
		"$@" >/dev/null 2>&1
		clock_us
		if [ -z "$best" ] || [ $((now - t0)) -lt "$best" ]; then
			best=$((now - t0))
		fi
	done
	awk -v t="$best" 'BEGIN { printf "%.6f\n", t / 1e6 }'
}

# secs CMD...: the wall time of one run, in seconds (output dropped)
secs() {
	local t0
	clock_us
	t0=$now
	"$@" >/dev/null 2>&1
	clock_us
	awk -v t=$((now - t0)) 'BEGIN { printf "%.6f\n", t / 1e6 }'
}

# pair_ratio LABEL GOAL QPT_CMD... -- PEER_CMD...: the median over the
# pairs of peer time / qpt time, with the medians of both times
pair_ratio() {
	local label=$1 goal=$2 i qa=() pa=() r=()
	shift 2
	while [ "$1" != -- ]; do qa+=("$1"); shift; done
	shift
	pa=("$@")
	# a side that fails (a refused option) would time its error
	"${qa[@]}" >/dev/null 2>&1 && "${pa[@]}" >/dev/null 2>&1 || {
		printf '%-44s not measured: a side exits %d\n' "$label" $?
		return 0
	}
	for ((i = 0; i < ${PAIRS:-9}; i++)); do
		if ((i % 2)); then
			q=$(secs "${qa[@]}"); p=$(secs "${pa[@]}")
		else
			p=$(secs "${pa[@]}"); q=$(secs "${qa[@]}")
		fi
		r+=("$q $p")
	done
	printf '%s\n' "${r[@]}" | awk -v l="$label" -v g="$goal" '
		{ q[NR] = $1; p[NR] = $2; x[NR] = ($1 > 0) ? $2 / $1 : 0 }
		function med(a, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return a[int((n + 1) / 2)]
		}
		END {
			n = NR; r = med(x, n); mq = med(q, n); mp = med(p, n)
			printf "%-44s %7.1fx  (qpt %.4f s, peer %.4f s; median of %d pairs%s)\n",
				l, r, mq, mp, n, (g > 0 && r < g) ? "; goal " g "x" : ""
		}'
}
