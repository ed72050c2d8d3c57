#!/usr/bin/env bash
# A failed write of the output is an error that says why: every printing
# subcommand, to a full disk (/dev/full: ENOSPC) and, with SIGPIPE ignored,
# to a pipe whose reader has gone (EPIPE), exits 1 with one line naming
# the reason as strerror(3) words it (written out here by hand).
# shellcheck source=tests/shell/lib.sh
. "$QPT_SRC/tests/shell/lib.sh"
[ -w /dev/full ] || { echo "skip: no /dev/full"; exit 77; }
d=$T/arcus-hello
[ -d "$d" ] || { echo "skip: no traces"; exit 77; }

# expect WANT QPT-ARGS...: qpt's output to /dev/full
expect() {
	local want=$1 got rc
	shift
	got=$("$QPT" "$@" 2>&1 >/dev/full)
	rc=$?
	if [ "$rc" != 1 ] || [ "$got" != "$want" ]; then
		bad "qpt $* >/dev/full: exit $rc, stderr: $got"
	fi
	checked=$((checked + 1))
}

full='qpt: standard output: No space left on device'
for j in "" --json; do
	expect "$full" dump $j -i "$d/perf.data"
	expect "$full" info $j -i "$d/perf.data"
	expect "$full" decode --insn $j --sysroot "$d" -i "$d/perf.data"
	expect "$full" decode --branches --last 3 $j --sysroot "$d" \
		-i "$d/perf.data"
done

# the reader of a pipe reads 10 bytes and exits: qpt's output is far
# larger than the pipe's buffer, so a later write fails with EPIPE
(
	trap '' PIPE
	{ "$QPT" decode --insn --sysroot "$d" -i "$d/perf.data" 2>"$tmp/err"
	  echo $? >"$tmp/rc"; } | head -c 10 >/dev/null
)
[ "$(cat "$tmp/rc")" = 1 ] || bad "EPIPE: exit $(cat "$tmp/rc")"
[ "$(cat "$tmp/err")" = 'qpt: standard output: Broken pipe' ] ||
	bad "EPIPE: stderr: $(cat "$tmp/err")"
checked=$((checked + 1))
[ "$fail" = 0 ] && echo "ok: $checked cases"
finish
