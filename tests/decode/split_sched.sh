#!/bin/bash
# qpt split under the schedulers the README shows: its GNU parallel
# one-liner (parallel -k over the listed shards) and its Dask example
# (examples/dask_decode.py: a local cluster of two worker processes on
# loopback), each against the whole file's decode, on an emulated
# multi-thread recording with timing and many PSBs (and a real trace).
# Skips a scheduler that is absent (77 when both are).
# shellcheck source=tests/decode/split_lib.sh
. "$(dirname "$0")/split_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PY=/usr/bin/python3
has_par=0 has_dask=0
command -v parallel >/dev/null 2>&1 && has_par=1
"$PY" -c 'import distributed' 2>/dev/null && has_dask=1
[ $has_par = 1 ] || [ $has_dask = 1 ] ||
	{ echo "skip: neither GNU parallel nor Dask"; exit 77; }
# differs A B: where A and B part, and how many lines each has
differs() {
	echo "$(wc -l <"$1") and $(wc -l <"$2") lines"
	diff "$1" "$2" | head -6
}
f=$(split_first "$tmp")
[ -n "$f" ] || { echo "skip: no emulated recording"; exit 77; }
"$QPT" decode -i "$f" --insn --no-sort >"$tmp/whole" || fail "decode"
# the README's command, as it is written there, in $tmp
cd "$tmp" || fail "cd"
if [ $has_par = 1 ]; then
	cp "$f" big.data
	# the vDSO's bytes beside it, as the recording keeps them
	if [ -e "$f.vdso" ]; then cp "$f.vdso" big.data.vdso; fi
	"$QPT" split -n 8 -i big.data -o shards |
		parallel -k "$QPT" decode --insn --no-sort -i {} >par.txt ||
		fail "split | parallel"
	cmp -s whole par.txt ||
		fail "GNU parallel's output differs: $(differs whole par.txt)"
	ls shards/*.data | parallel -k "$QPT" decode --insn --no-sort -i {} >par2.txt ||
		fail "ls | parallel"
	cmp -s whole par2.txt ||
		fail "GNU parallel (ls) output differs: $(differs whole par2.txt)"
	echo "ok: GNU parallel, $(ls shards/*.data | wc -l) shards"
fi
if [ $has_dask = 1 ]; then
	split_into "$f" 5 "$tmp/d"
	# shellcheck disable=SC2046
	QPT=$QPT timeout 300 "$PY" "$QPT_SRC/examples/dask_decode.py" \
		dask.txt $(cat "$tmp/d.list") -- --insn --no-sort 2>dask.err ||
		fail "dask: $(tail -3 dask.err)"
	cmp -s whole dask.txt ||
		fail "Dask's output differs: $(differs whole dask.txt)"
	echo "ok: Dask, $(wc -l <"$tmp/d.list") shards"
fi
