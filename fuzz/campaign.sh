#!/usr/bin/env bash
# The fuzzing campaign: every target of fuzz/targets.txt (or those named)
# runs for TIME seconds, or until it has run -n EXECS inputs in all its
# runs (a campaign may run in pieces), as one libFuzzer process (ASan +
# UBSan), -j of them at once (one per core); its working corpus grows in
# out/fuzz/NAME across runs.  Then each target's corpus is merged and
# minimised into fuzz/corpus/NAME (what its seeds do not already cover),
# and a table gives per target: execs and seconds of
# this run and of all runs so far, exec/s, coverage (libFuzzer's edges and
# features), corpus size, and what failed (crash, leak, timeout (an input
# that runs 60 s: a shared machine stalls a process for seconds), oom: the
# inputs are kept in out/fuzz/NAME/found; each becomes a regression input
# in fuzz/regress/NAME with its fix).
#
#   fuzz/campaign.sh [-j JOBS] [-n EXECS] [-b BUILD] [-M] TIME [TARGET...]
#
# -b: the clang build to use (default build-fuzz; configured and built
# here); -M: no merge into fuzz/corpus.  TIME 0 with -n: run until EXECS.
# Run it with nice -n 19 on a shared machine, from a copy if you may edit
# the tree meanwhile (bash reads a script as it runs).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc) execs=0 build=$src/build-fuzz merge=1
while getopts "j:n:b:M" o; do
	case $o in
	j) jobs=$OPTARG ;;
	n) execs=$OPTARG ;;
	b) build=$(realpath -m "$OPTARG") ;;
	M) merge=0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 2; }
time=$1
shift
shared=${QPT_SHARED:-$src/../shared}
out=$src/out/fuzz
mkdir -p "$out"

# The targets: NAME, its libFuzzer options and its seeds (targets.txt).
declare -A opts seeds
names=()
while read -r name rest; do
	case $name in '' | '#'*) continue ;; esac
	names+=("$name")
	for w in $rest; do
		case $w in
		-dict=*) opts[$name]+=" -dict=$src/${w#-dict=}" ;;
		-*) opts[$name]+=" $w" ;;
		shared:*) [ -e "$shared/${w#shared:}" ] &&
			seeds[$name]+=" $shared/${w#shared:}" ;;
		*) seeds[$name]+=" $src/$w" ;;
		esac
	done
	for d in corpus regress; do
		[ -d "$src/fuzz/$d/$name" ] && seeds[$name]+=" $src/fuzz/$d/$name"
	done
done <"$src/fuzz/targets.txt"
[ $# -gt 0 ] && names=("$@")

if [ ! -e "$build/CMakeCache.txt" ]; then
	CC=clang cmake -S "$src" -B "$build" -DQPT_FUZZ=ON -DQPT_SANITIZE=ON \
		-DQPT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DQPT_SHARED_DIR="$shared" >/dev/null
fi
cmake --build "$build" -j"$jobs" --target fuzz_all >/dev/null

# Seeds that are files go into a directory of their own (libFuzzer reads
# directories and, given files, only runs them).
seed_dirs() {
	local t=$1 d s
	d=$out/$t/seeds
	rm -rf "$d"
	mkdir -p "$d"
	for s in ${seeds[$t]:-}; do
		if [ -d "$s" ]; then
			find "$s" -maxdepth 1 -type f ! -name '*.md' \
				-exec cp {} "$d/" \;
		else
			cp "$s" "$d/"
		fi
	done
	echo "$d"
}

# The inputs target $1 ran in all its runs so far.
total() {
	if [ -e "$out/$1/history" ]; then
		awk '{ e += $2 } END { print e + 0 }' "$out/$1/history"
	else
		echo 0
	fi
}

run() {
	local t=$1 dir=$out/$1 args left
	mkdir -p "$dir/corpus" "$dir/found"
	args="-max_total_time=$time -timeout=60 -rss_limit_mb=2048"
	args+=" -print_final_stats=1 -artifact_prefix=$dir/found/"
	if [ "$execs" != 0 ]; then
		left=$((execs - $(total "$t")))
		[ "$left" -gt 0 ] || return 0
		args+=" -runs=$left"
	fi
	ASAN_OPTIONS=detect_leaks=1:malloc_context_size=8 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$build/fuzz/$t" $args ${opts[$t]:-} "$dir/corpus" \
		"$(seed_dirs "$t")" >"$dir/log" 2>&1 || true
	# this run's figures, appended to the target's history
	awk -v t="$t" '
		/^stat::number_of_executed_units:/ { e = $2 }
		/^stat::average_exec_per_sec:/ { r = $2 }
		/cov: [0-9]+/ { for (i = 1; i < NF; i++) {
			if ($i == "cov:") c = $(i + 1)
			if ($i == "ft:") f = $(i + 1) } }
		/^Done [0-9]+ runs in [0-9]+ second/ { s = $5 }
		END { if (!s && r) s = int(e / r)
		      printf "%s %d %d %d %d\n", t, e, s, c, f }' \
		"$dir/log" >>"$dir/history"
}

running=0
for t in "${names[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run "$t" &
	running=$((running + 1))
done
wait

# Merge and minimise: the edges the corpus and the seeds cover, in as few
# inputs as libFuzzer finds, less the seeds themselves (-use_counters=0:
# an edge once, not each count of its hits, which keeps 1,691 inputs of
# fuzz_decode's, 4.5 MB, where 433 cover its edges; the working corpus in
# out/fuzz keeps them all).
if [ "$merge" = 1 ]; then
	for t in "${names[@]}"; do
		dir=$out/$t
		rm -rf "$dir/merged" && mkdir -p "$dir/merged" "$src/fuzz/corpus/$t"
		s=$(seed_dirs "$t")
		"$build/fuzz/$t" -merge=1 -use_counters=0 ${opts[$t]:-} \
			"$dir/merged" "$s" \
			"$src/fuzz/corpus/$t" "$dir/corpus" >"$dir/merge.log" \
			2>&1 || { echo "$t: merge failed ($dir/merge.log)"; continue; }
		for f in "$s"/*; do
			rm -f "$dir/merged/$(sha1sum <"$f" | cut -d' ' -f1)"
		done
		rm -rf "$src/fuzz/corpus/$t"
		if [ -n "$(ls -A "$dir/merged")" ]; then
			mkdir -p "$src/fuzz/corpus/$t"
			cp "$dir/merged"/* "$src/fuzz/corpus/$t/"
		fi
	done
fi

printf '%-14s %12s %7s %12s %8s %8s %6s %6s %8s %s\n' target execs s \
	total-execs total-s exec/s cov ft corpus found
for t in "${names[@]}"; do
	dir=$out/$t
	[ -e "$dir/history" ] || continue
	last=$(tail -n 1 "$dir/history")
	read -r _ e s c f <<<"$last"
	read -r te ts <<<"$(awk '{ e += $2; s += $3 } END { print e, s }' \
		"$dir/history")"
	n=0
	[ -d "$src/fuzz/corpus/$t" ] && n=$(find "$src/fuzz/corpus/$t" -type f | wc -l)
	found=$(find "$dir/found" -type f -printf '%f\n' | sed 's/-.*//' |
		sort | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = "," }')
	printf '%-14s %12d %7d %12d %8d %8d %6d %6d %8d %s\n' "$t" "$e" "$s" \
		"$te" "$ts" $((ts ? te / ts : 0)) "$c" "$f" "$n" "${found:-0}"
done
echo "fuzz/corpus: $(du -sh --apparent-size "$src/fuzz/corpus" 2>/dev/null | cut -f1)"
