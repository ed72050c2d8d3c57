#!/usr/bin/env bash
# Bad options to every qpt subcommand: exit 2 and exactly two lines
# on stderr, one naming the option (getopt's words, as in GNU tools) and
# the hint "Try 'qpt CMD --help'.", both written out here by hand.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"

# expect CMD ARG LINE1: "qpt CMD ARG" exits 2 with LINE1 and the hint.
expect() {
	local cmd=$1 arg=$2 want got rc
	want=$(printf "%s\nTry 'qpt %s --help'." "$3" "$cmd")
	got=$("$QPT" "$cmd" "$arg" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != 2 ] || [ "$got" != "$want" ]; then
		bad "qpt $cmd $arg: exit $rc, stderr:"
		echo "$got"
	fi
}

for cmd in info dump convert lbr inject split; do
	expect "$cmd" --bogus "qpt $cmd: unrecognized option '--bogus'"
	expect "$cmd" -Q "qpt $cmd: invalid option -- 'Q'"
	expect "$cmd" -i "qpt $cmd: option requires an argument -- 'i'"
	expect "$cmd" --input "qpt $cmd: option '--input' requires an argument"
	expect "$cmd" --help=x "qpt $cmd: option '--help' doesn't allow an argument"
done
expect decode --bogus "qpt decode: unrecognized option '--bogus'"
expect decode -Q "qpt decode: invalid option -- 'Q'"
expect decode -i "qpt decode: option requires an argument -- 'i'"
expect decode --raw "qpt decode: option '--raw' requires an argument"
expect record --bogus "qpt record: unrecognized option '--bogus'"
expect record -Q "qpt record: invalid option -- 'Q'"
expect record -o "qpt record: option requires an argument -- 'o'"
expect record --output "qpt record: option '--output' requires an argument"

# Numeric values: one rule for every subcommand (cli_parse_u64: an
# unsigned number, decimal or 0x hex, nothing around it, within range),
# one line naming the option, the value and the range, then the hint.
# expect_num CMD OPT VALUE MIN MAX [ARGS...]
expect_num() {
	local cmd=$1 opt=$2 val=$3 min=$4 max=$5 want got rc
	shift 5
	want=$(printf "qpt %s: bad %s '%s' (a number from %s to %s)\nTry 'qpt %s --help'." \
		"$cmd" "$opt" "$val" "$min" "$max" "$cmd")
	got=$("$QPT" "$cmd" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != 2 ] || [ "$got" != "$want" ]; then
		bad "qpt $cmd $*: exit $rc, stderr:"
		echo "$got"
	fi
}
for v in -1 +3 " 3" 3x "" 0 1025 0x401 99999999999999999999999; do
	expect_num lbr --max-lbr "$v" 1 1024 --max-lbr="$v"
	expect_num inject --lbr-depth "$v" 1 1024 --lbr-depth="$v"
	expect_num decode --lbr "$v" 1 1024 --lbr="$v"
done
for v in -1 +3 " 3" 3x "" 0 513 0x201; do
	expect_num split -n "$v" 1 512 -n "$v"
done
for v in -1 " 7" 0 23 0x17 7.5; do
	expect_num convert "compression level" "$v" 1 22 -z"$v"
done
for v in -2 +1 0 1048577 1e3; do
	expect_num decode --last "$v" 1 1048576 --last "$v"
done
expect_num decode --lbr-period -5 1 18446744073709551615 --lbr-period=-5
expect_num inject "--lbr-callstack period" 0x 1 18446744073709551615 \
	--lbr-callstack=0x
# lists and addresses follow the same rule
for v in 1,,2 1, -1 2147483648 " 1"; do
	got=$("$QPT" decode --tid "$v" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 2 ] && [ "$(printf '%s\n' "$got" | head -1)" = "qpt decode: bad --tid '$v'" ] ||
		bad "qpt decode --tid '$v': exit $rc: $got"
done
for v in x@-1 x@ x@0x10g @0x10; do
	"$QPT" decode --raw /dev/null --image "$v" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || bad "qpt decode --image '$v': exit $rc"
done
# well-formed values pass the parser (the command then fails on its input,
# exit 1, not 2)
for a in --max-lbr=0x10 --max-lbr=1024 --max-lbr=010; do
	"$QPT" lbr -i "$QPT_BUILD/no-such.data" "$a" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 1 ] || bad "qpt lbr $a: exit $rc (want 1)"
done
"$QPT" decode -i "$QPT_BUILD/no-such.data" --tid 1,0x2,3 --last 0x100000 \
	>/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] || bad "qpt decode --tid 1,0x2,3 --last 0x100000: exit $rc (want 1)"

# An unknown subcommand is named escaped, on one line (the escaper of
# every error message), then the usage.
got=$("$QPT" $'x\ny\033' 2>&1 >/dev/null | head -1)
[ "$got" = "qpt: 'x\x0ay\x1b' is not a qpt command" ] ||
	bad "unknown command: $got"

# The version, as -V, --version and version; qpt help CMD is CMD --help.
want=$("$QPT" --version)
case $want in "qpt "[0-9]*.[0-9]*) ;; *) bad "--version: '$want'" ;; esac
[ "$("$QPT" -V)" = "$want" ] || bad "-V: '$("$QPT" -V)', want '$want'"
[ "$("$QPT" version)" = "$want" ] || bad "version differs from --version"
for cmd in record decode info dump convert lbr inject crash split; do
	"$QPT" help "$cmd" >"$tmp/help" 2>&1 || bad "qpt help $cmd: exit $?"
	"$QPT" "$cmd" --help 2>&1 | cmp -s - "$tmp/help" ||
		bad "qpt help $cmd differs from qpt $cmd --help"
done
"$QPT" help bogus >/dev/null 2>&1
[ $? = 2 ] || bad "qpt help bogus: not a usage error"

# --disasm is the default's explicit form; with --no-asm a usage error.
d=$T/arcus-hello
if [ -f "$d/trace.pt" ]; then
	imgs=()
	for f in "$d"/mem/*.bin; do
		imgs+=(--image "$f@0x$(basename "$f" .bin)")
	done
	"$QPT" decode --raw "$d/trace.pt" "${imgs[@]}" --last 50 >"$tmp/def"
	"$QPT" decode --raw "$d/trace.pt" "${imgs[@]}" --last 50 --disasm \
		>"$tmp/dis"
	grep -q ' insn: .* mov ' "$tmp/def" || bad "no instruction text"
	cmp -s "$tmp/def" "$tmp/dis" || bad "--disasm differs from the default"
fi
expect_err() {
	"$QPT" "$@" >/dev/null 2>&1
	[ $? = 2 ] || bad "qpt $*: not a usage error"
}
expect_err decode --disasm --no-asm
exit $fail
