#!/bin/bash
# qpt split: the decodes of the shards, in shard order, are the whole
# file's, byte for byte (--insn, --branches, the default, with symbols and
# times), for the real traces (ARCUS: a PSB where tracing is on is rare
# there, -n larger than the units; quipper's per-cpu queues) and
# emulated multi-thread recordings with and without timing and with a PSB every 2 KiB, split several ways,
# one of them with losses (each told by one shard, where the whole tells
# it).
# The oracle: perf script reads every shard (exit 0), and each thread's
# instructions over the shards (perf script --itrace=i0ns -F tid,ip,
# concatenated) are perf's on the whole file.
# shellcheck source=tests/decode/split_lib.sh
. "$(dirname "$0")/split_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/shell/by_thread.sh
. "$(dirname "$0")/../shell/by_thread.sh"
n=0
if [ -d "$TRACES/arcus-hello" ]; then
	for f in arcus-hello/perf.data arcus-hello/perf-split3.data \
		arcus-hello/perf-split7-noindex.data arcus-ovf-01-poc/perf.data; do
		d=$TRACES/${f%%/*}
		for k in 1 4; do
			split_into "$TRACES/$f" $k "$tmp/o"
			for m in --insn --branches; do
				split_same "$TRACES/$f" "$tmp/o" "$tmp" \
					--sysroot "$d" $m
			done
		done
		n=$((n + 1))
	done
fi
# per-cpu queues, their threads from SWITCH records, TSC; the binaries
# are absent: the decode's gaps and losses, told alike
q=$TRACES/quipper-intel-pt-4.14/perf.data.intel_pt-4.14
if [ -f "$q" ]; then
	split_into "$q" 8 "$tmp/o"
	[ "$(wc -l <"$tmp/o.list")" = 8 ] || fail "quipper: not 8 shards"
	for m in --insn --branches; do
		SPLIT_GAPS=1 split_same "$q" "$tmp/o" "$tmp" $m
	done
	n=$((n + 1))
fi
has_perf=0
command -v perf >/dev/null 2>&1 && has_perf=1
perf_ips() { # each thread's instructions by perf, of the files in $1.list
	local s
	while read -r s; do
		perf script -i "$s" --itrace=i0ns -F tid,ip 2>/dev/null ||
			fail "$s: perf script fails"
	done <"$1.list"
}
for f in $(split_recordings "$tmp"); do
	ks=9 # and one more way on one of them
	[ "$(basename "$f")" = tsc.data ] && ks="2 9"
	for k in $ks; do
		split_into "$f" $k "$tmp/o"
		for m in --insn --branches ""; do
			# shellcheck disable=SC2086
			split_same "$f" "$tmp/o" "$tmp" $m
		done
		# perf's oracle on the files without losses or overlaps (perf
		# decodes across a loss, and reads overlaps, its own way)
		case $f in *loss.data | *snap.data) continue ;; esac
		[ $has_perf = 1 ] && [ $k = 9 ] || continue
		echo "$f" >"$tmp/w.list"
		perf_ips "$tmp/w" | by_thread >"$tmp/pw"
		perf_ips "$tmp/o" | by_thread >"$tmp/ps"
		[ -s "$tmp/pw" ] || fail "$f: perf script shows nothing"
		cmp -s "$tmp/pw" "$tmp/ps" ||
			fail "$f -n $k: perf script's threads differ over shards"
	done
	echo "ok: $(basename "$f"): $(wc -l <"$tmp/o.list") shards at most"
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "skip: no traces, no emulated recordings"; exit 77; }
echo ok
