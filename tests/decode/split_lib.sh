# shellcheck shell=bash
# Shared by the qpt split tests: recordings with many PSBs and the
# whole-against-shards comparison.
# shellcheck source=tests/decode/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
EMU="${QPT_BUILD:-}/tests/emulate"

# Record $2 (a test program) under --emulate with event $3 into $1: a PSB
# every 2 KiB (psb_period=0), so that a small run has many.
split_record() {
	env -i QPT_TEST=1 "$QPT" record -q --emulate -e "$3" -o "$1" \
		-- "$EMU/$2" >/dev/null 2>&1
	[ -s "$1" ] || fail "$2: no recording"
}

# The first of split_recordings' into dir $1, its path (none: no
# emulated source): a multi-thread one with timing.
split_first() {
	[ -x "$EMU/emu_threads" ] || return 0
	"$QPT" record --help 2>&1 | grep -q -- --emulate || return 0
	split_record "$1/tsc.data" emu_threads "intel_pt/psb_period=0/u"
	echo "$1/tsc.data"
}

# The recordings the tests split into dir $1, one path a line: emulated
# multi-thread ones with and without timing.
split_recordings() {
	[ -n "$(split_first "$1")" ] || return 0
	split_record "$1/notsc.data" emu_threads \
		"intel_pt/tsc=0,mtc=0,psb_period=0/u"
	split_record "$1/fork.data" emu_forkexec "intel_pt/psb_period=0/u"
	echo "$1/tsc.data"
	echo "$1/notsc.data"
	echo "$1/fork.data"
	# trace lost on purpose (TRUNCATED AUX records, tests/decode/mkloss.py)
	python3 "$(dirname "${BASH_SOURCE[0]}")/mkloss.py" "$1/tsc.data" \
		"$1/loss.data" 2 4 psb >/dev/null || fail "mkloss"
	echo "$1/loss.data"
	# snapshots: each queue's stream as AUXTRACE records that overlap,
	# at unrelated offsets (tests/decode/mksnap.py)
	python3 "$(dirname "${BASH_SOURCE[0]}")/mksnap.py" "$1/tsc.data" \
		"$1/snap.data" 5 300 || fail "mksnap"
	echo "$1/snap.data"
}

# Split $1 into $2 shards in dir $3; the shards' names in $3.list.
split_into() {
	rm -rf "$3"
	"$QPT" split -n "$2" -i "$1" -o "$3" >"$3.list" 2>"$3.err" ||
		fail "$1 -n $2: split failed: $(cat "$3.err")"
	[ -s "$3.list" ] || fail "$1 -n $2: no shards listed"
}

# Each decode option list in $4.. of the whole $1 against its shards
# (listed in $2.list), concatenated in order, all with --no-sort (queue
# after queue: the order the shards cut); scratch dir $3.  The
# decodes must succeed, unless SPLIT_GAPS is set (images missing: the
# exit status says so, alike).
split_same() {
	local in=$1 list=$2 t=$3 s
	shift 3
	"$QPT" decode -i "$in" --no-sort "$@" >"$t/whole" 2>"$t/whole.err" ||
		[ -n "${SPLIT_GAPS:-}" ] ||
		fail "$in: decode $*: $(cat "$t/whole.err")"
	while read -r s; do
		"$QPT" decode -i "$s" --no-sort "$@" 2>>"$t/cat.err" ||
			[ -n "${SPLIT_GAPS:-}" ] ||
			fail "$s: decode $*: $(cat "$t/cat.err")"
	done <"$list.list" >"$t/cat"
	cmp -s "$t/whole" "$t/cat" || {
		diff "$t/whole" "$t/cat" | head -5 >&2
		fail "$in ($(wc -l <"$list.list") shards): decode $* differs"
	}
}
