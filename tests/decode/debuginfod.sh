#!/bin/bash
# Binaries fetched by build-id from a debuginfod server: an emulated
# recording of a copy of a test program, whose build-id the recording
# keeps (HEADER_BUILD_ID), decoded after the copy is gone.  Without a
# server qpt says the file is missing; with DEBUGINFOD_URLS, or
# --debuginfod=URL, naming a server that has it (a static HTTP server laid
# out as debuginfod's /buildid/ID/executable, Python's http.server), qpt
# decode's instructions are those perf script gave while the copy was
# there.  libdebuginfod (the client) keeps its cache in the test's folder.
# Args: PROG (a dynamically linked test program)
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=tests/shell/qpt_insns.sh
. "$(dirname "$0")/../shell/qpt_insns.sh"
command -v perf >/dev/null 2>&1 || { echo "skip: no perf"; exit 77; }
tmp=$(mktemp -d)
srv=""
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/bin" "$tmp/cache"
cp "$1" "$tmp/bin/prog"
bid=$(readelf -n "$tmp/bin/prog" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "no build-id in $1"
env -i QPT_TEST=1 "$QPT" record -q --emulate -o "$tmp/rec.data" \
	-- "$tmp/bin/prog" >/dev/null 2>"$tmp/rec.err" ||
	fail "qpt record: $(cat "$tmp/rec.err")"
perf buildid-list -i "$tmp/rec.data" 2>/dev/null | grep -q "^$bid $tmp/bin/prog$" ||
	fail "the recording does not keep the program's build-id"
perf script -i "$tmp/rec.data" --itrace=i0ns -F tid,ip 2>/dev/null |
	awk '{ print $1, $2 }' >"$tmp/want"
mkdir -p "$tmp/srv/buildid/$bid"
mv "$tmp/bin/prog" "$tmp/srv/buildid/$bid/executable"
export DEBUGINFOD_CACHE_PATH=$tmp/cache HOME=$tmp
decode() { "$QPT" decode --no-asm --no-sym -i "$tmp/rec.data" "$@"; }
unset DEBUGINFOD_URLS
decode 2>"$tmp/err" | insn_ips >"$tmp/got0"
grep -q "$tmp/bin/prog" "$tmp/err" || fail "no word of the missing program: $(cat "$tmp/err")"
cmp -s "$tmp/want" "$tmp/got0" && fail "decoded the program without it"
decode --debuginfod >/dev/null 2>&1 && fail "--debuginfod without servers accepted"
# the server: its first line says the port it listens on
exec 3< <(cd "$tmp/srv" && exec /usr/bin/python3 -u -m http.server \
	--bind 127.0.0.1 0 2>/dev/null)
srv=$!
read -r -t 30 line <&3 || fail "the HTTP server did not start"
port=$(echo "$line" | sed -n 's/.* port \([0-9]*\) .*/\1/p')
[ -n "$port" ] || fail "no port in '$line'"
url=http://127.0.0.1:$port
DEBUGINFOD_URLS=$url decode 2>"$tmp/err" | insn_ips >"$tmp/got1"
cmp -s "$tmp/want" "$tmp/got1" ||
	fail "with DEBUGINFOD_URLS: $(diff "$tmp/want" "$tmp/got1" | head -5) $(cat "$tmp/err")"
rm -rf "$tmp/cache"/*
decode --debuginfod="$url" 2>"$tmp/err" | insn_ips >"$tmp/got2"
cmp -s "$tmp/want" "$tmp/got2" || fail "with --debuginfod=URL: $(cat "$tmp/err")"
# no HOME (no build-id cache to look in): debuginfod still asked
rm -rf "$tmp/cache"/*
env -u HOME DEBUGINFOD_URLS=$url "$QPT" decode --no-asm --no-sym \
	-i "$tmp/rec.data" 2>"$tmp/err" | insn_ips >"$tmp/got3"
cmp -s "$tmp/want" "$tmp/got3" || fail "without HOME: $(cat "$tmp/err")"
echo "ok: $(wc -l <"$tmp/want") instructions, the program from debuginfod"
