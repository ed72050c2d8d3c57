#!/bin/bash
# qpt split on bad input: each failure is one line "qpt: ..." on stderr, a
# non-zero exit, and no shard left behind: a truncated and a corrupted
# recording, a file of garbage, a perf.data without Intel PT, -n 0, too
# many shards, no -o, an -o that is a file or cannot be written, a pipe.
# shellcheck source=tests/decode/split_lib.sh
. "$(dirname "$0")/split_lib.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
f=$(split_first "$tmp")
if [ -z "$f" ]; then
	[ -d "$TRACES/arcus-hello" ] || { echo "skip: no input"; exit 77; }
	cp "$TRACES/arcus-hello/perf.data" "$tmp/tsc.data"
	f=$tmp/tsc.data
fi
# one line, the exit status $1, no shard in $tmp/o
bad() {
	local want=$1 out
	shift
	rm -rf "$tmp/o"
	"$QPT" split "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" = "$want" ] || fail "split $*: exit $st, not $want"
	out=$(head -1 "$tmp/err")
	case $out in "qpt"*) ;; *) fail "split $*: '$out'" ;; esac
	[ "$want" = 2 ] || [ "$(wc -l <"$tmp/err")" = 1 ] ||
		fail "split $*: not one line: $(cat "$tmp/err")"
	! ls "$tmp"/o/*.data >/dev/null 2>&1 || fail "split $*: shards left"
	[ -s "$tmp/out" ] && fail "split $*: printed shards"
	echo "ok: $*: $out"
}
size=$(stat -c %s "$f")
head -c $((size * 2 / 3)) "$f" >"$tmp/trunc.data"
bad 1 -n 3 -i "$tmp/trunc.data" -o "$tmp/o"
cp "$f" "$tmp/corrupt.data"
# the first record's header: a size that runs past the end
printf '\xff\xff\xff\x7f' | dd of="$tmp/corrupt.data" bs=1 \
	seek=$(($(od -An -tu8 -j 40 -N 8 "$f") + 4)) conv=notrunc 2>/dev/null
bad 1 -n 3 -i "$tmp/corrupt.data" -o "$tmp/o"
python3 "$(dirname "$0")/../shell/seeded_bytes.py" 7 4096 >"$tmp/garbage.data"
bad 1 -n 3 -i "$tmp/garbage.data" -o "$tmp/o"
if [ -f "$TRACES/lbr-callstack-perfparser/perf.lbr.data" ]; then
	cp "$TRACES/lbr-callstack-perfparser/perf.lbr.data" "$tmp/nopt.data"
	bad 1 -n 3 -i "$tmp/nopt.data" -o "$tmp/o"
	grep -q "no Intel PT" "$tmp/err" || fail "no PT: $(cat "$tmp/err")"
fi
bad 2 -n 0 -i "$f" -o "$tmp/o"
bad 2 -n 513 -i "$f" -o "$tmp/o"
bad 2 -n 3 -i "$f"
bad 2 -i "$f" -o "$tmp/o"
touch "$tmp/afile"
bad 1 -n 3 -i "$f" -o "$tmp/afile"
bad 1 -n 3 -i "$f" -o "$tmp/no/such/dir"
bad 1 -n 3 -i "$tmp/missing.data" -o "$tmp/o"
if [ "$(id -u)" != 0 ]; then
	mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
	bad 1 -n 3 -i "$f" -o "$tmp/ro"
else # root writes anywhere but in /proc
	bad 1 -n 3 -i "$f" -o /proc
fi
bad 1 -n 3 -i - -o "$tmp/o" < <(cat "$f")
echo ok
