#!/usr/bin/env bash
# The data ring for real with a one-page ring and a fast sampling event:
# records wrap the end of the ring all the time and the kernel may drop some.
# Oracle: perf's reading of the file -- every record qpt counted is there
# (TOTAL minus perf's FINISHED_ROUND markers), and the LOST records perf
# sees carry exactly the counts qpt reported; samples stay in order.
set -euo pipefail
spin=$1
command -v perf >/dev/null || exit 77
perf stat -e task-clock:u true >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# On failure, show what perf said.
trap 'echo "failed at line $LINENO"; cat perr.txt 2>/dev/null' ERR
# 300 ms of the spinner's own CPU time: about 30,000 samples, however
# busy the machine is (its share of a loaded machine's clock is not)
"$QPT" record -m 1 -e task-clock:u -c 10000 -o small.data -- "$spin" c300 \
	2>err.txt
cat err.txt
records=$(sed -n 's/.* \([0-9]*\) records[;,] .*/\1/p' err.txt)
lost=$(sed -n 's/.*warning: \([0-9]*\) sideband\/sample records lost in \([0-9]*\) overruns.*/\1 \2/p' err.txt)
perf report -D -i small.data >dump.txt 2>perr.txt
total=$(sed -n 's/ *TOTAL events: *\([0-9]*\).*/\1/p' dump.txt)
rounds=$(sed -n 's/ *FINISHED_ROUND events: *\([0-9]*\).*/\1/p' dump.txt)
echo "qpt: $records records, lost: ${lost:-none}; perf: $total events, $rounds rounds"
test "$records" -gt 1000
test $((total - rounds)) -eq "$records"
perf_lost=$({ grep 'PERF_RECORD_LOST:' dump.txt || true; } | sed 's/.*lost://' |
	awk '{ n++; s += $1 } END { print s + 0, n + 0 }')
test "${lost:-0 0}" = "$perf_lost"
# perf's only possible complaint is those lost chunks.
if grep -v -E '^$|^Warning:$|lost [0-9]+ chunks|Check IO/CPU overload' \
	perr.txt | grep .; then
	exit 1
fi
