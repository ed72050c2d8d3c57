#!/usr/bin/env bash
# The man pages the build made (scdoc) and the --help texts say the same:
# every option of each command's --help is in its page's OPTIONS and the
# other way round, and qpt(1) lists the commands qpt --help does
# (man_options.py); each page renders without a warning.
set -u
command -v man >/dev/null || { echo "no man"; exit 77; }
[ -d "$QPT_BUILD/man/man1" ] || { echo "no man pages (no scdoc)"; exit 77; }
fail=0
for p in "$QPT_BUILD"/man/man1/*.1; do
	err=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
	[ -z "$err" ] || { echo "FAIL: $p: $err"; fail=1; }
done
/usr/bin/python3 "$QPT_SRC/tests/install/man_options.py" "$QPT" \
	"$QPT_BUILD/man" || fail=1
exit $fail
