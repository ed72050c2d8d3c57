# shellcheck shell=bash
# by_thread: "TID ADDRESS" lines in execution order in, each thread's
# addresses out (in their order), threads separated by "--", in the order
# the kernel allocated their tids.  Tids wrap at pid_max (32768 here), so
# sorting them as numbers can put a child before its parent in one run and
# not in the next: the order starts after the largest gap in the circle of
# tids instead (the wrap, when a run's tids straddle it).
by_thread() {
	local max
	max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4194304)
	awk '{ print $1, NR, $2 }' | sort -k1,1n -k2,2n |
		awk -v max="$max" '
		{ tid[NR] = $1; ip[NR] = $3
		  if (!($1 in first)) { first[$1] = NR; u[++n] = $1 }
		  last[$1] = NR }
		END {
			if (!n) exit
			best = 1; gap = u[1] + max - u[n]
			for (i = 2; i <= n; i++)
				if (u[i] - u[i - 1] > gap) {
					gap = u[i] - u[i - 1]; best = i
				}
			for (k = 0; k < n; k++) {
				t = u[(best - 1 + k) % n + 1]
				if (k) print "--"
				for (i = first[t]; i <= last[t]; i++) print ip[i]
			}
		}'
}
