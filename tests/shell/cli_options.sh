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

for cmd in info dump convert lbr inject; do
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
exit $fail
