#!/bin/bash
# Reading files with many attrs and ids: qpt dump's time as the number of
# attrs or ids doubles, on the hostile shapes of tests/shell/hostile_input.sh
# (file mode: every attr names one block of ids; pipe mode: one
# HEADER_ATTR record per attr).  Prints each time and its ratio to the
# row before: about 2 when time grows linearly (it was 4 and more when the
# reader re-sorted its id table after each attr); distinct ids are sorted,
# so where they double the growth is N log N, a little over 2.
#
#   bench/hostile.sh [STEPS]   rows per series (default 5; past 5, the
#                              pipe-mode ids pass a record's 8175)
#
# Use an optimised build: QPT=path/to/qpt (default: build-release/cli/qpt,
# configured here when missing, without sanitizers).  Not a ctest.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps=${1:-5}
mk() { python3 "$src/tests/shell/mkhostile.py" "$@"; }

# series NAME MODE ATTRS IDS WHICH: double ATTRS (WHICH=attrs) or IDS
# (WHICH=ids) STEPS times.
series() {
	local name=$1 mode=$2 a=$3 i=$4 which=$5 t prev='' first=''
	echo "$name"
	printf '  %8s %6s %10s %8s %6s\n' attrs ids bytes seconds ratio
	for _ in $(seq "$steps"); do
		mk "$mode" "$a" "$i" "$tmp/h.data"
		t=$(best_secs "$QPT" dump -i "$tmp/h.data")
		printf '  %8d %6d %10d %8.3f %6s\n' "$a" "$i" \
			"$(stat -c %s "$tmp/h.data")" "$t" \
			"$([ -n "$prev" ] && echo "$prev $t" |
				awk '{ printf "%.2f", $2 / ($1 > 0 ? $1 : 1e-6) }')"
		prev=$t
		first=${first:-$t}
		if [ "$which" = attrs ]; then a=$((a * 2)); else i=$((i * 2)); fi
	done
	echo "$first $t $steps $which" | awk '{ printf "  %dx the %s: %.1fx the time\n",
		2 ^ ($3 - 1), $4, $2 / ($1 > 0 ? $1 : 1e-6) }'
}

series "file mode, attrs naming one block of 1000 ids" file 5000 1000 attrs
series "file mode, 2000 attrs naming one block of ids" file 2000 5000 ids
series "pipe mode, HEADER_ATTR records of one id" pipe 20000 1 attrs
series "pipe mode, 2000 HEADER_ATTR records of several ids" pipe 2000 256 ids
echo "ratio: this row's time / the previous row's (2 = linear)"
