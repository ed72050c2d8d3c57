#!/bin/bash
# csmith programs against the emulated source: for each SEED, csmith's
# program (options for small programs: CSMITH_OPTS), built at -O0, -O1 and
# -O2, dynamic and static, each checked by check.sh (its output under both
# engines, the two engines' flows by perf and qpt decode); one of the six
# against the single-step ground truth too (RANDOM_GT=all: all six, none:
# none).
# Args: GT_STEP WORKDIR SEED...
# Env: RANDOM_BUILDS (default "O0d O0s O1d O1s O2d O2s"): the builds made.
# Prints check.sh's lines (the program names are cs-SEED-OLEVEL{d,s}), and
# "build-fail cs-SEED-...: ..." for a program csmith or gcc cannot make.
# Exit 1 when a program differs.
set -u
GT=$1 work=$2
shift 2
command -v csmith >/dev/null || { echo "no csmith: skip"; exit 77; }
inc=/usr/include/csmith
opts=${CSMITH_OPTS:---max-funcs 5 --max-block-depth 3 --max-array-len-per-dim 5}
here=$(dirname "$0")
mkdir -p "$work"
rc=0
for s in "$@"; do
	d=$work/cs-$s
	mkdir -p "$d"
	# csmith writes platform.info where it runs: in $d
	# shellcheck disable=SC2086 # the options are words
	if ! (cd "$d" && csmith --seed "$s" $opts -o p.c >csmith.log 2>&1); then
		echo "build-fail cs-$s: csmith: $(tail -1 "$d/csmith.log")"
		continue
	fi
	i=0 bad=0
	for o in 0 1 2; do
		for l in d s; do
			case " ${RANDOM_BUILDS:-O0d O0s O1d O1s O2d O2s} " in
			*" O$o$l "*) ;;
			*) continue ;;
			esac
			b=$d/cs-$s-O$o$l g="" link=""
			[ $l = s ] && link=-static
			case ${RANDOM_GT:-one} in
			all) g=-g ;;
			one) [ $i -eq $((s % 6)) ] && g=-g ;;
			esac
			i=$((i + 1))
			if ! gcc -O$o $link -w -I"$inc" "$d/p.c" -o "$b" \
				2>"$d/gcc.log"; then
				echo "build-fail cs-$s-O$o$l: $(head -1 "$d/gcc.log")"
				continue
			fi
			bash "$here/check.sh" $g "$GT" "$b" || bad=1
		done
	done
	# the differing programs stay in WORKDIR
	if [ $bad -eq 0 ]; then rm -rf "$d"; else rc=1; fi
done
exit $rc
