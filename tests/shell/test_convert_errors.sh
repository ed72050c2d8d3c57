#!/usr/bin/env bash
# qpt convert on bad input and bad use: usage errors exit 2; unreadable,
# truncated or garbage input and unwritable output exit 1 with one line
# "qpt: FILE: ..." on stderr, no signal, and no output file left behind.
# The inputs: a file perf records here, else the arcus-hello recording.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"

# expect RC ARGS...: qpt convert exits RC; with RC 1, one "qpt: " line.
expect() {
	local want=$1 rc lines
	shift
	rm -f "$tmp/out.data"
	"$QPT" convert "$@" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "convert $* exited $rc, not $want"; cat "$tmp/err"; return
	fi
	if [ "$want" = 1 ]; then
		lines=$(wc -l <"$tmp/err")
		if [ "$lines" != 1 ] || ! grep -q '^qpt: ' "$tmp/err"; then
			bad "convert $*: stderr is not one line"
			cat "$tmp/err"
		fi
		[ -e "$tmp/out.data" ] && bad "convert $*: left $tmp/out.data"
	fi
}

expect 2 -i x.data
expect 2 --compress=0 -i x.data -o "$tmp/out.data"
expect 2 --compress=23 -i x.data -o "$tmp/out.data"
expect 2 -i x.data -o "$tmp/out.data" extra
expect 2 --bogus -o "$tmp/out.data"
expect 2 -o
expect 0 --help
expect 1 -i "$tmp/missing.data" -o "$tmp/out.data"
python3 "$QPT_SRC/tests/shell/seeded_bytes.py" 1 4096 >"$tmp/garbage.data"
expect 1 -i "$tmp/garbage.data" -o "$tmp/out.data"

src=
if command -v perf >/dev/null &&
	perf record -q -e task-clock -o "$tmp/in.data" -- ls / \
		>/dev/null 2>&1; then
	src=$tmp/in.data
elif [ -d "${QPT_SHARED:-/nonexistent}/traces/arcus-hello" ]; then
	src=$QPT_SHARED/traces/arcus-hello/perf.data
fi
[ -n "$src" ] || { echo "no input to cut"; exit 77; }

expect 0 -i "$src" -o "$tmp/ok.data"
expect 1 -i "$src" -o "$src"
expect 1 -i "$src" -o /nonexistent/dir/out.data
expect 1 -i "$src" -o /dev/full
# truncations at many offsets, in file and in pipe mode
"$QPT" convert -i "$src" -o - >"$tmp/in.pipe" || bad "convert to pipe"
for f in "$src" "$tmp/in.pipe"; do
	size=$(stat -c %s "$f")
	for cut in 0 7 16 100 200 263 500 1000 $((size / 2)) $((size - 9)) \
		$((size - 1)); do
		[ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$f" >"$tmp/cut.data"
		"$QPT" convert -i "$tmp/cut.data" -o "$tmp/out.data" \
			2>"$tmp/err" >/dev/null
		rc=$?
		# a cut at a record boundary of a pipe stream is a whole stream
		if [ "$rc" = 0 ]; then
			continue
		fi
		[ "$rc" = 1 ] || bad "cut at $cut of $f: exit $rc"
		[ "$(wc -l <"$tmp/err")" = 1 ] ||
			bad "cut at $cut of $f: $(cat "$tmp/err")"
		[ -e "$tmp/out.data" ] && bad "cut at $cut: output left"
		rm -f "$tmp/out.data"
	done
done
exit $fail
