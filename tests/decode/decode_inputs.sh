#!/bin/bash
# qpt decode's inputs that are not what they should be: one line naming the
# file and what is wrong, exit 1, never silence and never a wait.
#   --raw: an empty file, a FIFO (no writer: the open must not block), a
#   directory; --sysroot and --buildid-dir that do not exist or are files;
#   --image: a FIFO, a symlink loop.
# A recorded mapping that resolves under --sysroot to a FIFO or to a
# symlink loop (arcus-hello, its libc image replaced): the decode ends, with
# the output of the same sysroot without that file, and the gap and the
# warning name what the file is instead of "not found".
# A recording as a recorder killed before it finished the header leaves it
# (arcus-hello: data size 0, no features) decodes to the expected
# instructions, from the file and from a pipe (records as they come).
# No time is measured: ctest's TIMEOUT guards against a blocking open.
# shellcheck source=tests/decode/common.sh
. "$(dirname "$0")/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one_line PATTERN CMD...: exit 1 and one line on stderr matching PATTERN.
one_line() {
	local pat=$1 rc
	shift
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc != 1 ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
	   ! grep -qE "$pat" "$tmp/err"; then
		fail "$*: exit $rc: $(cat "$tmp/err")"
	fi
	echo "ok: $(cat "$tmp/err")"
}

: >"$tmp/empty.pt"
mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
ln -s loop1 "$tmp/loop2"
ln -s loop2 "$tmp/loop1"
one_line "^qpt: $tmp/empty.pt: empty file: no Intel PT trace to decode$" \
	"$QPT" decode --raw "$tmp/empty.pt"
one_line "^qpt: $tmp/fifo: not a regular file$" "$QPT" decode --raw "$tmp/fifo"
one_line "^qpt: $tmp/dir: not a regular file$" "$QPT" decode --raw "$tmp/dir"
one_line "^qpt: $tmp/nodir: --sysroot: No such file or directory$" \
	"$QPT" decode --sysroot "$tmp/nodir" --raw "$tmp/empty.pt"
one_line "^qpt: $tmp/empty.pt: --sysroot: not a directory$" \
	"$QPT" decode --sysroot "$tmp/empty.pt" -i "$tmp/empty.pt"
one_line "^qpt: $tmp/nodir: --buildid-dir: No such file or directory$" \
	"$QPT" decode --buildid-dir "$tmp/nodir" -i "$tmp/empty.pt"
one_line "^qpt: $tmp/fifo: is not a regular file$" \
	"$QPT" decode --image "$tmp/fifo@0x1000" --raw "$tmp/empty.pt"
one_line "^qpt: $tmp/loop1: is in a symlink loop$" \
	"$QPT" decode --image "$tmp/loop1@0x1000" --raw "$tmp/empty.pt"
one_line "^qpt: $tmp/nofile: not found$" \
	"$QPT" decode --image "$tmp/nofile@0x1000" --raw "$tmp/empty.pt"

need_traces
d=$TRACES/arcus-hello
libc=mem/00007ffff7a3a000.bin
mkdir -p "$tmp/sys/mem"
# copies: a sysroot resolves as if it were / (a symlink to $d would lead
# nowhere inside it)
cp "$d"/mem/*.bin "$tmp/sys/mem/"
rm "$tmp/sys/$libc"
"$QPT" decode --sysroot "$tmp/sys" -i "$d/perf.data" >"$tmp/absent" \
	2>"$tmp/absent.err" || fail "without $libc: exit $?"
grep -q "image /$libc not found: " "$tmp/absent.err" ||
	fail "without $libc: $(cat "$tmp/absent.err")"
check() { # what the file is, its reason
	"$QPT" decode --sysroot "$tmp/sys" -i "$d/perf.data" >"$tmp/out" \
		2>"$tmp/err" || fail "$1: exit $?"
	sed "s|/$libc (not found)|/$libc ($2)|" "$tmp/absent" |
		cmp -s - "$tmp/out" ||
		fail "$1: output differs from the one without the file"
	[ "$(sed "s| not found: | $2: |" "$tmp/absent.err")" = "$(cat "$tmp/err")" ] ||
		fail "$1: $(cat "$tmp/err")"
	echo "ok: $1: $(cat "$tmp/err")"
}
mkfifo "$tmp/sys/$libc"
check "a FIFO" "is not a regular file"
rm "$tmp/sys/$libc"
ln -s "$(basename "$libc")" "$tmp/sys/$libc"
check "a symlink loop" "is in a symlink loop"

python3 - "$d/perf-noindex.data" "$tmp/unfinished.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
b = b[:off + size]                # no feature table, no features
struct.pack_into('<Q', b, 48, 0)  # data size 0
open(sys.argv[2], 'wb').write(b)
EOF
for how in file pipe; do
	if [ $how = file ]; then
		"$QPT" decode --insn --json --sysroot "$d" -i "$tmp/unfinished.data"
	else
		# shellcheck disable=SC2002 # a pipe on standard input
		cat "$tmp/unfinished.data" |
			"$QPT" decode --insn --json --sysroot "$d" -i -
	fi >"$tmp/insn.json" 2>"$tmp/err" || fail "unfinished, $how: exit $?"
	json_ips <"$tmp/insn.json" >"$tmp/ips"
	zcat "$d/expected/insn-ips.txt.gz" | cmp -s - "$tmp/ips" ||
		fail "unfinished, $how: instructions differ from expected/insn-ips"
	grep -q "^qpt: warning: .*: data size 0 in the header" "$tmp/err" ||
		fail "unfinished, $how: $(cat "$tmp/err")"
	echo "ok: unfinished recording, $how"
done
