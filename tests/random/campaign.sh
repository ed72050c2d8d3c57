#!/bin/bash
# The random-program campaign (issue 20, section 3; not CI-sized): CSMITH_N
# csmith programs (csmith.sh: six builds each) and ASM_N random assembly
# programs (asm.sh), seeds SEED, SEED+1, ..., checked two at a time (GNU
# parallel, at nice 19: the machine is shared), then the figures.
#   bash tests/random/campaign.sh CSMITH_N ASM_N [SEED]
#   bash tests/random/campaign.sh --figures DIR    (figures of a run so far)
# Env: BUILD (default build): the build with qpt and emu_gt_step; OUT
# (default /tmp/qpt-random-SEED): the log (campaign.log), parallel's job
# log (jobs.log) and the differing programs (work/); JOBS (default 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)

# the figures of the log and job log in $1
figures() {
	local d=$1
	awk '
	function kind(n) { return n ~ /^cs-/ ? "csmith" : "asm" }
	$1 ~ /^(ok|skip-native|skip-long|DIFF|build-fail)$/ {
		n = $2; sub(/:$/, "", n); k = kind(n)
		v[k, $1]++
		if ($1 == "ok" && /ground truth/) gt[k]++
		if ($1 == "ok") insns[k] += $3
		for (i = 4; $1 == "ok" && i <= NF; i++)
			if ($i == "loops") {
				t = $(i + 3); sub(/^\(/, "", t)
				loops[k] += $(i - 1); trips[k] += t
				if ($(i - 1) > 0) looped[k]++
			}
		if (k == "asm" && n ~ /a$/ && $1 == "ok") async++
		s = n; sub(/-O[0-2][ds]$/, "", s); prog[k, s] = 1
		if ($1 == "DIFF") print "  " $0
	}
	END {
		for (p in prog) { split(p, a, SUBSEP); progs[a[1]]++ }
		for (i = 1; i <= 2; i++) {
			k = i == 1 ? "csmith" : "asm"
			printf "%s: %d programs", k, progs[k]
			if (k == "csmith")
				printf " (each -O0/-O1/-O2, dynamic and static)"
			printf "; %d builds checked: %d compared (%d also against the ground truth, %d instructions in all), %d skipped (too long natively), %d skipped (too long to single-step), %d build failures, %d differences\n", v[k, "ok"] + v[k, "skip-native"] + v[k, "skip-long"] + v[k, "DIFF"], v[k, "ok"], gt[k], insns[k], v[k, "skip-native"], v[k, "skip-long"], v[k, "build-fail"], v[k, "DIFF"]
			printf "%s: the fast engine ran %d loops natively (%d trips) in %d of the compared builds\n", k, loops[k], trips[k], looped[k]
		}
		printf "asm: %d of the compared with an interval timer\n", async
	}' "$d/campaign.log"
	awk -F'\t' 'NR > 1 { t += $4; n++ } END {
		printf "time: %d jobs, %.0f s of job time\n", n, t }' \
		"$d/jobs.log"
}

if [ "${1:-}" = --figures ]; then
	figures "$2"
	exit 0
fi
[ $# -ge 2 ] || {
	echo "usage: campaign.sh CSMITH_N ASM_N [SEED] | --figures DIR" >&2
	exit 2
}
cn=$1 an=$2 seed=${3:-1}
build=${BUILD:-build}
out=${OUT:-/tmp/qpt-random-$seed}
QPT=$(cd "$build" && pwd)/cli/qpt
GT=$(cd "$build" && pwd)/tests/emulate/emu_gt_step
export QPT
for t in "$QPT" "$GT" "$(command -v parallel)" "$(command -v csmith)"; do
	[ -x "$t" ] || { echo "campaign: missing $t" >&2; exit 1; }
done
renice -n 19 -p $$ >/dev/null
mkdir -p "$out/work"
# the jobs, the csmith programs spread evenly among the assembly ones, so
# that a run cut short has both in proportion
{
	i=0 j=0
	while [ $i -lt "$cn" ] || [ $j -lt "$an" ]; do
		if [ $i -lt "$cn" ] && { [ $j -ge "$an" ] ||
			[ $((i * an)) -le $((j * cn)) ]; }; then
			echo "csmith.sh $((seed + i))"
			i=$((i + 1))
		else
			echo "asm.sh $((seed + j))"
			j=$((j + 1))
		fi
	done
} >"$out/jobs"
start=$(date +%s)
parallel -j "${JOBS:-2}" --joblog "$out/jobs.log" --colsep ' ' \
	bash "$here/{1}" "$GT" "$out/work" "{2}" <"$out/jobs" \
	>"$out/campaign.log" 2>"$out/campaign.err"
echo "campaign: $(($(date +%s) - start)) s wall, log in $out"
figures "$out"
