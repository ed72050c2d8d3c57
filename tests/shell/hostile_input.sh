#!/usr/bin/env bash
# Hostile inputs that hung qpt or read without bound, generated here
# (mkhostile.py writes them field by field): a file-mode file with 10,000
# attrs that all name one block of 1,000 ids (the reader re-sorted every id
# after each attr: hours), a pipe-mode file with 40,000 HEADER_ATTR records
# (quadratic: 25 s; qpt convert too), and endless input (/dev/zero) that was read whole
# before its magic was checked.  Every command must end with correct
# output, the sample lines of perf report -D where perf can read the file
# in reasonable memory (their periods say which attr each sample matched:
# perf gives an id several attrs list to the last), or with one clear
# line.  No time is measured: ctest's TIMEOUT bounds the run, which now
# takes seconds.
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
need python3
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1:exitcode=99"
mk() { python3 "$QPT_SRC/tests/shell/mkhostile.py" "$@"; }

# sample_lines FILE: perf report -D's SAMPLE lines without their offsets
# (pipe mode: qpt counts the 16-byte pipe header, perf does not).
sample_lines() { grep 'PERF_RECORD_SAMPLE' | sed 's/^[^[]*\[/[/'; }

# same_samples FILE: qpt dump's sample lines against perf's.
same_samples() {
	local f=$1 want got
	want=$(perf report -D -i "$f" 2>/dev/null | sample_lines)
	got=$("$QPT" dump -i "$f" | sample_lines)
	check_view "$(basename "$f")" "$want" "$got" samples
}

# one_line EXPECT_RC PATTERN CMD...: CMD exits EXPECT_RC with exactly one
# line on stderr, matching PATTERN.
one_line() {
	local rc=$1 pat=$2 got
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	got=$?
	checked=$((checked + 1))
	if [ "$got" != "$rc" ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
	   ! grep -qE "$pat" "$tmp/err"; then
		bad "$*: exit $got (want $rc), stderr:"
		head -3 "$tmp/err"
	else
		echo "ok: $*: $(cat "$tmp/err")"
	fi
}

# every_command FILE NSAMPLES NATTRS: info, dump and decode end; dump
# has the samples, info the attrs.
every_command() {
	local f=$1 ns=$2 na=$3 n
	n=$("$QPT" dump --json -i "$f" | grep -c '"type":"SAMPLE"')
	[ "$n" = "$ns" ] || bad "$f: $n samples in qpt dump, want $ns"
	n=$("$QPT" info -i "$f" | grep -c '^# event : ')
	[ "$n" = "$na" ] || bad "$f: $n events in qpt info, want $na"
	one_line 1 "^qpt: $f: no Intel PT trace in this file$" \
		"$QPT" decode -i "$f"
}

# converted FILE: qpt convert's output has the samples perf reads in FILE.
converted() {
	local f=$1 want got
	"$QPT" convert -i "$f" -o "$tmp/conv.data" ||
		bad "$f: qpt convert exit $?"
	want=$(perf report -D -i "$f" 2>/dev/null | sample_lines)
	got=$(perf report -D -i "$tmp/conv.data" 2>/dev/null | sample_lines)
	check_view "qpt convert $(basename "$f")" "$want" "$got" samples
	rm -f "$tmp/conv.data"
}

# Attrs sharing one block of ids: perf's reading on a size perf handles,
# then the size that hung every command.
mk file 400 1000 "$tmp/f400.data"
if command -v perf >/dev/null; then
	same_samples "$tmp/f400.data"
	converted "$tmp/f400.data"
fi
mk file 10000 1000 "$tmp/f10k.data"
every_command "$tmp/f10k.data" 64 10000

# Many HEADER_ATTR records in pipe mode, from a file and from a pipe.
mk pipe 1000 3 "$tmp/p1k.data"
if command -v perf >/dev/null; then
	same_samples "$tmp/p1k.data"
	converted "$tmp/p1k.data"
fi
mk pipe 40000 1 "$tmp/p40k.data"
every_command "$tmp/p40k.data" 64 40000
"$QPT" convert -i "$tmp/p40k.data" -o "$tmp/conv.data" ||
	bad "p40k.data: qpt convert exit $?"
n=$("$QPT" info -i "$tmp/conv.data" | grep -c '^# event : ')
[ "$n" = 40000 ] || bad "p40k.data: $n events after qpt convert, want 40000"
# shellcheck disable=SC2002 # a pipe on standard input, not a file
n=$(cat "$tmp/p40k.data" | "$QPT" dump --json -i - | grep -c HEADER_ATTR)
[ "$n" = 40000 ] || bad "p40k.data on a pipe: $n HEADER_ATTR, want 40000"

# Endless input: the magic is checked after 16 bytes.
for c in info dump; do
	one_line 1 "^qpt: /dev/zero: offset 0x0: not a perf.data file" \
		"$QPT" $c -i /dev/zero
	one_line 1 "^qpt: -: offset 0x0: not a perf.data file" \
		"$QPT" $c -i - </dev/zero
done
# A valid header, then zeros without end: read as far as the header's
# sections name (the attrs are zeros: no ids, and a record of size 0),
# finished or not (data size 0: the records are streamed).
head -c 104 "$tmp/f400.data" >"$tmp/hdr"
one_line 1 "^qpt: -: offset 0x[0-9a-f]+: record size 0 is smaller" \
	"$QPT" dump -i - < <(cat "$tmp/hdr" /dev/zero)
printf '\0\0\0\0\0\0\0\0' | dd of="$tmp/hdr" bs=1 seek=48 conv=notrunc \
	status=none
"$QPT" dump -i - < <(cat "$tmp/hdr" /dev/zero) >/dev/null 2>"$tmp/err"
rc=$?
checked=$((checked + 1))
if [ $rc != 1 ] || [ "$(wc -l <"$tmp/err")" != 2 ] ||
   ! head -1 "$tmp/err" | grep -q '^qpt: warning: -: data size 0' ||
   ! tail -1 "$tmp/err" | grep -q '^qpt: -: offset 0x[0-9a-f]*: record size 0'
then
	bad "unfinished header and zeros: exit $rc"
	cat "$tmp/err"
else
	echo "ok: unfinished header and zeros: $(tail -1 "$tmp/err")"
fi

# Distinct ids sections that overlap: more ids than the file has bytes.
python3 - "$tmp/f400.data" "$tmp/overlap.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
attr_size, attrs_off = struct.unpack_from('<QQ', b, 16)
for i in range(400):  # attr i's ids start i ids further into the block
    at = attrs_off + i * attr_size + attr_size - 16
    off, size = struct.unpack_from('<QQ', b, at)
    struct.pack_into('<QQ', b, at, off + 8 * (i % 500), size - 8 * (i % 500))
open(sys.argv[2], 'wb').write(b)
EOF
one_line 1 "^qpt: .*overlap.data: offset 0x[0-9a-f]+: the attrs' ids sections overlap" \
	"$QPT" dump -i "$tmp/overlap.data"
finish
