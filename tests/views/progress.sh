#!/usr/bin/env bash
# Progress on stderr when it is a terminal (progress.py): the real traces
# (one and three AUXTRACE records), the total against perf report -D.
. "$QPT_SRC/tests/shell/lib.sh"
need perf
d=$T/arcus-hello
[ -d "$d" ] || exit 77
for f in perf.data perf-split3.data; do
	total=0
	while read -r n; do
		total=$((total + n))
	done < <(perf report -D -i "$d/$f" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\) .*/\1/p')
	/usr/bin/python3 "$QPT_SRC/tests/views/progress.py" "$QPT" "$d/$f" \
		"$d" "$total" || bad "$f"
	checked=$((checked + 1))
done
finish
