#!/usr/bin/env bash
# AUX drain throughput vs memcpy of the same bytes, in the same run.
# Two outputs: /dev/null (the consumer and writer alone: AUXTRACE records
# written straight from the AUX area, no copy in user space) and a tmpfs
# file (the kernel copies into new page-cache pages, the real cost of
# keeping the trace).  Usage: bench/aux_drain.sh [MIB] [CHUNK_KIB]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${QPT_BUILD:-$here/build}
bin=$build/bench/aux_drain
[ -x "$bin" ] || { echo "build first: cmake --build $build"; exit 1; }
shm=/dev/shm
[ -d $shm ] || shm=${TMPDIR:-/tmp}
out=$shm/qpt-aux-drain.$$.data
trap 'rm -f "$out"' EXIT
"$bin" /dev/null "${1:-512}" "${2:-1024}"
"$bin" "$out" "${1:-512}" "${2:-1024}"
