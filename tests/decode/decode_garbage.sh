#!/bin/bash
# Garbage and truncated trace bytes, missing files and bad options: clean
# one-line errors and documented exit codes, never a crash (the build runs
# under ASan/UBSan, which abort with another status).
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_rc() { # expected-set rc what
	case " $1 " in *" $2 "*) ;; *) fail "$3: exit $2 (want one of $1)" ;; esac
}
for seed in 1 2 3 4 5; do
	python3 "$QPT_SRC/tests/shell/seeded_bytes.py" "$seed" $((seed * 4000)) >"$tmp/rand.pt"
	"$QPT" decode --raw "$tmp/rand.pt" --insn >"$tmp/out" 2>"$tmp/err"
	check_rc "0 1" $? "random bytes $seed"
	"$QPT" decode --raw "$tmp/rand.pt" --branches --json >/dev/null 2>&1
	check_rc "0 1" $? "random bytes $seed (branches)"
done
# random bytes behind a valid PSB: the decoder gets past sync
printf '\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x23' \
	>"$tmp/psb.pt"
python3 "$QPT_SRC/tests/shell/seeded_bytes.py" 6 20000 >>"$tmp/psb.pt"
"$QPT" decode --raw "$tmp/psb.pt" --insn --json >"$tmp/out" 2>"$tmp/err"
check_rc "0 1" $? "PSB + random bytes"
grep -q '"event":"error"' "$tmp/out" || fail "PSB + random: no error record"
: >"$tmp/empty.pt"
"$QPT" decode --raw "$tmp/empty.pt" >/dev/null 2>&1
check_rc "0 1" $? "empty trace"
"$QPT" decode --raw "$tmp/nonexistent.pt" 2>"$tmp/err"
check_rc "1" $? "missing trace file"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "missing file: not one line"
grep -q '^qpt: .*nonexistent.pt: ' "$tmp/err" || fail "message: $(cat "$tmp/err")"
"$QPT" decode --bogus >/dev/null 2>&1
check_rc "2" $? "unknown option"
"$QPT" decode --raw x --image nonsense >/dev/null 2>&1
check_rc "2" $? "bad --image"
if [ -d "$TRACES/arcus-hello" ]; then
	d="$TRACES/arcus-hello"
	for n in 100 1000 3333 7000; do
		head -c $n "$d/trace.pt" >"$tmp/trunc.pt"
		# shellcheck disable=SC2046
		"$QPT" decode --raw "$tmp/trunc.pt" $(images "$d") --insn --json \
			>"$tmp/out" 2>"$tmp/err"
		check_rc "0 1" $? "truncated at $n"
	done
	# no images at all: every instruction is lost, reported as errors
	"$QPT" decode --raw "$d/trace.pt" --insn --json >"$tmp/out" 2>"$tmp/err"
	check_rc "1" $? "no images"
	grep -q '"event":"error"' "$tmp/out" || fail "no images: no error record"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "no images: $(cat "$tmp/err")"
	# perf.data cut anywhere, or with bytes flipped: one clean line
	for n in 8 100 500 1000 2000 4000 6000 8000 8999; do
		head -c $n "$d/perf.data" >"$tmp/cut.data"
		"$QPT" decode --insn --sysroot "$d" -i "$tmp/cut.data" \
			>/dev/null 2>"$tmp/err"
		check_rc "0 1" $? "perf.data cut at $n"
		if grep -v '^qpt: ' "$tmp/err" | grep -q .; then
			fail "cut at $n: $(head -3 "$tmp/err")"
		fi
	done
	for off in 300 700 1100 1500 3000 8500; do
		cp "$d/perf.data" "$tmp/flip.data"
		printf '\xff\xff\xff\xff\xff\xff\xff\xff' |
			dd of="$tmp/flip.data" bs=1 seek=$off conv=notrunc 2>/dev/null
		"$QPT" decode --branches --sysroot "$d" -i "$tmp/flip.data" \
			>/dev/null 2>"$tmp/err"
		check_rc "0 1" $? "perf.data flipped at $off"
		if grep -v '^qpt: ' "$tmp/err" | grep -q .; then
			fail "flipped at $off: $(head -3 "$tmp/err")"
		fi
	done
	# a perf.data without Intel PT
	"$QPT" decode -i "$TRACES/lbr-callstack-perfparser/perf.lbr.data" \
		>/dev/null 2>"$tmp/err"
	check_rc "1" $? "LBR perf.data"
	grep -q 'no Intel PT trace' "$tmp/err" || fail "LBR: $(cat "$tmp/err")"
	# a flipped byte in the middle: still decodes the rest
	cp "$d/trace.pt" "$tmp/flip.pt"
	printf '\xff\xff\xff\xff' | dd of="$tmp/flip.pt" bs=1 seek=3000 conv=notrunc 2>/dev/null
	# shellcheck disable=SC2046
	"$QPT" decode --raw "$tmp/flip.pt" $(images "$d") --insn --json >"$tmp/out" 2>&1
	check_rc "0 1" $? "flipped bytes"
fi
echo ok
