#!/bin/bash
# fuzz_decode's cost per input against its version before the campaign
# (git show 1e1de56:fuzz/fuzz_decode.c: the x86 layer over every offset of
# the input, and a decoder with its 1 MiB instruction cache, a code image
# and a memfd made for every input) on the same inputs: the seeds and the
# campaign's corpus of fuzz_decode.  Counts the instructions executed in
# LLVMFuzzerTestOneInput with callgrind (what machine load does not
# disturb) and prints both and their ratio.
#
#   bench/fuzz_decode.sh [BUILD]
#
# BUILD: a clang build with -DQPT_FUZZ=ON and no sanitizers (default
# build-bench-fuzz, configured here when missing).  Needs valgrind and
# the git history.  Not a ctest.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-bench-fuzz}
old_rev=1e1de56
command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 1; }
if [ ! -e "$build/CMakeCache.txt" ]; then
	CC=clang cmake -S "$src" -B "$build" -DQPT_FUZZ=ON -DQPT_SANITIZE=OFF \
		-DQPT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target fuzz_decode >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" show "$old_rev:fuzz/fuzz_decode.c" >"$tmp/old.c"
# shellcheck disable=SC2046
clang -O2 -fsanitize=fuzzer -D_GNU_SOURCE -I"$src/include" -I"$src" \
	"$tmp/old.c" -o "$tmp/old" "$build/libqpt_internal.a" \
	$(pkg-config --libs libelf libzstd) -lipt -lZydis -lpthread
cp "$build/fuzz/fuzz_decode" "$tmp/new"
# valgrind reads no DWARF 5 (clang 14's): the symbols are enough
strip --strip-debug "$tmp/old" "$tmp/new"
mkdir "$tmp/in"
cp "$src"/fuzz/seeds/fuzz_decode/* "$tmp/in/"
[ -d "$src/fuzz/corpus/fuzz_decode" ] &&
	cp "$src"/fuzz/corpus/fuzz_decode/* "$tmp/in/"
n=$(find "$tmp/in" -type f | wc -l)
count() { # binary: the instructions of its entry point over the inputs
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
		--toggle-collect=LLVMFuzzerTestOneInput "$1" -runs=0 \
		"$tmp/in" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
old=$(count "$tmp/old")
new=$(count "$tmp/new")
echo "fuzz_decode on $n inputs: instructions an input before $((old / n)), now $((new / n))"
awk -v o="$old" -v n="$new" 'BEGIN { printf "ratio %.1f\n", o / n }'
