# Helpers for the shell tests: per-type record counts from perf report -D
# ("Aggregated stats") and from qpt dump --json, as sorted "TYPE COUNT" lines.

# perf_counts FILE: perf's aggregated per-type counts, without TOTAL and
# COMPRESSED (perf counts the inner records of COMPRESSED ones too).
perf_counts() {
	perf report -D -i "$1" 2>/dev/null |
		sed -n '/^Aggregated stats/,/^[^ A]/p' |
		awk '$2 == "events:" && $1 != "TOTAL" && $1 != "COMPRESSED" &&
		     $1 != "COMPRESSED2" && $3 > 0 { print $1, $3 }' | sort
}

# qpt_counts FILE: the same from qpt dump --json.
qpt_counts() {
	"$QPT" dump --json -i "$1" |
		sed -n 's/.*"type":"\([A-Z0-9_]*\)".*/\1/p' |
		grep -v -x -e COMPRESSED -e COMPRESSED2 | sort | uniq -c |
		awk '{ print $2, $1 }' | sort
}
