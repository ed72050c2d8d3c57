#!/bin/bash
# Demangled names against perf's: a program whose functions carry C++ and
# Rust (v0 and legacy) symbol names (tests/decode/mangled.c), recorded
# with the emulated source.  The targets of main's calls in
# `qpt decode --branches --json` are perf script's (which demangles with
# the same rules: no parameters, no Rust hash); with --no-demangle they are
# nm's raw names; `qpt decode --sym Parser::parse` prints the instructions
# perf names Parser::parse, as many.
# Args: MANGLED (the test program)
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
P=$1
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
	-- "$P" >/dev/null 2>"$tmp/rec.err" || fail "qpt record: $(cat "$tmp/rec.err")"
# the symbols of main's call targets, one a line, but printf's PLT stub
# (perf 6.1 names it after the nearest symbol, _init; qpt printf@plt)
perf script -i "$tmp/rec.data" --itrace=c -F ip,sym,addr 2>/dev/null |
	awk '$2 == "main" && $3 == "=>" { $1 = $2 = $3 = $4 = ""; sub("^ *", "")
	  if ($0 != "_init") print }' >"$tmp/perf"
qpt_targets() {
	"$QPT" decode --branches --json "$@" -i "$tmp/rec.data" |
		grep '"kind":"call".*"sym":"main+' |
		sed 's/.*"to_sym":"\([^"]*\)+0x0".*/\1/' | grep -v '@plt$'
}
qpt_targets >"$tmp/qpt" || fail "qpt decode"
grep -qx 'ns::add<int>' "$tmp/perf" || fail "perf does not demangle: $(cat "$tmp/perf")"
diff "$tmp/perf" "$tmp/qpt" >&2 || fail "call targets differ from perf's"
for n in 'Parser::parse' 'ns::add<int>' 'mycrate::main' 'mycrate::legacy'; do
	grep -qxF "$n" "$tmp/qpt" || fail "no call of $n"
done
# --no-demangle: the names in the binary
qpt_targets --no-demangle | sort -u >"$tmp/raw"
nm "$P" | awk '$2 == "T" || $2 == "t" { print $3 }' | sort -u >"$tmp/nm"
[ "$(wc -l <"$tmp/raw")" -eq 4 ] || fail "--no-demangle: $(cat "$tmp/raw")"
comm -23 "$tmp/raw" "$tmp/nm" | grep . >&2 && fail "--no-demangle names not in nm"
grep -q '^_ZN6Parser5parseEPKc$' "$tmp/raw" || fail "--no-demangle: no raw C++ name"
# --sym with a demangled name
want=$(perf script -i "$tmp/rec.data" --itrace=i0ns -F ip,sym 2>/dev/null |
	awk '$2 == "Parser::parse"' | wc -l)
got=$("$QPT" decode --no-asm --sym Parser::parse -i "$tmp/rec.data" | grep -c 'Parser::parse+')
[ "$want" -gt 0 ] && [ "$want" -eq "$got" ] || fail "--sym Parser::parse: perf $want, qpt $got"
echo "ok: $(wc -l <"$tmp/qpt") calls of main named as perf names them"
