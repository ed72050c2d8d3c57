#!/usr/bin/env bash
# The pictures of the demo's call flow (an emulated recording): qpt flame's
# folded stacks against qpt decode --stats (instructions per function),
# its SVG frames against the folded stacks (instructions under each
# stack) and qpt decode --calls (the calls into each stack), a screenshot
# of the SVG in headless Chromium that is not blank, and qpt decode
# --format=chrome-trace held to the trace-event format's schema, its
# slices against --calls (thread, name, nesting depth) (pictures.py).
# Args: DEMO (the demo program, built)
demo=$1
. "$QPT_SRC/tests/shell/lib.sh"
cd "$tmp" || exit 1
py=/usr/bin/python3
$py -c 'import jsonschema' 2>/dev/null || { echo "no python3-jsonschema"; exit 77; }
if ! "$QPT" record -q --emulate -o demo.data -- "$demo" >/dev/null 2>err.txt; then
	grep -q -i ptrace err.txt && { echo "no ptrace here"; exit 77; }
	bad "qpt record --emulate: $(cat err.txt)"
	finish
fi
run() { # OUT qpt-args...: qpt's output into OUT, or a failure
	local out=$1
	shift
	"$QPT" "$@" -i demo.data >"$out" 2>err.txt || bad "qpt $*: $(cat err.txt)"
}
run calls.jsonl decode --calls --json
run stats.jsonl decode --stats --json
run folded.txt flame --format=folded
"$QPT" flame -i demo.data -o flame.svg || bad "qpt flame -o flame.svg"
"$QPT" decode --calls --format=chrome-trace -i demo.data -o calls.json ||
	bad "qpt decode --format=chrome-trace"
png=()
if command -v chromium >/dev/null; then
	mkdir profile
	h=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' flame.svg)
	chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" --window-size="1200,$h" \
		--screenshot="$tmp/flame.png" "file://$tmp/flame.svg" \
		>chromium.log 2>&1 || bad "chromium: $(tail -3 chromium.log)"
	png=(--png flame.png)
else
	echo "no chromium: no screenshot"
fi
$py "$QPT_SRC/tests/views/pictures.py" --calls calls.jsonl \
	--stats stats.jsonl --folded folded.txt --svg flame.svg \
	--chrome calls.json --schema "$QPT_SRC/tests/views/trace_event.schema.json" \
	"${png[@]}" || bad "pictures"
checked=1
# the same from a pipe, and bad options
"$QPT" flame --format=folded -i - <demo.data | cmp -s - folded.txt ||
	bad "qpt flame -i - differs"
"$QPT" flame --format=png -i demo.data >/dev/null 2>&1
[ $? -eq 2 ] || bad "flame --format=png is no usage error"
"$QPT" decode --insn --format=chrome-trace -i demo.data >/dev/null 2>&1
[ $? -eq 2 ] || bad "--format=chrome-trace without --calls is no usage error"
"$QPT" flame -i demo.data -o /nonexistent/f.svg 2>err.txt
[ $? -eq 1 ] && grep -q '^qpt: /nonexistent/f.svg: ' err.txt ||
	bad "an output that cannot be opened: $(cat err.txt)"
finish
