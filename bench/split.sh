#!/bin/bash
# qpt split on one machine (issue 21): the shards of a large emulated
# recording decoded by GNU parallel, one job per core, against plain
# `qpt decode` of the whole file, in the same run (alternating pairs,
# medians: bench/lib.sh's pair_ratio, the ratio being the whole decode's
# time over the shards'); the split's own time; and, once, that the
# shards' outputs in order are the whole file's.
#   bench/split.sh [BUILD_DIR [ARG]]
# BUILD_DIR holds bench_branchy (default: build); ARG its size (default
# 100: about 170M instructions).  Recorded with --emulate=qemu where
# qemu-x86_64 is, else --emulate=fast.  Needs GNU parallel.
set -eu
B=$(cd "${1:-build}" && pwd)
ARG=${2:-100}
QPT=${QPT:-$B/cli/qpt}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
command -v parallel >/dev/null || { echo "GNU parallel is needed" >&2; exit 1; }
J=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eng=fast
command -v qemu-x86_64 >/dev/null && eng=qemu
"$QPT" record -q --emulate=$eng -o "$tmp/big.data" -- \
	"$B/bench/bench_branchy" "$ARG" >/dev/null
echo "input: bench_branchy $ARG under --emulate=$eng, $(stat -c %s "$tmp/big.data") bytes"
for n in $J $((4 * J)); do
	clock_us
	t0=$now
	"$QPT" split -n $n -i "$tmp/big.data" -o "$tmp/s$n" >"$tmp/s$n.list"
	clock_us
	echo "split -n $n: $(wc -l <"$tmp/s$n.list") shards in $(((now - t0) / 1000)) ms"
done
export QPT
# each side writes its text to files (a shard's beside it, as on the
# machine that decodes it): -k's gathering of all the text through one
# pipe would measure parallel, not the decode
for mode in "--insn --no-asm --no-sort" "--branches --no-sort"; do
	whole=(bash -c '"$QPT" decode $1 -i "$2" >"$2.txt"' - "$mode" \
		"$tmp/big.data")
	"${whole[@]}"
	for n in $J $((4 * J)); do
		# shellcheck disable=SC2016
		par=(bash -c 'parallel -j "$1" "\"\$QPT\" decode $2 -i {} >{}.txt" \
			<"$3"' - "$J" "$mode" "$tmp/s$n.list")
		"${par[@]}"
		if ! sed 's/$/.txt/' "$tmp/s$n.list" | xargs cat |
			cmp -s "$tmp/big.data.txt" -; then
			echo "$mode: the $n shards' decodes differ from the whole file's"
			continue
		fi
		pair_ratio "decode $mode: $n shards, parallel -j$J" 0 \
			"${par[@]}" -- "${whole[@]}"
	done
	echo "($mode: $(wc -l <"$tmp/big.data.txt") lines, $(stat -c %s "$tmp/big.data.txt") bytes)"
done
echo "(ratios: the whole decode's time over the shards')"
