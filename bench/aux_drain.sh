#!/usr/bin/env bash
# AUX drain throughput vs memcpy of the same bytes, same run.  Output on a
# tmpfs (page cache: the write copies once, like memcpy) unless $1 names a
# file.  Usage: bench/aux_drain.sh [OUTPUT] [MIB] [CHUNK_KIB]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${QPT_BUILD:-$here/build}
bin=$build/bench/aux_drain
[ -x "$bin" ] || { echo "build first: cmake --build $build"; exit 1; }
out=${1:-/dev/shm/qpt-aux-drain.data}
"$bin" "$out" "${2:-512}" "${3:-1024}"
rm -f "$out"
